import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobSpec, LossCurveSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { convergenceStep } from '../../src/model/observations.js';
import { createOptimus } from '../../src/policies/scheduling/optimus.js';
import type { PlainSchedulingPolicy } from '../../src/policies/types.js';
import { Simulation, type SimResult } from '../../src/sim/simulation.js';
import { gpuCluster, scenarioOf, withoutViews } from '../helpers.js';
import { createOptimusFullScan } from './optimus-full-scan.js';

const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16_384 };
const WORKERS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16_384 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 32_768 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 8192 },
];
const CURVES: LossCurveSpec[] = [
  { b0: 2e-4, b1: 0.5, b2: 0.3, noise: 0.01, targetLoss: 0.36 },
  { b0: 1e-3, b1: 0.4, b2: 0.2, noise: 0.02, targetLoss: 0.3 },
];

const jobArb = fc.record({
  elastic: fc.boolean(),
  worker: fc.integer({ min: 0, max: WORKERS.length - 1 }),
  replicas: fc.integer({ min: 1, max: 4 }),
  ps: fc.integer({ min: 0, max: 2 }),
  submitS: fc.integer({ min: 0, max: 4000 }),
  steps: fc.integer({ min: 200, max: 3000 }),
  curve: fc.integer({ min: 0, max: CURVES.length - 1 }),
  maxReplicas: fc.integer({ min: 2, max: 8 }),
});

/** A rigid job (batch or PS) or an elastic async-PS job with a loss curve. */
function specFor(id: string, j: { elastic: boolean; worker: number; replicas: number; ps: number; submitS: number; steps: number; curve: number; maxReplicas: number }): JobSpec {
  const worker = WORKERS[j.worker]!;
  const roles: JobSpec['roles'] = [{ role: 'worker', replicas: j.replicas, demand: worker }, ...(j.ps > 0 || j.elastic ? [{ role: 'ps' as const, replicas: Math.max(1, j.ps), demand: PS }] : [])];
  const kind = j.ps > 0 || j.elastic ? 'ps' : 'batch';
  if (!j.elastic) {
    return { id, kind, submitS: j.submitS, user: '', gpuTypes: [], roles, elastic: null, totalSteps: j.steps, speed: { kind: 'fixed' }, source: `test:${id}` };
  }
  const loss = CURVES[j.curve]!;
  return {
    id,
    kind: 'ps',
    submitS: j.submitS,
    user: '',
    gpuTypes: [],
    roles,
    elastic: { minReplicas: 1, maxReplicas: j.maxReplicas, unit: 1 },
    totalSteps: convergenceStep(loss),
    speed: { kind: 'ps-async', t0: 0.3, t1: 0.06, t2: 0.006, t3: 0.01 },
    source: `test:${id}`,
    loss,
  };
}

/** The policy, with every pass's decisions written down. */
function recording(policy: PlainSchedulingPolicy, log: string[]): PlainSchedulingPolicy {
  return {
    ...policy,
    schedule: (context) => {
      const actions = policy.schedule(context);
      log.push(`${context.nowS} ${JSON.stringify(withoutViews(actions))}`);
      return actions;
    },
  };
}

/** What a run ended with: its summary and each job's end state. */
function outcome(result: SimResult): unknown {
  return { summary: result.summary, endS: result.endS, jobs: result.jobs.map((job) => [job.request.id, job.phase, job.firstStartS, job.progressSteps]) };
}

describe('optimus: a queue kept from the changes', () => {
  it('makes the same decisions at every pass as the pass that reads the whole queue, over random runs', () => {
    let decisions = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(jobArb, { minLength: 1, maxLength: 14 }), fc.integer({ min: 60, max: 900 }), (nodeCount, jobs, tickS) => {
        const specs = jobs.map((j, k) => specFor(`j${k}`, j));
        const scenario = scenarioOf(gpuCluster(nodeCount, 8), specs, { policy: 'optimus' });
        const expected: string[] = [];
        const actual: string[] = [];
        const before = new Simulation(scenario, { checkInvariants: true, schedulingPolicy: recording(createOptimusFullScan({ tickS }), expected) }).run();
        const after = new Simulation(scenario, { checkInvariants: true, schedulingPolicy: recording(createOptimus({ tickS }), actual) }).run();
        expect(actual).toEqual(expected);
        expect(outcome(after)).toEqual(outcome(before));
        decisions += expected.filter((line) => !line.endsWith(' []')).length;
      }),
      { numRuns: 60 },
    );
    // The runs decide things (the property is not about empty passes).
    expect(decisions).toBeGreaterThan(120);
  });
});
