import { describe, expect, it } from 'vitest';
import { keyedNormal, type SpeedSample } from '../../../src/model/observations.js';
import {
  asyncStepsPerS,
  distinctShapes,
  fitAsyncSpeedModel,
  fitSyncSpeedModel,
  scaleAsyncPrior,
  syncStepsPerS,
  type AsyncSpeedParams,
  type SyncSpeedParams,
} from '../../../src/policies/fitting/speed-model.js';

/** Ten (ps, workers) shapes, as Optimus profiles a job with (~10 samples). */
const SHAPES: [number, number][] = [[1, 1], [1, 2], [2, 2], [2, 4], [3, 6], [4, 8], [2, 8], [4, 4], [1, 4], [3, 3]];
const ASYNC: AsyncSpeedParams = { t0: 0.5, t1: 0.08, t2: 0.01, t3: 0.03 };
const SYNC: SyncSpeedParams = { t0: 0.02, t1: 0.1, t2: 0.05, t3: 0.01, t4: 0.02, globalBatch: 64 };

function samplesOf(speed: (p: number, w: number) => number, noise: number, key: string): SpeedSample[] {
  return SHAPES.map(([ps, workers], i) => ({ ps, workers, stepsPerS: speed(ps, workers) * (1 + noise * keyedNormal(`${key}:${i}`)) }));
}

/** Largest relative speed error over the shapes inside the sampled range (p <= 4, w <= 8). */
function worstError(fitted: (p: number, w: number) => number, truth: (p: number, w: number) => number): number {
  let worst = 0;
  for (let p = 1; p <= 4; p++) for (let w = 1; w <= 8; w++) worst = Math.max(worst, Math.abs(fitted(p, w) / truth(p, w) - 1));
  return worst;
}

describe('Optimus speed models', () => {
  it('evaluates the async and sync formulas', () => {
    expect(asyncStepsPerS(ASYNC, 2, 4)).toBeCloseTo(4 / (0.5 + 0.16 + 0.04 + 0.06), 12);
    expect(syncStepsPerS(SYNC, 2, 4)).toBeCloseTo(1 / (0.02 * 16 + 0.1 + 0.1 + 0.04 + 0.04), 12);
    expect(asyncStepsPerS(ASYNC, 0, 4)).toBe(0);
    expect(distinctShapes([{ ps: 1, workers: 1, stepsPerS: 1 }, { ps: 1, workers: 1, stepsPerS: 2 }, { ps: 2, workers: 1, stepsPerS: 1 }])).toBe(2);
  });

  it('recovers the async parameters from noiseless samples', () => {
    const fit = fitAsyncSpeedModel(samplesOf((p, w) => asyncStepsPerS(ASYNC, p, w), 0, 'a'))!;
    expect(fit.t0).toBeCloseTo(ASYNC.t0, 8);
    expect(fit.t1).toBeCloseTo(ASYNC.t1, 8);
    expect(fit.t2).toBeCloseTo(ASYNC.t2, 8);
    expect(fit.t3).toBeCloseTo(ASYNC.t3, 8);
  });

  it('recovers the sync parameters from noiseless samples', () => {
    const fit = fitSyncSpeedModel(samplesOf((p, w) => syncStepsPerS(SYNC, p, w), 0, 's'), 64)!;
    for (const key of ['t0', 't1', 't2', 't3', 't4'] as const) expect(fit[key]).toBeCloseTo(SYNC[key], 8);
    expect(fit.globalBatch).toBe(64);
  });

  // Tolerance stated: with 3% noise on each of the ten samples, t0 (the dominant term) is within
  // 15% and the predicted speed of every shape in the sampled range within 12%, for each of 5 draws.
  it('stays close under 3% noise (async)', () => {
    for (let draw = 1; draw <= 5; draw++) {
      const fit = fitAsyncSpeedModel(samplesOf((p, w) => asyncStepsPerS(ASYNC, p, w), 0.03, `an${draw}`))!;
      expect(Math.abs(fit.t0 / ASYNC.t0 - 1)).toBeLessThan(0.15);
      expect(worstError((p, w) => asyncStepsPerS(fit, p, w), (p, w) => asyncStepsPerS(ASYNC, p, w))).toBeLessThan(0.12);
    }
  });

  it('stays close under 3% noise (sync)', () => {
    for (let draw = 1; draw <= 5; draw++) {
      const fit = fitSyncSpeedModel(samplesOf((p, w) => syncStepsPerS(SYNC, p, w), 0.03, `sn${draw}`), 64)!;
      expect(worstError((p, w) => syncStepsPerS(fit, p, w), (p, w) => syncStepsPerS(SYNC, p, w))).toBeLessThan(0.12);
    }
  });

  it('scales a prior to the level of the samples and pulls a fit towards a prior', () => {
    const one = [{ ps: 1, workers: 1, stepsPerS: asyncStepsPerS(ASYNC, 1, 1) }];
    const scaled = scaleAsyncPrior(one, { t0: 1, t1: 1, t2: 1, t3: 1 })!;
    expect(asyncStepsPerS(scaled, 1, 1)).toBeCloseTo(asyncStepsPerS(ASYNC, 1, 1), 10);
    expect(scaled.t0).toBeCloseTo(scaled.t3, 12);
    // Two shapes cannot pin down four parameters: a strong prior decides what the data leave open.
    const two = samplesOf((p, w) => asyncStepsPerS(ASYNC, p, w), 0, 'two').slice(0, 2);
    const pulled = fitAsyncSpeedModel(two, { prior: ASYNC, priorWeight: 1 })!;
    expect(pulled.t3 / ASYNC.t3).toBeCloseTo(1, 2);
    expect(fitAsyncSpeedModel([])).toBeNull();
    expect(scaleAsyncPrior([], ASYNC)).toBeNull();
  });
});
