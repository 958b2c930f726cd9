/** A job's place in a Tiresias queue order: its queue, then its arrival (submit time, then id). */
export interface LasKey {
  readonly queue: number;
  readonly submitS: number;
  readonly id: string;
}

/** Higher priority first: lower queue, then earlier arrival (submit time, then id). */
export function compareLasKeys(a: LasKey, b: LasKey): number {
  if (a.queue !== b.queue) return a.queue - b.queue;
  if (a.submitS !== b.submitS) return a.submitS - b.submitS;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The queue (0 = highest priority) a service level falls in. */
export function queueOf(serviceGpuS: number, thresholdsGpuS: readonly number[]): number {
  let queue = 0;
  while (queue < thresholdsGpuS.length && serviceGpuS >= thresholdsGpuS[queue]!) queue++;
  return queue;
}

/**
 * Seconds of slack when a due time (a demotion or a promotion) is derived instead of checked at
 * every pass: a job is checked exactly from this long before its derived time on, so rounding in
 * the derivation can never make a check late.
 */
export const DUE_SLACK_S = 1;

/** Orders due times (seconds), then a tie-breaking sequence number. */
export function compareDue(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
