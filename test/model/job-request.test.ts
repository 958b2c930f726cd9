import { describe, expect, it } from 'vitest';
import { requestOf, truthOf, type LossCurveSpec } from '../../src/model/job-spec.js';
import { allreduceJob, batchJob, psJob } from '../helpers.js';

const CURVE: LossCurveSpec = { b0: 2e-4, b1: 0.5, b2: 0.3, noise: 0.01, targetLoss: 0.36 };

describe('job request and truth', () => {
  it('a request drops the speed model, the loss curve and the true step count', () => {
    const specs = [batchJob('b', 5, 2, 300), allreduceJob('a', { workers: 2, totalSteps: 700 }), { ...psJob('p', 2, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 4096 } }, 9000), loss: CURVE }];
    for (const spec of specs) {
      const request = requestOf(spec);
      expect(Object.keys(spec)).toEqual(expect.arrayContaining(['speed', 'totalSteps']));
      // Nothing of the truth can be read from it, nor the spec it reads.
      for (const hidden of ['speed', 'loss', 'totalSteps', 'psTruth', 'spec']) {
        expect(hidden in request).toBe(false);
        expect((request as unknown as Record<string, unknown>)[hidden]).toBeUndefined();
      }
      const written = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
      for (const hidden of ['speed', 'loss', 'totalSteps', 'psTruth']) expect(written).not.toHaveProperty(hidden);
      expect(written).toMatchObject({ id: spec.id, kind: spec.kind, user: spec.user, roles: JSON.parse(JSON.stringify(spec.roles)) });
      // Everything else the submitter declared is there, unchanged.
      for (const [key, value] of Object.entries(spec)) {
        if (key !== 'speed' && key !== 'loss' && key !== 'totalSteps') expect((request as unknown as Record<string, unknown>)[key]).toBe(value);
      }
    }
  });

  it('declares the step count of a training job without a loss curve, the target loss of one with it, and nothing of a replayed trace job\'s run time', () => {
    const stepped = requestOf(allreduceJob('s', { workers: 2, totalSteps: 700 }));
    expect(stepped.declaredSteps).toBe(700);
    expect(stepped.targetLoss).toBeNull();
    const fixed = requestOf(batchJob('b', 0, 1, 300));
    expect(fixed.declaredSteps).toBeNull();
    expect(fixed.targetLoss).toBeNull();
    const converging = { ...allreduceJob('a', { workers: 1, totalSteps: 4321 }), loss: CURVE };
    const request = requestOf(converging);
    expect(request.declaredSteps).toBeNull();
    expect(request.targetLoss).toBe(0.36);
  });

  it('the truth holds the speed model, the loss curve (or null), the true step count and the PS truth (or null)', () => {
    const converging = { ...allreduceJob('a', { workers: 1, totalSteps: 4321 }), loss: CURVE };
    expect(truthOf(converging)).toEqual({ speed: converging.speed, loss: CURVE, totalSteps: 4321, psTruth: null });
    expect(truthOf(batchJob('b', 0, 1, 300))).toEqual({ speed: { kind: 'fixed' }, loss: null, totalSteps: 300, psTruth: null });
  });
});
