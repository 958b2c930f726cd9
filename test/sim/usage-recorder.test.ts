import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_USAGE_BINS, UsageRecorder, type ClusterLevels } from '../../src/sim/usage-recorder.js';

const ZERO: ClusterLevels = { allocatedGpus: 0, busyGpus: 0, allocatedCpuMilli: 0, pendingJobs: 0, runningJobs: 0, dataWorkers: 0 };

/** Drives a recorder through steps [dtS, level]: the level holds for dtS after each step. */
function record(startS: number, widthS: number, steps: readonly (readonly [number, number])[]): { recorder: UsageRecorder; integral: number; endS: number } {
  let level = 0;
  const recorder = new UsageRecorder(startS, widthS, () => ({ ...ZERO, allocatedGpus: level, pendingJobs: 2 * level }));
  let nowS = startS;
  let integral = 0;
  for (const [dtS, next] of steps) {
    level = next;
    integral += level * dtS;
    nowS += dtS;
    recorder.advanceTo(nowS);
  }
  return { recorder, integral, endS: nowS };
}

describe('UsageRecorder', () => {
  it('keeps each level\u2019s integral exactly over bins of the sample period', () => {
    const { recorder } = record(100, 30, [
      [45, 8],
      [15, 4],
      [60, 0],
    ]);
    const bins = recorder.bins();
    expect(bins.map((b) => b.timeS)).toEqual([100, 130, 160, 190]);
    expect(bins.map((b) => b.allocatedGpus)).toEqual([8, 6, 0, 0]);
    expect(bins.map((b) => b.pendingJobs)).toEqual([16, 12, 0, 0]);
    expect(recorder.binWidthS).toBe(30);
  });

  it('merges bins two by two past MAX_USAGE_BINS, so a long run keeps few rows and the same integral', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 0.001, max: 5000, noNaN: true }), fc.integer({ min: 0, max: 64 })), { minLength: 1, maxLength: 300 }), (steps) => {
        const { recorder, integral, endS } = record(0, 1, steps);
        const bins = recorder.bins();
        expect(bins.length).toBeLessThanOrEqual(MAX_USAGE_BINS);
        const covered = bins.reduce((sum, b) => sum + b.coveredS, 0);
        expect(covered).toBeCloseTo(endS, 6);
        const sum = bins.reduce((s, b) => s + b.allocatedGpus * b.coveredS, 0);
        expect(Math.abs(sum - integral)).toBeLessThanOrEqual(1e-9 * Math.max(1, integral));
        for (const b of bins) expect(b.coveredS).toBeLessThanOrEqual(recorder.binWidthS * (1 + 1e-9));
      }),
      { numRuns: 60 },
    );
  });

  it('counts nothing when time does not move', () => {
    const { recorder } = record(0, 30, [[0, 8]]);
    expect(recorder.bins()).toEqual([]);
  });
});
