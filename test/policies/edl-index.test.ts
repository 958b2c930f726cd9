import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { createEdl, type EdlOptions } from '../../src/policies/scheduling/edl.js';
import type { PlainSchedulingPolicy } from '../../src/policies/types.js';
import { Simulation } from '../../src/sim/simulation.js';
import { gpuDemand, scenarioOf } from '../helpers.js';
import { createEdl as createReferenceEdl } from './edl-reference.js';

const jobArb = fc.record({
  submitS: fc.integer({ min: 0, max: 3000 }),
  gpus: fc.constantFrom(1, 2, 4, 8),
  min: fc.integer({ min: 1, max: 3 }),
  extra: fc.integer({ min: 0, max: 6 }),
  unit: fc.constantFrom(1, 2),
  elastic: fc.boolean(),
  steps: fc.integer({ min: 50, max: 3000 }),
});
const runArb = fc.record({
  nodes: fc.array(fc.constantFrom(4, 8), { minLength: 1, maxLength: 4 }),
  jobs: fc.array(jobArb, { minLength: 1, maxLength: 25 }),
  maxLoad: fc.constantFrom(0.97, 0.75, 1),
  tickS: fc.constantFrom(30, 11),
});

function jobOf(k: number, j: { submitS: number; gpus: number; min: number; extra: number; unit: number; elastic: boolean; steps: number }): JobSpec {
  // Worker counts must be multiples of the unit.
  const min = j.min * j.unit;
  const max = min + j.extra * j.unit;
  return {
    id: `j${k}`,
    kind: 'allreduce',
    submitS: j.submitS,
    user: '',
    gpuTypes: [],
    roles: [{ role: 'worker', replicas: j.elastic ? max : min, demand: gpuDemand(j.gpus) }],
    elastic: j.elastic && j.extra > 0 ? { minReplicas: min, maxReplicas: max, unit: j.unit } : null,
    totalSteps: j.steps,
    speed: { kind: 'allreduce', computeS: 1, commS: 0.1 },
    source: `test:j${k}`,
  };
}

function clusterOf(gpus: readonly number[]): ClusterSpec {
  return { nodes: gpus.map((g, k) => ({ name: `n${k}`, group: 'g', gpuType: 'A100', gpus: g, cpuMilli: 96_000, memMiB: 1024 * 1024, rack: 'r0' })) };
}

/** Runs the jobs under a policy and logs every decision with its placements. */
function decisions(policy: PlainSchedulingPolicy, cluster: ClusterSpec, jobs: JobSpec[]): string[] {
  const log: string[] = [];
  const where = (tasks: readonly TaskPlacement[]): string => tasks.map((t) => `${t.role}@${t.nodeIndex}:${t.gpuIndices.join('+')}`).join(',');
  const logged: PlainSchedulingPolicy = {
    name: policy.name,
    ...(policy.tickS === undefined ? {} : { tickS: policy.tickS }),
    ...(policy.smallestStart === undefined ? {} : { smallestStart: policy.smallestStart }),
    schedule(context) {
      const actions = policy.schedule(context);
      for (const a of actions) {
        const detail = a.kind === 'start' ? where(a.tasks) : a.kind === 'resize' ? `+${where(a.add)} -${where(a.remove)}` : '';
        log.push(`${context.nowS} ${a.kind} ${a.jobId} ${detail}`);
      }
      return actions;
    },
  };
  new Simulation(scenarioOf(cluster, jobs, { horizonS: 50_000 }), { schedulingPolicy: logged }).run();
  return log;
}

describe('edl walks', () => {
  it('decide exactly what walking the whole queue and every elastic job at every round decides', () => {
    let resizes = 0;
    let runs = 0;
    fc.assert(
      fc.property(runArb, (run) => {
        const cluster = clusterOf(run.nodes);
        const jobs = run.jobs.map((j, k) => jobOf(k, j));
        const options: EdlOptions = { maxLoad: run.maxLoad, tickS: run.tickS };
        const expected = decisions(createReferenceEdl(options), cluster, jobs);
        const actual = decisions(createEdl(options), cluster, jobs);
        expect(actual).toEqual(expected);
        resizes += expected.filter((line) => line.includes(' resize ')).length;
        runs++;
      }),
      { numRuns: 120, seed: 20_261_123 },
    );
    // The runs exercised resizes, not only starts.
    expect(resizes).toBeGreaterThan(runs);
  });
});
