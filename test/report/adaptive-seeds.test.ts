import { describe, expect, it } from 'vitest';
import { headlineWidths, meetsTarget, seedsToAdd, type IntervalWidth } from '../../src/report/adaptive-seeds.js';
import type { Comparison, MetricStats } from '../../src/report/compare.js';
import { HEADLINE_METRICS } from '../../src/report/headline.js';

function stats(n: number, mean: number, ci95: number | null): MetricStats {
  return { n, mean, ci95, ratioToFirst: null };
}

/** A comparison of policies a and b whose headline metrics all have the given statistics, JCT mean of b `jctB`. */
function comparisonWith(all: MetricStats, jctB: MetricStats): Comparison {
  const metrics: Record<string, Record<string, MetricStats>> = {};
  for (const metric of HEADLINE_METRICS) metrics[metric] = { a: all, b: metric === 'jctS.mean' ? jctB : all };
  return { scenario: 's', policies: ['a', 'b'], seeds: [1], metrics, pairedRatios: {}, pairedDifferences: {} };
}

describe('adaptive seeds', () => {
  it('measures every headline metric of every policy relative to its mean, widest first', () => {
    const widths = headlineWidths(comparisonWith(stats(5, 100, 2), stats(5, 50, 10)));
    expect(widths).toHaveLength(HEADLINE_METRICS.length * 2);
    expect(widths[0]).toMatchObject({ policy: 'b', metric: 'jctS.mean', relativeHalfWidth: 0.2 });
    expect(widths[1]!.relativeHalfWidth).toBe(0.02);
  });

  it('meets the target within the share; a mean of 0 only with no width; one seed never', () => {
    const w = (relativeHalfWidth: number | null): IntervalWidth => ({ policy: 'a', metric: 'm', n: 5, mean: 1, ci95: 1, relativeHalfWidth });
    expect(meetsTarget(w(0.05), 0.05)).toBe(true);
    expect(meetsTarget(w(0.0500001), 0.05)).toBe(false);
    expect(meetsTarget(w(null), 0.05)).toBe(false);
    expect(headlineWidths(comparisonWith(stats(5, 0, 0), stats(5, 0, 0))).every((x) => meetsTarget(x, 0.01))).toBe(true);
    expect(headlineWidths(comparisonWith(stats(1, 3, null), stats(1, 3, null)))[0]!.relativeHalfWidth).toBe(Infinity);
  });

  it('adds enough seeds for the widest interval if its spread holds, at most doubling, never past the cap', () => {
    // ±20% at n = 5 for a 5% target: (0.2 / 0.05)^2 x 5 = 80 seeds wanted; at most doubling -> 5 more.
    const wide = headlineWidths(comparisonWith(stats(5, 100, 2), stats(5, 50, 10)));
    expect(seedsToAdd(wide, 5, 0.05, 200)).toBe(5);
    expect(seedsToAdd(wide, 40, 0.05, 200)).toBe(40);
    expect(seedsToAdd(wide, 195, 0.05, 200)).toBe(5);
    expect(seedsToAdd(wide, 200, 0.05, 200)).toBe(0);
    // ±6% at n = 40 for 5%: (6/5)^2 x 40 = 57.6 -> 58, so 18 more.
    const near = headlineWidths(comparisonWith(stats(40, 100, 1), stats(40, 100, 6)));
    expect(seedsToAdd(near, 40, 0.05, 200)).toBe(18);
    // Met: none.
    expect(seedsToAdd(headlineWidths(comparisonWith(stats(5, 100, 2), stats(5, 100, 4))), 5, 0.05, 200)).toBe(0);
  });
});
