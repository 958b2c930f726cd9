import { isUserError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { runScenario, type RunRequest } from '../sim/run-scenario.js';

/** A worker's answer: the summary, or the message of a user error (error classes do not cross threads). */
export type CellWorkerResult = { readonly summary: RunSummary } | { readonly userError: string };

/** Worker-thread entry for a sweep's cells (piscina): one run per call. */
export default async function runCellInWorker(request: RunRequest): Promise<CellWorkerResult> {
  try {
    return { summary: await runScenario(request) };
  } catch (error) {
    if (isUserError(error)) return { userError: error.message };
    throw error;
  }
}
