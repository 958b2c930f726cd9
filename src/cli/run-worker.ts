import { isUserError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { runAndWrite } from '../report/run-files.js';
import type { RunRequest } from '../sim/run-scenario.js';

/** A worker's answer: the summary, or the message of a user error (error classes do not cross threads). */
export type WorkerResult = { readonly summary: RunSummary } | { readonly userError: string };

/** Worker-thread entry for runs in parallel (piscina): one run per call. */
export default async function runInWorker(request: RunRequest): Promise<WorkerResult> {
  try {
    return { summary: await runAndWrite(request) };
  } catch (error) {
    if (isUserError(error)) return { userError: error.message };
    throw error;
  }
}
