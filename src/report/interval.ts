import cephes from 'cephes';

// cephes is WebAssembly; its ES module compiles it asynchronously (in Node.js too): wait once, here.
await cephes.compiled;

/** Arithmetic mean of a non-empty list. */
export function meanOf(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** The Student t quantile: the value t with P(T ≤ t) = `probability` for `degreesOfFreedom` (a positive integer). */
export function tQuantile(probability: number, degreesOfFreedom: number): number {
  return cephes.stdtri(degreesOfFreedom, probability);
}

/** Half-width of the 95% confidence interval of the mean (at least two values): t(0.975, n-1) x sd / sqrt(n). */
export function ciHalfWidth(values: readonly number[], mean: number): number {
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  const sd = Math.sqrt(squares / (values.length - 1));
  return (tQuantile(0.975, values.length - 1) * sd) / Math.sqrt(values.length);
}

/** Rounds to six decimals, so reports print and compare stable values. */
export function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
