/**
 * Progress of runs in worker threads: the worker posts where its run stands on a MessagePort handed
 * over with the task, the main thread feeds it into the run's line. Reporting never changes a run.
 */
import type { MessagePort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { SimProgress } from '../sim/simulation.js';
import type { Progress, RunProgress } from './progress.js';

/** What a worker posts on its progress port: that its run started (on which thread), then where it stands. */
export type ProgressMessage = { readonly kind: 'start'; readonly lane: number } | { readonly kind: 'progress'; readonly progress: SimProgress };

/** Milliseconds between two posts of one run (its start and its end are always posted). */
const POST_GAP_MS = 250;

/**
 * In a worker: posts that the run started on thread `lane`, and returns the SimOptions.onProgress
 * callback that posts where it stands at most every POST_GAP_MS of `nowMs` (the end always).
 */
export function postProgress(port: MessagePort, lane: number, nowMs: () => number = () => performance.now()): (progress: SimProgress) => void {
  port.postMessage({ kind: 'start', lane } satisfies ProgressMessage);
  let lastPostMs = -Infinity;
  return (progress) => {
    const now = nowMs();
    if (!progress.done && now - lastPostMs < POST_GAP_MS) return;
    lastPostMs = now;
    port.postMessage({ kind: 'progress', progress } satisfies ProgressMessage);
  };
}

/**
 * In the main thread: shows what a worker posts on `port` as the run `label`; returns the function
 * to call once the run's result is in (it finishes the line, started or not, and closes the port;
 * later messages are dropped).
 */
export function followRun(port: MessagePort, progress: Progress, label: string): () => void {
  let run: RunProgress | null = null;
  let ended = false;
  port.on('message', (message: ProgressMessage) => {
    if (ended) return;
    if (message.kind === 'start') run ??= progress.startRun(label, message.lane);
    else (run ??= progress.startRun(label)).update(message.progress);
  });
  return () => {
    if (ended) return;
    ended = true;
    (run ?? progress.startRun(label)).finish();
    port.close();
  };
}
