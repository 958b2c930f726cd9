import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { nodeAllows } from '../../src/policies/placement/node-filter.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { createTetris } from '../../src/policies/scheduling/tetris.js';
import { placementRequestOf, type OracleJobView, type PlacementPolicy, type SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { tetrisBoundedReference } from './tetris-reference.js';
import { withoutViews } from '../helpers.js';
import { PassDriver, stepArbOf } from './pass-steps.js';

const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 1000, cpuMilli: 30_000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 4096 },
  { gpus: 4, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 },
];
const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 1024 };
/** Few durations, so that remaining-work terms (and whole scores) tie often. */
const DURATIONS_S = [100, 300, 900];

const jobArb = fc.record({
  demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }),
  replicas: fc.integer({ min: 1, max: 3 }),
  ps: fc.boolean(),
  duration: fc.integer({ min: 0, max: DURATIONS_S.length - 1 }),
  type: fc.constantFrom<string[]>([], ['A'], ['B']),
});
const stepArb = stepArbOf(jobArb);
/** A job drawn by jobArb. */
type TetrisDraw = typeof jobArb extends fc.Arbitrary<infer D> ? D : never;

function specFor(id: string, j: { demand: number; replicas: number; ps: boolean; duration: number; type: string[] }): JobSpec {
  const demand = DEMANDS[j.demand]!;
  const roles: JobSpec['roles'] = [{ role: 'worker', replicas: j.replicas, demand }, ...(j.ps && demand.gpus > 0 ? [{ role: 'ps' as const, replicas: 1, demand: PS }] : [])];
  return { id, kind: j.ps ? 'ps' : 'batch', submitS: 0, user: 'u', gpuTypes: j.type, roles, elastic: null, totalSteps: DURATIONS_S[j.duration]!, speed: { kind: 'fixed' }, source: `test:${id}` };
}

/**
 * A placement without the promise that a failed gang keeps failing while capacity shrinks: pack,
 * but only when the free whole GPUs are even (a gang it turns down may fit once another job starts).
 */
const parityPack: PlacementPolicy = {
  name: 'pack on even free GPUs',
  place: (scratch, request) => (scratch.freeWholeGpusTotal % 2 === 0 ? packPlacement.place(scratch, request) : null),
};

/** Queued single-replica jobs that fit more machines than the bound scores (the passes where the bound leaves some out). */
function fittingBeyond(context: SchedulingContext<OracleJobView>, bound: number): number {
  const scratch = context.scratch();
  let count = 0;
  for (const job of context.queued) {
    const replicas = placementRequestOf(job.request).replicas;
    if (replicas.length !== 1) continue;
    let fitting = 0;
    for (let i = 0; i < scratch.nodes.length; i++) if (nodeAllows(scratch.nodes[i]!, replicas[0]!.demand, job.request.gpuTypes) && scratch.fitCount(i, replicas[0]!.demand) >= 1) fitting++;
    if (fitting > bound) count++;
  }
  return count;
}

describe('tetris: a pass over bounded candidates of request classes', () => {
  for (const placement of [packPlacement, spreadPlacement, topologyPlacement, parityPack]) {
    it(`starts exactly the jobs, on the same tasks, a plain implementation of the bounded rule starts, pass after pass (${placement.name})`, () => {
      let started = 0;
      let passedOver = 0;
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 3 }), fc.array(stepArb, { minLength: 1, maxLength: 40 }), (nodeCount, bound, steps) => {
          const driver = new PassDriver(nodeCount, (j: TetrisDraw, id) => new JobRuntime(specFor(id, j), 1, { nowS: 0 }));
          const policy = createTetris({ candidateMachines: bound });
          for (const step of [...steps, { kind: 'pass' as const }]) {
            if (step.kind !== 'pass') driver.apply(step);
            const context = (): SchedulingContext<OracleJobView> => driver.context<OracleJobView>(placement);
            const expected = tetrisBoundedReference(context(), bound);
            const actual = policy.schedule(context());
            expect(withoutViews(actual)).toEqual(expected);
            passedOver += fittingBeyond(context(), bound);
            driver.startAll(actual);
            started += actual.filter((action) => action.kind === 'start').length;
          }
        }),
        { numRuns: 300 },
      );
      // The runs start many jobs (the property is not about empty passes), and the bound often leaves fitting machines out.
      expect(started).toBeGreaterThan(200);
      expect(passedOver).toBeGreaterThan(50);
    });
  }
});
