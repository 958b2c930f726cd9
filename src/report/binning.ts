import type { GanttCsvRow, UsageRow } from './report-data.js';

/** Most points a CDF is drawn from. */
export const MAX_CDF_POINTS = 500;

/** Most points a series over time is drawn from. */
export const MAX_SERIES_POINTS = 500;

/** A point of an empirical CDF: the share of values at or below `value`. */
export interface CdfPoint {
  readonly value: number;
  readonly fraction: number;
}

/**
 * The empirical CDF of ascending `sorted` values in at most `maxPoints` points: every value when
 * there are few, else the quantiles at evenly spaced fractions from 0 to 1 (the minimum and maximum kept).
 */
export function cdfPoints(sorted: ArrayLike<number>, maxPoints: number = MAX_CDF_POINTS): CdfPoint[] {
  const n = sorted.length;
  if (n === 0) return [];
  if (n <= maxPoints) return Array.from({ length: n }, (_, i) => ({ value: sorted[i]!, fraction: (i + 1) / n }));
  const out: CdfPoint[] = [];
  for (let k = 0; k < maxPoints; k++) {
    const fraction = k / (maxPoints - 1);
    out.push({ value: sorted[Math.round(fraction * (n - 1))]!, fraction });
  }
  return out;
}

/**
 * usage.csv rows merged into at most `maxRows` rows: runs of neighbouring bins become one whose
 * levels are the means weighted by each bin's length (so an average over time stays exact).
 */
export function coarsenUsage(rows: readonly UsageRow[], maxRows: number = MAX_SERIES_POINTS): UsageRow[] {
  if (rows.length <= maxRows) return [...rows];
  const group = Math.ceil(rows.length / maxRows);
  const out: UsageRow[] = [];
  for (let start = 0; start < rows.length; start += group) {
    const part = rows.slice(start, start + group);
    const weight = part.reduce((sum, r) => sum + r.binS, 0);
    const mean = (pick: (r: UsageRow) => number): number => (weight > 0 ? part.reduce((sum, r) => sum + pick(r) * r.binS, 0) / weight : pick(part[0]!));
    const last = part[part.length - 1]!;
    out.push({
      timeS: part[0]!.timeS,
      binS: last.timeS + last.binS - part[0]!.timeS,
      allocatedGpus: mean((r) => r.allocatedGpus),
      busyGpus: mean((r) => r.busyGpus),
      totalGpus: last.totalGpus,
      allocatedCpuMilli: mean((r) => r.allocatedCpuMilli),
      pendingJobs: mean((r) => r.pendingJobs),
      runningJobs: mean((r) => r.runningJobs),
      dataWorkers: mean((r) => r.dataWorkers),
    });
  }
  return out;
}

/** Fixed bins over [startS, endS): `count` bins of `widthS` seconds. */
export interface Bins {
  readonly startS: number;
  readonly widthS: number;
  readonly count: number;
}

/** `count` equal bins over [startS, endS] (a span of 0 gets bins of 1 s). */
export function binsOver(startS: number, endS: number, count: number): Bins {
  const spanS = endS - startS;
  return { startS, widthS: spanS > 0 ? spanS / count : 1, count };
}

/** How many of `times` fall in each bin, by key (times outside the bins go to the nearest). */
export function countInBins<T>(items: readonly T[], timeOf: (item: T) => number, keyOf: (item: T) => string, bins: Bins): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const item of items) {
    const key = keyOf(item);
    let counts = out.get(key);
    if (counts === undefined) out.set(key, (counts = new Array<number>(bins.count).fill(0)));
    const bin = Math.min(bins.count - 1, Math.max(0, Math.floor((timeOf(item) - bins.startS) / bins.widthS)));
    counts[bin] = counts[bin]! + 1;
  }
  return out;
}

/**
 * For each state in `states`, the mean number of the Gantt's jobs in it over each bin (intervals
 * spread over the bins they cover, weighted by the time they overlap).
 */
export function occupancyInBins(rows: readonly GanttCsvRow[], states: readonly string[], bins: Bins): Map<string, number[]> {
  const out = new Map<string, number[]>(states.map((s) => [s, new Array<number>(bins.count).fill(0)]));
  for (const row of rows) {
    const counts = out.get(row.state);
    if (counts === undefined) continue;
    const first = Math.max(0, Math.floor((row.fromS - bins.startS) / bins.widthS));
    const last = Math.min(bins.count - 1, Math.floor((row.toS - bins.startS) / bins.widthS));
    for (let bin = first; bin <= last; bin++) {
      const binStartS = bins.startS + bin * bins.widthS;
      const overlapS = Math.min(row.toS, binStartS + bins.widthS) - Math.max(row.fromS, binStartS);
      if (overlapS > 0) counts[bin] = counts[bin]! + overlapS / bins.widthS;
    }
  }
  return out;
}
