import { threadId, type MessagePort } from 'node:worker_threads';
import { isUserError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { runAndWrite } from '../report/run-files.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { postProgress } from './progress-port.js';

/** A worker's answer: the summary, or the message of a user error (error classes do not cross threads). */
export type WorkerResult = { readonly summary: RunSummary } | { readonly userError: string };

/** A run for a worker: the request and, when progress is shown, the port to post where the run stands on. */
export type WorkerTask = RunRequest & { readonly progressPort?: MessagePort };

/** Worker-thread entry for runs in parallel (piscina): one run per call. */
export default async function runInWorker(task: WorkerTask): Promise<WorkerResult> {
  const { progressPort, ...request } = task;
  try {
    return { summary: await runAndWrite(request, progressPort === undefined ? undefined : postProgress(progressPort, threadId)) };
  } catch (error) {
    if (isUserError(error)) return { userError: error.message };
    throw error;
  }
}
