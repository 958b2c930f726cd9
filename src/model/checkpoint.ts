/**
 * Young/Daly's optimal checkpoint interval in seconds of training: sqrt(2 x save time x mean time
 * between failures), for a save that blocks `saveS` and failures at `failuresPerS`. Infinity when
 * the job never fails (no checkpoint needed).
 */
export function youngDalyIntervalS(saveS: number, failuresPerS: number): number {
  if (!(failuresPerS > 0)) return Infinity;
  return Math.sqrt((2 * saveS) / failuresPerS);
}
