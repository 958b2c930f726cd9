import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { buildComparison, comparisonTable } from '../../src/report/compare.js';
import { excludesZero, pairedDifferences } from '../../src/report/paired-difference.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

const base = simulate(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100)])).summary;

function summaryWith(jctMean: number, makespanS: number): RunSummary {
  return { ...base, jctS: { ...base.jctS, mean: jctMean }, makespanS };
}

describe('paired differences', () => {
  // Per seed b − a on JCT: 10 − 100 = -90, 30 − 130 = -100, 60 − 170 = -110: mean -100, sd 10.
  // The unpaired intervals overlap widely (a: 133 ± 87, b: 33 ± 62) yet every seed favours b.
  const runs = [
    { policy: 'a', seed: 1, summary: summaryWith(100, 1000) },
    { policy: 'a', seed: 2, summary: summaryWith(130, 1000) },
    { policy: 'a', seed: 3, summary: summaryWith(170, 1000) },
    { policy: 'b', seed: 1, summary: summaryWith(10, 1000) },
    { policy: 'b', seed: 2, summary: summaryWith(30, 1001) },
    { policy: 'b', seed: 3, summary: summaryWith(60, 999) },
  ];
  const comparison = buildComparison('s', ['a', 'b'], runs);

  it('averages the per-seed difference to the first policy with a Student-t 95% interval, for every metric', () => {
    const jct = comparison.pairedDifferences['jctS.mean']!.b!;
    expect(jct.n).toBe(3);
    expect(jct.mean).toBe(-100);
    // sd 10, n 3: t(0.975, 2) = 4.302653 -> 4.302653 * 10 / sqrt(3) = 24.841377.
    expect(jct.ci95).toBeCloseTo(24.841377, 5);
    expect(excludesZero(jct)).toBe(true);
    // Makespan differences 0, +1, -1: mean 0, an interval around it.
    const makespan = comparison.pairedDifferences.makespanS!.b!;
    expect(makespan.mean).toBe(0);
    expect(excludesZero(makespan)).toBe(false);
    // Every compared metric has one, the first policy none.
    expect(Object.keys(comparison.pairedDifferences).sort()).toEqual(Object.keys(comparison.metrics).sort());
    expect(comparison.pairedDifferences['jctS.mean']!.a).toBeUndefined();
  });

  it('prints the headline metrics\' differences, marking those whose interval leaves out 0', () => {
    const table = comparisonTable(comparison);
    expect(table).toMatch(/paired difference to a/);
    expect(table).toMatch(/JCT mean\s+-1\.7m ± 24\.8s \*/);
    expect(table).toMatch(/makespan\s+0\.00s ± 2\.48s\s*\n/);
  });

  it('pairs only seeds both policies ran, and has no interval with one pair', () => {
    const one = pairedDifferences(['a', 'b'], ['x'], [
      { policy: 'a', seed: 1, metrics: new Map([['x', 5]]) },
      { policy: 'a', seed: 2, metrics: new Map([['x', 7]]) },
      { policy: 'b', seed: 2, metrics: new Map([['x', 4]]) },
      { policy: 'b', seed: 3, metrics: new Map([['x', 9]]) },
    ]);
    expect(one.x!.b).toEqual({ n: 1, mean: -3, ci95: null });
    expect(excludesZero(one.x!.b!)).toBe(false);
  });

  it('is the difference of the means when every seed pairs, and moves by c when the policy\'s values do', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 })), { minLength: 2, maxLength: 12 }), fc.integer({ min: -50, max: 50 }), (pairs, c) => {
        const runsOf = (shift: number) =>
          pairs.flatMap(([x, y], seed) => [
            { policy: 'a', seed, metrics: new Map([['m', x]]) },
            { policy: 'b', seed, metrics: new Map([['m', y + shift]]) },
          ]);
        const d = pairedDifferences(['a', 'b'], ['m'], runsOf(0)).m!.b!;
        const shifted = pairedDifferences(['a', 'b'], ['m'], runsOf(c)).m!.b!;
        const meanA = pairs.reduce((s, [x]) => s + x, 0) / pairs.length;
        const meanB = pairs.reduce((s, [, y]) => s + y, 0) / pairs.length;
        expect(d.mean).toBeCloseTo(meanB - meanA, 5);
        expect(shifted.mean).toBeCloseTo(d.mean + c, 5);
        expect(shifted.ci95).toBeCloseTo(d.ci95!, 5);
      }),
    );
  });
});
