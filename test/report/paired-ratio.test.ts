import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { buildComparison, comparisonTable } from '../../src/report/compare.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

function summaryWith(base: RunSummary, jctMean: number, makespanS: number): RunSummary {
  return { ...base, jctS: { ...base.jctS, mean: jctMean }, makespanS };
}

const base = simulate(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100)])).summary;

describe('paired ratios in a comparison', () => {
  // Per seed, b / a: JCT 2, 1, 0.5 (mean 7/6); the ratio of the means would be 14/12 = 1.1667 too,
  // but makespan pairs 0.5, 1, 2 (mean 7/6) whose ratio of means is 1.
  const runs = [
    { policy: 'a', seed: 1, summary: summaryWith(base, 5, 100) },
    { policy: 'a', seed: 2, summary: summaryWith(base, 10, 200) },
    { policy: 'a', seed: 3, summary: summaryWith(base, 20, 400) },
    { policy: 'b', seed: 1, summary: summaryWith(base, 10, 50) },
    { policy: 'b', seed: 2, summary: summaryWith(base, 10, 200) },
    { policy: 'b', seed: 3, summary: summaryWith(base, 10, 800) },
  ];

  it('averages the per-seed ratio to the first policy, with a Student-t 95% interval', () => {
    const comparison = buildComparison('s', ['a', 'b'], runs);
    const jct = comparison.pairedRatios['jctS.mean']!.b!;
    expect(jct.n).toBe(3);
    expect(jct.mean).toBeCloseTo(7 / 6, 6);
    // sd of (2, 1, 0.5) = 0.763763; t(0.975, 2) = 4.302653 -> 4.302653 * 0.763763 / sqrt(3) = 1.8973.
    expect(jct.ci95).toBeCloseTo(1.8973, 4);
    expect(comparison.pairedRatios.makespanS!.b!.mean).toBeCloseTo(7 / 6, 6);
    expect(comparison.metrics.makespanS!.b!.ratioToFirst).toBeCloseTo(1050 / 700, 6);
    // The first policy is the reference: it has no paired ratio.
    expect(comparison.pairedRatios['jctS.mean']!.a).toBeUndefined();
  });

  it('pairs by seed and leaves out seeds where the first policy has no run or a zero value', () => {
    const comparison = buildComparison('s', ['a', 'b'], [
      ...runs.filter((r) => !(r.policy === 'a' && r.seed === 3)),
      { policy: 'a', seed: 4, summary: summaryWith(base, 0, 100) },
      { policy: 'b', seed: 4, summary: summaryWith(base, 5, 100) },
    ]);
    const jct = comparison.pairedRatios['jctS.mean']!.b!;
    expect(jct.n).toBe(2);
    expect(jct.mean).toBeCloseTo(1.5, 6);
  });

  it('prints the paired ratios under the table', () => {
    const text = comparisonTable(buildComparison('s', ['a', 'b'], runs));
    expect(text).toContain('paired ratio to a');
    expect(text).toMatch(/JCT mean\s+1\.17x ± 1\.90/);
    expect(text).toMatch(/makespan\s+1\.17x ± /);
  });
});
