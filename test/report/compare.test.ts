import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { buildComparison, comparisonCsv, comparisonTable, flattenMetrics } from '../../src/report/compare.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** A real summary with its JCT mean and makespan replaced, for hand-computable statistics. */
function summaryWith(base: RunSummary, jctMean: number, makespanS: number): RunSummary {
  return { ...base, jctS: { ...base.jctS, mean: jctMean }, makespanS };
}

const base = simulate(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100)])).summary;

describe('comparison', () => {
  it('flattens numeric summary leaves to dotted names, leaving out seed and perf', () => {
    const names = flattenMetrics(base).map(([name]) => name);
    expect(names).toContain('jctS.mean');
    expect(names).toContain('jobs.completed');
    expect(names).toContain('faults.total');
    expect(names).not.toContain('seed');
    expect(names.some((n) => n.startsWith('perf.'))).toBe(false);
  });

  it('computes means, Student-t 95% intervals and ratios to the first policy', () => {
    const runs = [
      { policy: 'a', seed: 1, summary: summaryWith(base, 10, 100) },
      { policy: 'a', seed: 2, summary: summaryWith(base, 12, 100) },
      { policy: 'a', seed: 3, summary: summaryWith(base, 14, 100) },
      { policy: 'b', seed: 1, summary: summaryWith(base, 5, 80) },
      { policy: 'b', seed: 2, summary: summaryWith(base, 6, 80) },
      { policy: 'b', seed: 3, summary: summaryWith(base, 7, 80) },
    ];
    const comparison = buildComparison('s', ['a', 'b'], runs);
    const jct = comparison.metrics['jctS.mean']!;
    expect(jct.a!.mean).toBe(12);
    // sd 2, n 3: t(0.975, 2) = 4.302653 -> 4.302653 * 2 / sqrt(3) = 4.968275.
    expect(jct.a!.ci95).toBeCloseTo(4.968275, 5);
    expect(jct.b!.ratioToFirst).toBe(0.5);
    expect(comparison.metrics.makespanS!.b).toEqual({ n: 3, mean: 80, ci95: 0, ratioToFirst: 0.8 });
    expect(comparison.seeds).toEqual([1, 2, 3]);
    const table = comparisonTable(comparison);
    expect(table).toMatch(/JCT mean\s+12\.0s ± 4\.97s\s+6\.00s ± 2\.48s \(0\.50x\)/);
  });

  it('writes one tidy CSV row per run and metric', () => {
    const runs = [{ policy: 'a', seed: 1, summary: base }];
    const lines = comparisonCsv(runs).trim().split('\n');
    expect(lines[0]).toBe('policy,seed,metric,value');
    expect(lines).toContain(`a,1,jctS.mean,${base.jctS.mean}`);
    expect(lines.length - 1).toBe(flattenMetrics(base).length);
  });

  it('shows "–" for JCT and queueing of a policy that completed no job in any seed', () => {
    const unfinished = { ...base, jobs: { ...base.jobs, completed: 0, unfinished: 1 } };
    const comparison = buildComparison('s', ['a', 'b'], [
      { policy: 'a', seed: 1, summary: base },
      { policy: 'b', seed: 1, summary: unfinished },
    ]);
    const table = comparisonTable(comparison);
    expect(table).toMatch(/JCT mean\s+1\.7m\s+–\n/);
    expect(table).toMatch(/queueing p90\s+0\.00s\s+–\n/);
    expect(table).toMatch(/makespan\s+1\.7m\s+1\.7m \(1\.00x\)\n/);
  });

  it('has no interval with a single seed', () => {
    const comparison = buildComparison('s', ['a'], [{ policy: 'a', seed: 4, summary: base }]);
    expect(comparison.metrics['jctS.mean']!.a!.ci95).toBeNull();
  });
});
