/**
 * The rule of `compare --seeds auto`: run a first batch of seeds, then add seeds until every
 * headline metric's 95% interval half-width (Student t over seeds) is within a share of its mean,
 * for every policy, or the cap is reached. Batch sizes come from the results only (never from the
 * worker count), so the seeds it takes are the same on any machine.
 */
import type { Comparison } from './compare.js';
import { HEADLINE_METRICS } from './headline.js';
import { tQuantile } from './interval.js';

/** Seeds of the first batch (fewer when the cap is lower). */
export const FIRST_BATCH_SEEDS = 5;

/** One headline metric of one policy, measured against the target. */
export interface IntervalWidth {
  readonly policy: string;
  readonly metric: string;
  readonly n: number;
  readonly mean: number;
  readonly ci95: number | null;
  /** ci95 ÷ |mean|: 0 for an interval of 0 width, null for a mean of 0 with a width (no share can meet it), Infinity without an interval (one seed). */
  readonly relativeHalfWidth: number | null;
}

/** Every headline metric of every policy, widest (relative to its mean) first. */
export function headlineWidths(comparison: Comparison): IntervalWidth[] {
  const out: IntervalWidth[] = [];
  for (const metric of HEADLINE_METRICS) {
    for (const policy of comparison.policies) {
      const stats = comparison.metrics[metric]?.[policy];
      if (stats === undefined) continue;
      const relative = stats.ci95 === null ? Infinity : stats.ci95 === 0 ? 0 : stats.mean === 0 ? null : stats.ci95 / Math.abs(stats.mean);
      out.push({ policy, metric, n: stats.n, mean: stats.mean, ci95: stats.ci95, relativeHalfWidth: relative });
    }
  }
  return out.sort((a, b) => rank(b.relativeHalfWidth) - rank(a.relativeHalfWidth));
}

/** Sort key of a relative width: a mean-0 interval is the widest of all. */
function rank(relative: number | null): number {
  return relative === null ? Number.MAX_VALUE : relative;
}

/** True when a width meets the target share. */
export function meetsTarget(width: IntervalWidth, target: number): boolean {
  return width.relativeHalfWidth !== null && width.relativeHalfWidth <= target;
}

/**
 * Seeds to add after `n` seeds: enough for the widest interval to meet the target if its spread
 * holds (half-width shrinks as t(0.975, n-1) / sqrt(n)), at least 1, at most `n` (doubling) and
 * never past `maxSeeds`; 0 when every width meets the target or the cap is reached.
 */
export function seedsToAdd(widths: readonly IntervalWidth[], n: number, target: number, maxSeeds: number): number {
  if (n >= maxSeeds || widths.every((w) => meetsTarget(w, target))) return 0;
  let needed = n + 1;
  for (const w of widths) {
    if (meetsTarget(w, target)) continue;
    if (w.ci95 === null || w.relativeHalfWidth === null || n < 2) {
      needed = Infinity;
      break;
    }
    // sd = ci95 sqrt(n) / t(n-1); wanted: t(m-1) sd / sqrt(m) <= target |mean|, with t(m-1) taken as t(n-1).
    const sd = (w.ci95 * Math.sqrt(n)) / tQuantile(0.975, n - 1);
    needed = Math.max(needed, Math.ceil(((tQuantile(0.975, n - 1) * sd) / (target * Math.abs(w.mean))) ** 2));
  }
  return Math.max(1, Math.min(needed - n, n, maxSeeds - n));
}
