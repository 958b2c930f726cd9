import { describe, expect, it } from 'vitest';
import type { PsTruth } from '../../src/model/job-spec.js';
import { psMemTotalMiB, psOomStep, psShares, psTruthStepsPerS, psTruthUsage, type AsyncSpeed } from '../../src/model/ps-truth.js';

const SPEED: AsyncSpeed = { kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 };
const EVEN: PsTruth = { variableSizes: [1, 1, 1, 1], psMemBaseMiB: 4096, psMemGrowthMiBPerStep: 0.5, workerMemMiB: 2048, workerCpuMilli: 4000, psCpuMilli: 4000 };

/** The Optimus async model of REFERENCE §5. */
function optimus(w: number, p: number): number {
  return w / (SPEED.t0 + (SPEED.t1 * w) / p + SPEED.t2 * w + SPEED.t3 * p);
}

describe('PS job truth', () => {
  it('is the Optimus async model with even shares at the reference CPU', () => {
    for (const [w, p] of [[1, 1], [4, 2], [8, 4], [3, 2]] as const) {
      const truth = { ...EVEN, variableSizes: Array.from({ length: p }, () => 1) };
      expect(psTruthStepsPerS(SPEED, truth, { workerCpuMilli: new Array(w).fill(4000), psCpuMilli: new Array(p).fill(4000) })).toBeCloseTo(optimus(w, p), 10);
    }
  });

  it('assigns variables to PS round robin, so uneven sizes make one PS hot', () => {
    expect(psShares([3, 1, 1, 1], 2)).toEqual([4 / 6, 2 / 6]);
    expect(psShares([1, 1], 3)).toEqual([0.5, 0.5, 0]);
    const hot = { ...EVEN, variableSizes: [3, 1, 1, 1] };
    const even = psTruthStepsPerS(SPEED, { ...EVEN, variableSizes: [1, 1] }, { workerCpuMilli: new Array(8).fill(4000), psCpuMilli: [4000, 4000] });
    const slowed = psTruthStepsPerS(SPEED, hot, { workerCpuMilli: new Array(8).fill(4000), psCpuMilli: [4000, 4000] });
    expect(slowed).toBeLessThan(even);
    // Twice the CPU on the hot PS (rank 0) brings its update time below the even split's.
    const migrated = psTruthStepsPerS(SPEED, hot, { workerCpuMilli: new Array(8).fill(4000), psCpuMilli: [8000, 4000] });
    expect(migrated).toBeGreaterThan(slowed);
    expect(migrated).toBeGreaterThanOrEqual(even);
  });

  it('slows a worker with less CPU than its reference, gains nothing above it, and lets each worker train at its own pace', () => {
    const ps = [4000, 4000, 4000, 4000];
    const at = (workers: number[]) => psTruthStepsPerS(SPEED, EVEN, { workerCpuMilli: workers, psCpuMilli: ps });
    expect(at([2000, 2000])).toBeLessThan(at([4000, 4000]));
    expect(at([8000, 8000])).toBe(at([4000, 4000]));
    // Asynchronous training: a slow worker slows itself only; the job runs between the two uniform speeds.
    expect(at([2000, 4000])).toBeGreaterThan(at([2000, 2000]));
    expect(at([2000, 4000])).toBeLessThan(at([4000, 4000]));
  });

  it('uses PS CPU in proportion to the step rate, and worker CPU for its compute share', () => {
    const holdings = { workerCpuMilli: [4000, 4000, 4000, 4000], psCpuMilli: [4000, 4000, 4000, 4000] };
    const rate = psTruthStepsPerS(SPEED, EVEN, holdings);
    const usage = psTruthUsage(SPEED, EVEN, holdings, rate, 0);
    // Each PS: f·t1·s_i on its 4 cores; each worker: f·t0/w of its 4 cores.
    for (const cores of usage.psCpuCores) expect(cores).toBeCloseTo(rate * SPEED.t1 * 0.25 * 4, 10);
    for (const cores of usage.workerCpuCores) expect(cores).toBeCloseTo(((rate * SPEED.t0) / 4) * 4, 10);
    const half = psTruthUsage(SPEED, EVEN, holdings, rate / 2, 0);
    expect(half.psCpuCores[0]).toBeCloseTo(usage.psCpuCores[0]! / 2, 10);
  });

  it('grows PS memory with steps and finds the step a PS reaches its limit', () => {
    expect(psMemTotalMiB(EVEN, 1000)).toBe(4096 + 500);
    // Each PS holds a quarter: 2048 MiB each reach their limit when the total reaches 8192 MiB.
    expect(psOomStep(EVEN, [2048, 2048, 2048, 2048], 0)).toBeCloseTo((8192 - 4096) / 0.5, 6);
    expect(psOomStep(EVEN, [4096, 2048, 4096, 4096], 0)).toBeCloseTo((8192 - 4096) / 0.5, 6);
    expect(psOomStep(EVEN, [1024, 2048, 2048, 2048], 0)).toBe(0);
    expect(psOomStep({ ...EVEN, psMemGrowthMiBPerStep: 0 }, [2048, 2048, 2048, 2048], 0)).toBe(Infinity);
  });
});
