import { describe, expect, it } from 'vitest';
import { checkRatioFloors, formatRatioCheck, RATIO_FLOORS, type BenchFigure } from '../../src/bench/perf-gate.js';

const figure = (metric: string, value: number): BenchFigure => ({ bench: 'engine-ratios', metric, value, unit: 'x', target: '' });

describe('the performance gate', () => {
  it('gates only in-process ratios, each with a floor and its reason', () => {
    expect(RATIO_FLOORS.length).toBeGreaterThan(0);
    for (const floor of RATIO_FLOORS) {
      expect(floor.metric).toContain('÷');
      expect(floor.floor).toBeGreaterThan(0);
      expect(floor.reason).toMatch(/measured/);
    }
  });

  it('fails a ratio below its floor or missing, passes one at or above it', () => {
    const [hold, sim] = RATIO_FLOORS;
    const checks = checkRatioFloors([figure(hold!.metric, hold!.floor * 0.99), figure('wall time', 1e9)]);
    expect(checks.map((check) => check.ok)).toEqual([false, false]);
    expect(formatRatioCheck(checks[0]!)).toMatch(/^PERF REGRESSED {2}engine-ratios {2}engine ÷ heap/);
    expect(formatRatioCheck(checks[1]!)).toContain('not measured');
    const passing = checkRatioFloors([figure(hold!.metric, hold!.floor), figure(sim!.metric, sim!.floor * 3)]);
    expect(passing.map((check) => check.ok)).toEqual([true, true]);
  });
});
