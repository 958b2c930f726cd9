import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { SimError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { invariantChecksByDefault } from '../sim/invariants.js';
import { runAndWrite } from '../report/run-files.js';
import type { RunRequest } from '../sim/run-scenario.js';
import type { WorkerResult } from './run-worker.js';

/** Worker threads to use for `runs` runs when the user gave none: one per core, at most one per run. */
export function defaultWorkers(runs: number): number {
  return Math.max(1, Math.min(availableParallelism(), runs));
}

/**
 * Runs every request and returns the summaries in request order, whatever order they finish in
 * (so results do not depend on the worker count). One worker runs in this thread. A user error in
 * any run (the first in request order) is raised as such, whichever thread met it.
 */
export async function runMany(requests: readonly RunRequest[], workers: number): Promise<RunSummary[]> {
  if (workers <= 1) {
    const summaries: RunSummary[] = [];
    for (const request of requests) summaries.push(await runAndWrite(request));
    return summaries;
  }
  const pool = new Piscina<RunRequest, WorkerResult>({
    filename: new URL('./run-worker.js', import.meta.url).href,
    maxThreads: workers,
    minThreads: workers,
  });
  try {
    // Worker threads do not share this thread's defaults: each request says whether to check invariants.
    const checkInvariants = invariantChecksByDefault();
    const results = await Promise.all(requests.map((request) => pool.run({ checkInvariants, ...request })));
    return results.map((result) => {
      if ('userError' in result) throw new SimError(result.userError);
      return result.summary;
    });
  } finally {
    await pool.destroy();
  }
}
