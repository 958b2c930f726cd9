import type { RandomStream } from '../../engine/random.js';
import { ConfigError } from '../../errors.js';

/** One point of an empirical distribution: `value` is the p-quantile. Points are sorted by p, from p = 0 to p = 1. */
export type QuantilePoint = readonly [p: number, value: number];

/**
 * The value at cumulative probability u (in [0, 1)) of an empirical quantile table, interpolated
 * log-linearly between neighbouring points (durations and sizes are spread over orders of
 * magnitude, so a straight line in log space follows them better). Values must be > 0.
 */
export function quantileAt(points: readonly QuantilePoint[], u: number): number {
  for (let i = 1; i < points.length; i++) {
    const [p1, v1] = points[i]!;
    if (u <= p1 || i === points.length - 1) {
      const [p0, v0] = points[i - 1]!;
      const t = p1 > p0 ? Math.min(1, Math.max(0, (u - p0) / (p1 - p0))) : 0;
      return v0 * Math.pow(v1 / v0, t);
    }
  }
  return points[0]![1];
}

/** One outcome of a discrete distribution with its relative weight (weights need not sum to 1). */
export interface Weighted<T> {
  readonly value: T;
  readonly weight: number;
}

/** Draws one value of a weighted table from the stream. */
export function pickWeighted<T>(table: readonly Weighted<T>[], stream: RandomStream): T {
  return table[stream.weightedIndex(table.map((entry) => entry.weight))]!.value;
}

/** The share of one value in a weighted table, for tests and docs. */
export function weightShare<T>(table: readonly Weighted<T>[], value: T): number {
  let total = 0;
  let matching = 0;
  for (const entry of table) {
    total += entry.weight;
    if (entry.value === value) matching += entry.weight;
  }
  return matching / total;
}

/**
 * Submission times in seconds of `count` jobs of a Poisson process whose rate follows the hour of
 * day: rate(h) = meanPerHour * weightByHour[h] / mean(weightByHour), with hour 0 starting at
 * submitS = 0 (so `submitS mod 86400` is the time of day). Exact inversion over the piecewise
 * constant rate: one exponential draw per job from `stream`, so the sequence is a pure function
 * of the stream.
 */
export function diurnalArrivalsS(
  count: number,
  meanPerHour: number,
  weightByHour: readonly number[],
  stream: RandomStream,
): number[] {
  if (weightByHour.length !== 24) throw new ConfigError('diurnal arrivals', `need 24 hourly weights, got ${weightByHour.length}`);
  const meanWeight = weightByHour.reduce((a, b) => a + b, 0) / 24;
  if (!(meanWeight > 0) || weightByHour.some((w) => !(w >= 0))) {
    throw new ConfigError('diurnal arrivals', 'hourly weights must be non-negative with a positive sum');
  }
  if (!(meanPerHour > 0)) throw new ConfigError('diurnal arrivals', `the mean rate must be positive, got ${meanPerHour}`);
  const ratePerSByHour = weightByHour.map((w) => (meanPerHour * w) / meanWeight / 3600);
  const times: number[] = [];
  let nowS = 0;
  for (let i = 0; i < count; i++) {
    let remaining = stream.exponential(1);
    for (;;) {
      const hourIndex = Math.floor(nowS / 3600);
      const hourEndS = (hourIndex + 1) * 3600;
      const ratePerS = ratePerSByHour[hourIndex % 24]!;
      const mass = ratePerS * (hourEndS - nowS);
      if (mass >= remaining) {
        nowS += remaining / ratePerS;
        break;
      }
      remaining -= mass;
      nowS = hourEndS;
    }
    // Millisecond resolution keeps trace lines short; the exact time carries on to the next draw.
    times.push(Math.round(nowS * 1000) / 1000);
  }
  return times;
}

/**
 * Worker layout of a job of `gpus` GPUs on nodes of `gpusPerNode`: one replica up to a node;
 * beyond, the fewest equal workers of at most a node each (32 -> 4 x 8, 12 -> 2 x 6, 24 -> 3 x 8).
 */
export function splitGpus(gpus: number, gpusPerNode: number): { replicas: number; gpusPerReplica: number } {
  if (gpus <= gpusPerNode) return { replicas: 1, gpusPerReplica: gpus };
  for (let replicas = Math.ceil(gpus / gpusPerNode); replicas <= gpus; replicas++) {
    if (gpus % replicas === 0) return { replicas, gpusPerReplica: gpus / replicas };
  }
  return { replicas: gpus, gpusPerReplica: 1 };
}

/** Id of the i-th generated job (0-based): "<style>-000001", … */
export function generatedJobId(style: string, index: number): string {
  return `${style}-${String(index + 1).padStart(6, '0')}`;
}

/** The `source` of a generated job, for error messages: "generate philly seed 1 #17". */
export function generatedSource(style: string, seed: number, index: number): string {
  // One shared prefix joined to the number: a template's pieces would each stay joined, per job.
  if (sourcePrefix.style !== style || sourcePrefix.seed !== seed) sourcePrefix = { style, seed, text: `generate ${style} seed ${seed} #` };
  return sourcePrefix.text + String(index + 1);
}

/** The prefix of the sources last made. */
let sourcePrefix = { style: '', seed: Number.NaN, text: '' };

/** Weights 1/rank^exponent for ranks 1..n (a Zipf law), for skewed user activity. */
export function zipfWeights(n: number, exponent: number): number[] {
  return Array.from({ length: n }, (_, i) => 1 / Math.pow(i + 1, exponent));
}
