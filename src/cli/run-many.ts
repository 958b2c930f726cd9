import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { SimError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { invariantChecksByDefault } from '../sim/invariants.js';
import { runAndWrite } from '../report/run-files.js';
import type { RunRequest } from '../sim/run-scenario.js';
import type { Progress } from './progress.js';
import { followRun } from './progress-port.js';
import type { WorkerResult, WorkerTask } from './run-worker.js';

/** Worker threads to use for `runs` runs when the user gave none: one per core, at most one per run. */
export function defaultWorkers(runs: number): number {
  return Math.max(1, Math.min(availableParallelism(), runs));
}

/**
 * Runs every request and returns the summaries in request order, whatever order they finish in
 * (so results do not depend on the worker count). One worker runs in this thread. A user error in
 * any run (the first in request order) is raised as such, whichever thread met it. With `progress`
 * shown, every run gets a line while it runs (worker threads post on a port; results are the same).
 */
export async function runMany(requests: readonly RunRequest[], workers: number, progress?: Progress): Promise<RunSummary[]> {
  const shown = progress?.shown === true ? progress : null;
  const labelOf = runLabeller(requests);
  if (workers <= 1) {
    const summaries: RunSummary[] = [];
    for (const request of requests) {
      const run = shown?.startRun(labelOf(request)) ?? null;
      try {
        summaries.push(await runAndWrite(request, run === null ? undefined : (p) => run.update(p)));
      } finally {
        run?.finish();
      }
    }
    return summaries;
  }
  const pool = new Piscina<WorkerTask, WorkerResult>({
    filename: new URL('./run-worker.js', import.meta.url).href,
    maxThreads: workers,
    minThreads: workers,
  });
  try {
    // Worker threads do not share this thread's defaults: each request says whether to check invariants.
    const checkInvariants = invariantChecksByDefault();
    const results = await Promise.all(
      requests.map(async (request) => {
        if (shown === null) return pool.run({ checkInvariants, ...request });
        const { port1, port2 } = new MessageChannel();
        const end = followRun(port1, shown, labelOf(request));
        try {
          return await pool.run({ checkInvariants, ...request, progressPort: port2 }, { transferList: [port2] });
        } finally {
          end();
        }
      }),
    );
    return results.map((result) => {
      if ('userError' in result) throw new SimError(result.userError);
      return result.summary;
    });
  } finally {
    await pool.destroy();
  }
}

/** A run's name on its progress line: its policy and seed, after its scenario's file name when the runs are of several. */
function runLabeller(requests: readonly RunRequest[]): (request: RunRequest) => string {
  const files = new Set(requests.map((r) => r.file)).size;
  return (r) => `${files > 1 ? `${basename(r.file).replace(/\.ya?ml$/, '')} ` : ''}${r.policy} s${r.seed}`;
}
