import { setFlagsFromString } from 'node:v8';

/**
 * How far the collected heap may grow past the data that survived the last full collection before
 * the next one, in percent: 100 lets it reach about twice that data. V8 grows it up to four times
 * in a program that allocates steadily, which is what a replay does: a million-job replay keeping
 * about 400 MB alive then held 1.5 GB of heap. Twice costs a few more full collections (each marks
 * the live data, mostly on V8's helper thread).
 */
export const HEAP_GROWING_PERCENT = 100;

/** Sets dlsim's heap growth (see HEAP_GROWING_PERCENT) unless node was started with its own; returns the flag set, or null. */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): string | null {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return null;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlagsFromString(flag);
  return flag;
}
