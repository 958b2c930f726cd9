import { describe, expect, it } from 'vitest';
import { evaluateExpectation, formatGate, gateFails } from '../../src/bench/gates.js';
import type { RunSummary } from '../../src/metrics/summary.js';
import type { Expectation } from '../../src/scenario/scenario.js';
import { uniformSummary } from '../helpers.js';

/** A summary whose ettr and jctS.mean are given (other fields zero). */
function summary(ettr: number, jctMeanS = 100): RunSummary {
  return uniformSummary(0, {
    seed: 1,
    jobs: { submitted: 1, completed: 1, failed: 0, unfinished: 0 },
    makespanS: 10,
    jctS: { mean: jctMeanS, p50: 0, p90: 0, p99: 0 },
    ettr,
    runtimeRatio: 1,
    fairness: { users: 1, jainSlowdown: 1, slowdownMean: 1 },
  });
}

const ENTRY: Expectation = { metric: 'ettr', policy: 'dlrover', target: 0.6, tolerance: 0.05, seeds: 4, source: 'seed 001 table', where: 'x.yaml:9: expect[0]' };

/** ettr per seed (seeds 1..n) for dlrover. */
function runs(values: readonly number[]): (policy: string, seed: number) => RunSummary {
  return (_policy, seed) => summary(values[seed - 1]!);
}

describe('published figures as gates', () => {
  it('are two-sided: a mean just inside either end meets the target, just outside misses it', () => {
    expect(evaluateExpectation('s', ENTRY, 1, runs([0.56, 0.56, 0.56, 0.56])).status).toBe('met');
    expect(evaluateExpectation('s', ENTRY, 1, runs([0.64, 0.64, 0.64, 0.64])).status).toBe('met');
    const low = evaluateExpectation('s', ENTRY, 1, runs([0.54, 0.54, 0.54, 0.54]));
    const high = evaluateExpectation('s', ENTRY, 1, runs([0.66, 0.66, 0.66, 0.66]));
    expect([low.status, high.status]).toEqual(['missed', 'missed']);
    expect(gateFails(low) && gateFails(high)).toBe(true);
  });

  it('average over the seeds named, from the first seed, and print target, mean, interval and source', () => {
    const result = evaluateExpectation('week', ENTRY, 3, (_policy, seed) => summary(seed <= 4 ? 0.5 : 0.62));
    // Seeds 3-6: two at 0.5, two at 0.62.
    expect(result.n).toBe(4);
    expect(result.mean).toBeCloseTo(0.56, 12);
    expect(result.ci95).toBeGreaterThan(0);
    const line = formatGate(result);
    expect(line).toContain('week  dlrover  ettr: mean 0.56 (95% CI ');
    expect(line).toContain('over 4 seeds; target 0.6 ± 0.05 (seed 001 table)');
  });

  it('hold a known gap to the model two-sided, print it as KNOWN GAP with the target, and fail when it drifts or closes', () => {
    const gap: Expectation = { ...ENTRY, gap: { model: 0.78, drift: 0.03 } };
    const held = evaluateExpectation('s', gap, 1, runs([0.77, 0.77, 0.79, 0.79]));
    expect(held.status).toBe('known-gap');
    expect(gateFails(held)).toBe(false);
    expect(formatGate(held)).toMatch(/^KNOWN GAP .* target 0\.6 ± 0\.05 \(seed 001 table\); gap \+0\.18, held to the model's 0\.78 ± 0\.03$/);
    expect(evaluateExpectation('s', gap, 1, runs([0.82, 0.82, 0.82, 0.82])).status).toBe('gap-drifted');
    expect(evaluateExpectation('s', gap, 1, runs([0.74, 0.74, 0.74, 0.74])).status).toBe('gap-drifted');
    const closed = evaluateExpectation('s', gap, 1, runs([0.61, 0.61, 0.61, 0.61]));
    expect(closed.status).toBe('gap-closed');
    expect(gateFails(closed)).toBe(true);
    expect(formatGate(closed)).toContain('remove the gap');
  });

  it('take a paired ratio per seed (policy / baseline), skipping seeds where the baseline is 0', () => {
    const paired: Expectation = { ...ENTRY, metric: 'pairedRatio.jctS.mean', policy: 'drf', baseline: 'optimus', target: 2, tolerance: 0.1, seeds: 3 };
    const jct: Record<string, number[]> = { drf: [300, 50, 220], optimus: [100, 0, 110] };
    const result = evaluateExpectation('s', paired, 1, (policy, seed) => summary(1, jct[policy]![seed - 1]!));
    // Seeds 1 and 3: 3 and 2 (a ratio of means would be 570/210 = 2.71).
    expect(result.n).toBe(2);
    expect(result.mean).toBeCloseTo(2.5, 12);
    expect(result.status).toBe('missed');
    expect(formatGate(result)).toContain('drf/optimus  pairedRatio.jctS.mean: mean 2.5');
  });

  it('name the entry when its metric does not exist', () => {
    expect(() => evaluateExpectation('s', { ...ENTRY, metric: 'etr' }, 1, runs([1, 1, 1, 1]))).toThrow(
      /^x\.yaml:9: expect\[0\]: metric: unknown metric "etr"/,
    );
  });
});
