import type { JobPhase } from '../policies/types.js';
import type { JobRuntime, JobWatcher } from './job-runtime.js';

/**
 * Makes `onChange` hear of every update and phase change of `job`, beside the watcher it already
 * has (the invariant checker), which keeps hearing first. Costs nothing for jobs not watched.
 */
export function watchJob(job: JobRuntime, onChange: (job: JobRuntime) => void): void {
  const before = job.watcher;
  const watcher: JobWatcher =
    before === null
      ? { touched: onChange, phaseChanged: onChange }
      : {
          touched: (j: JobRuntime) => {
            before.touched(j);
            onChange(j);
          },
          phaseChanged: (j: JobRuntime, from: JobPhase) => {
            before.phaseChanged(j, from);
            onChange(j);
          },
        };
  job.watcher = watcher;
}
