/**
 * The rule of `compare --seeds auto`: run a first batch of seeds, then add seeds until every
 * headline metric's 95% interval half-width (Student t over seeds) is within a share of its mean,
 * for every policy, or the cap is reached. Batch sizes come from the results only (never from the
 * worker count), so the seeds it takes are the same on any machine.
 */
import type { AdaptiveSeedsOutcome, Comparison, HeadlineWidth } from './compare.js';
import { HEADLINE_METRICS } from './headline.js';
import { tQuantile } from './interval.js';
import { rowOf } from './table-rows.js';

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

/** The largest allowed half-width, the cap, and how to run a batch of seeds (returning the comparison of every seed run so far). */
export interface AdaptiveSeedsRequest {
  readonly firstSeed: number;
  /** Largest 95% half-width allowed, as a share of the mean. */
  readonly target: number;
  readonly maxSeeds: number;
  readonly runSeeds: (seeds: readonly number[]) => Promise<Comparison>;
  /** Told one line after each batch (how many seeds, the widest interval, how many come next). */
  readonly onBatch?: (line: string) => void;
}

/**
 * Runs FIRST_BATCH_SEEDS seeds (the scenario's and the ones after it), then batches of
 * `seedsToAdd`, until every headline metric meets the target for every policy or `maxSeeds` ran.
 */
export async function addSeedsUntilNarrow(request: AdaptiveSeedsRequest): Promise<{ comparison: Comparison; seeds: number[]; outcome: AdaptiveSeedsOutcome }> {
  const { target, maxSeeds } = request;
  const seeds: number[] = [];
  let batch = Math.min(FIRST_BATCH_SEEDS, maxSeeds);
  for (;;) {
    const next = Array.from({ length: batch }, (_, i) => request.firstSeed + seeds.length + i);
    const comparison = await request.runSeeds(next);
    seeds.push(...next);
    const widths = headlineWidths(comparison);
    batch = seedsToAdd(widths, seeds.length, target, maxSeeds);
    request.onBatch?.(`seeds auto: ${seeds.length} seeds, widest 95% CI ${describeWidth(widths[0])}${batch > 0 ? `; adding ${batch}` : ''}`);
    if (batch > 0) continue;
    const missed = widths.filter((w) => !meetsTarget(w, target)).map(headlineWidth);
    const outcome: AdaptiveSeedsOutcome = { target, maxSeeds, seeds: seeds.length, stoppedBy: missed.length === 0 ? 'target' : 'cap', widest: widths[0] === undefined ? null : headlineWidth(widths[0]), missed };
    return { comparison, seeds, outcome };
  }
}

/** A width as comparison.json keeps it (its share rounded to six decimals). */
function headlineWidth(width: IntervalWidth): HeadlineWidth {
  const relative = width.relativeHalfWidth;
  return { policy: width.policy, metric: width.metric, relativeHalfWidth: relative === null || relative === Infinity ? null : Math.round(relative * 1e6) / 1e6 };
}

/** "±3.20% of the mean (fifo JCT mean)". */
function describeWidth(width: IntervalWidth | undefined): string {
  if (width === undefined) return 'none';
  const relative = width.relativeHalfWidth;
  const share = relative === null ? 'wider than a mean of 0' : relative === Infinity ? 'unknown (one seed)' : `±${(relative * 100).toFixed(2)}% of the mean`;
  return `${share} (${width.policy} ${rowOf(width.metric).label})`;
}

/** The table's last line with --seeds auto: how many seeds it took and why it stopped (at the cap: each metric that missed). */
export function adaptiveSeedsFooter(outcome: AdaptiveSeedsOutcome): string {
  const target = `${Number((outcome.target * 100).toPrecision(6))}%`;
  if (outcome.stoppedBy === 'target') return `seeds auto: ${outcome.seeds} seeds: every headline metric's 95% CI is within ${target} of its mean for every policy`;
  const missed = outcome.missed
    .map((w) => `${w.policy} ${rowOf(w.metric).label} (${w.relativeHalfWidth === null ? 'no interval yet or a mean of 0' : `±${(w.relativeHalfWidth * 100).toFixed(2)}%`})`)
    .join(', ');
  return `seeds auto: stopped at the cap of ${outcome.maxSeeds} seeds; 95% CI not yet within ${target} of the mean: ${missed}`;
}
