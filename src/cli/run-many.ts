import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { RunSummary } from '../metrics/summary.js';
import { runScenario, type RunRequest } from '../sim/run-scenario.js';

/** Worker threads to use for `runs` runs when the user gave none: one per core, at most one per run. */
export function defaultWorkers(runs: number): number {
  return Math.max(1, Math.min(availableParallelism(), runs));
}

/**
 * Runs every request and returns the summaries in request order, whatever order they finish in
 * (so results do not depend on the worker count). One worker runs in this thread.
 */
export async function runMany(requests: readonly RunRequest[], workers: number): Promise<RunSummary[]> {
  if (workers <= 1) {
    const summaries: RunSummary[] = [];
    for (const request of requests) summaries.push(await runScenario(request));
    return summaries;
  }
  const pool = new Piscina<RunRequest, RunSummary>({
    filename: new URL('./run-worker.js', import.meta.url).href,
    maxThreads: workers,
    minThreads: workers,
  });
  try {
    return await Promise.all(requests.map((request) => pool.run(request)));
  } finally {
    await pool.destroy();
  }
}
