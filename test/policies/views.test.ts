import { describe, expect, it } from 'vitest';
import type { LossCurveSpec } from '../../src/model/job-spec.js';
import type {
  OracleJobView,
  OracleSchedulingPolicy,
  PlainSchedulingPolicy,
  SchedulingContext,
  SchedulingPolicy,
} from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { allreduceJob } from '../helpers.js';

// Type-level checks: `npx tsc -p tsconfig.test.json --noEmit` fails when a marked line compiles.

/** A plain policy sees requests and observations only. */
export const plainPeek: PlainSchedulingPolicy = {
  name: 'plain-peek',
  schedule(context: SchedulingContext) {
    for (const job of [...context.queued, ...context.running]) {
      // @ts-expect-error a plain policy's view has no ground truth
      void job.truth;
      // @ts-expect-error nor the job's full spec
      void job.spec;
      void job.request.declaredSteps;
      void job.request.targetLoss;
      // @ts-expect-error the request has no true step count
      void job.request.totalSteps;
      // @ts-expect-error nor the true speed model
      void job.request.speed;
      // @ts-expect-error nor the true loss curve
      void job.request.loss;
    }
    return [];
  },
};

/** An oracle policy, marked as such, reads the truth. */
export const oraclePeek: OracleSchedulingPolicy = {
  name: 'oracle-peek',
  oracle: true,
  schedule(context: SchedulingContext<OracleJobView>) {
    for (const job of context.queued) void [job.truth.totalSteps, job.truth.speed.kind, job.truth.loss?.b0];
    return [];
  },
};

/** A policy that asks for oracle views without the oracle mark is no scheduling policy. */
// @ts-expect-error reading the truth needs `oracle: true`
export const unmarked: SchedulingPolicy = {
  name: 'unmarked',
  schedule(context: SchedulingContext<OracleJobView>) {
    void context.queued[0]?.truth;
    return [];
  },
};

const CURVE: LossCurveSpec = { b0: 2e-4, b1: 0.5, b2: 0.3, noise: 0.01, targetLoss: 0.36 };

describe('job runtime views', () => {
  it('a job runtime builds its request and truth once', () => {
    const job = new JobRuntime({ ...allreduceJob('a', { workers: 1, totalSteps: 4321 }), loss: CURVE }, 1, { nowS: 0 });
    expect(job.request).toBe(job.request);
    expect(job.truth).toBe(job.truth);
    expect(job.request.id).toBe('a');
    expect(job.truth.totalSteps).toBe(4321);
  });
});
