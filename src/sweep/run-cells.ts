/** Runs a sweep's cells, in this thread or in worker threads (piscina), handing each summary over as it finishes. */
import { Piscina } from 'piscina';
import { isUserError, SimError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { invariantChecksByDefault } from '../sim/invariants.js';
import { runScenario, type RunRequest } from '../sim/run-scenario.js';
import type { CellWorkerResult } from './cell-worker.js';

/** One cell to run: a label for messages and the run. */
export interface CellJob {
  /** How messages name the cell ("cell 000003-fifo-seed2 (cluster.nodes[0].count=4)"). */
  readonly label: string;
  readonly request: RunRequest;
}

/** Told as each cell starts and ends (a progress display); it must not change the runs. */
export interface CellWatcher {
  started(index: number, label: string): void;
  ended(index: number): void;
}

/** A user error in a cell, naming the cell. */
function cellError(job: CellJob, message: string): SimError {
  return new SimError(`${job.label}: ${message}`);
}

/**
 * Runs the jobs and calls `finished(i, summary)` for each as it ends (in this thread, one at a
 * time, in whatever order they end). With one worker the runs are made here, in order. With more,
 * at most two runs per worker are queued at once; after a failure no new run starts, the ones
 * started finish (and are handed over), and the failure is raised: a user error names its cell
 * (the first in job order among those that failed).
 */
export async function runCells(jobs: readonly CellJob[], workers: number, finished: (index: number, summary: RunSummary) => void, watcher?: CellWatcher): Promise<void> {
  if (workers <= 1) {
    for (let i = 0; i < jobs.length; i++) {
      let summary: RunSummary;
      watcher?.started(i, jobs[i]!.label);
      try {
        summary = await runScenario(jobs[i]!.request);
      } catch (error) {
        if (isUserError(error)) throw cellError(jobs[i]!, error.message);
        throw error;
      } finally {
        watcher?.ended(i);
      }
      finished(i, summary);
      // A run never waits on the event loop: yield to it, so a signal (SIGINT, SIGTERM) is handled between cells.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return;
  }
  const pool = new Piscina<RunRequest, CellWorkerResult>({
    filename: new URL('./cell-worker.js', import.meta.url).href,
    maxThreads: workers,
    minThreads: workers,
  });
  // Worker threads do not share this thread's defaults: each request says whether to check invariants.
  const checkInvariants = invariantChecksByDefault();
  const failures: { index: number; error: unknown }[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (failures.length === 0 && next < jobs.length) {
      const i = next++;
      const job = jobs[i]!;
      watcher?.started(i, job.label);
      try {
        const result = await pool.run({ checkInvariants, ...job.request });
        if ('userError' in result) failures.push({ index: i, error: cellError(job, result.userError) });
        else finished(i, result.summary);
      } catch (error) {
        failures.push({ index: i, error });
      } finally {
        watcher?.ended(i);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs.length, workers * 2) }, lane));
  } finally {
    await pool.destroy();
  }
  if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0]!.error;
}
