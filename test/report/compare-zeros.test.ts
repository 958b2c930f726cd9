import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { buildComparison, comparisonCsv, flattenMetrics } from '../../src/report/compare.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

const base = simulate(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100)])).summary;

/** The real summary with its faults by type replaced. */
function withFaults(byType: Record<string, number>): RunSummary {
  const total = Object.values(byType).reduce((sum, n) => sum + n, 0);
  return { ...base, faults: { ...base.faults, total, byType } };
}

// Policy a met fault x on seed 1 only; policy b met y on both seeds and never x.
const runs = [
  { policy: 'a', seed: 1, summary: withFaults({ x: 2 }) },
  { policy: 'a', seed: 2, summary: withFaults({}) },
  { policy: 'b', seed: 1, summary: withFaults({ y: 1 }) },
  { policy: 'b', seed: 2, summary: withFaults({ y: 3 }) },
];

describe('comparison of faults by type', () => {
  it('counts a seed without a fault type as zero, not as missing', () => {
    const comparison = buildComparison('s', ['a', 'b'], runs);
    expect(comparison.metrics['faults.byType.x']!.a).toMatchObject({ n: 2, mean: 1 });
    expect(comparison.metrics['faults.byType.x']!.b).toMatchObject({ n: 2, mean: 0 });
    expect(comparison.metrics['faults.byType.y']!.a).toMatchObject({ n: 2, mean: 0 });
    expect(comparison.metrics['faults.byType.y']!.b).toMatchObject({ n: 2, mean: 2 });
    // The per-type means add up to the mean total.
    for (const policy of ['a', 'b']) {
      const perType = comparison.metrics['faults.byType.x']![policy]!.mean + comparison.metrics['faults.byType.y']![policy]!.mean;
      expect(perType).toBeCloseTo(comparison.metrics['faults.total']![policy]!.mean, 6);
    }
  });

  it('writes the zeros to the CSV: every run has the same metric rows', () => {
    const lines = comparisonCsv(runs).trim().split('\n').slice(1);
    expect(lines).toContain('a,2,faults.byType.x,0');
    expect(lines).toContain('b,1,faults.byType.x,0');
    expect(lines).toContain('a,1,faults.byType.y,0');
    const metricsOf = (policy: string, seed: number) =>
      lines.filter((l) => l.startsWith(`${policy},${seed},`)).map((l) => l.split(',')[2]);
    const first = metricsOf('a', 1);
    expect(first.length).toBe(flattenMetrics(base).length + 2);
    for (const [policy, seed] of [['a', 2], ['b', 1], ['b', 2]] as const) expect(metricsOf(policy, seed)).toEqual(first);
  });
});
