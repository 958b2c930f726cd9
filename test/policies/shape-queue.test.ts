import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobRequest, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { EMPTY_CLASSES_KEPT, ShapeQueue } from '../../src/policies/scheduling/shape-queue.js';
import { placementRequestOf, type JobPhase, type JobView, type PlacementPolicy, type SchedulingAction, type SchedulingContext } from '../../src/policies/types.js';

/** The part of a job view a backfilling pass reads. */
interface FakeJob {
  request: JobRequest;
  phase: JobPhase;
  queuePosition: number;
  /** The policy's own order (SJF's remaining time, here any number). */
  rank: number;
}

/** The pass every backfilling policy used to run: sort the whole queue, try every job in order. */
function walkWholeQueue(queued: readonly FakeJob[], placement: PlacementPolicy, scratch: CapacityScratch): SchedulingAction[] {
  const order = [...queued].sort((a, b) => a.rank - b.rank || a.queuePosition - b.queuePosition);
  const actions: SchedulingAction[] = [];
  for (const job of order) {
    const tasks = placement.place(scratch, placementRequestOf(job.request));
    if (tasks !== null) actions.push({ kind: 'start', jobId: job.request.id, tasks });
  }
  return actions;
}

const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 1000, cpuMilli: 30_000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 4, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 },
];
const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 1024 };

const jobArb = fc.record({ demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }), replicas: fc.integer({ min: 1, max: 3 }), ps: fc.boolean(), rank: fc.integer({ min: 0, max: 5 }), type: fc.constantFrom<string[]>([], ['A'], ['B']) });
/** A step of the run: jobs arrive, a pass runs, some running jobs end, or a node goes down or comes back. */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), jobs: fc.array(jobArb, { minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('end' as const), pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('node' as const), node: fc.nat(), up: fc.boolean() }),
  fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat() }),
);

function nodes(count: number): NodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ name: `n${i}`, group: 'g', gpuType: i % 3 === 2 ? 'B' : 'A', gpus: i % 4 === 3 ? 0 : 4, cpuMilli: 32_000, memMiB: 65_536, rack: `r${i % 2}` }));
}

function requestFor(id: string, j: { demand: number; replicas: number; ps: boolean; type: string[] }): JobRequest {
  const demand = DEMANDS[j.demand]!;
  const roles: { role: 'worker' | 'ps'; replicas: number; demand: ReplicaDemand }[] = [{ role: 'worker', replicas: j.replicas, demand }];
  if (j.ps && demand.gpus > 0) roles.push({ role: 'ps' as const, replicas: 1, demand: PS });
  return { id, kind: j.ps ? 'ps' : 'batch', submitS: 0, user: 'u', gpuTypes: j.type, roles, elastic: null, declaredSteps: null, targetLoss: null } as unknown as JobRequest;
}

describe('ShapeQueue: a backfilling pass over shape classes', () => {
  for (const placement of [packPlacement, spreadPlacement, topologyPlacement]) {
    it(`starts exactly the jobs a walk over the whole sorted queue starts, pass after pass (${placement.name})`, () => {
      fc.assert(
        // Classes emptied are kept for their next job: none, a few (evicted often), or the default bound.
        fc.property(fc.integer({ min: 1, max: 8 }), fc.array(stepArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(0, 1, 3, EMPTY_CLASSES_KEPT), (nodeCount, steps, kept) => {
          const cluster = new ClusterState({ nodes: nodes(nodeCount) });
          const queue = new ShapeQueue<FakeJob & JobView>((job, tie) => [job.rank, job.queuePosition, tie], kept);
          const queued: FakeJob[] = [];
          const running: FakeJob[] = [];
          let changes = { queued: [] as FakeJob[], started: [] as FakeJob[], stopped: [] as FakeJob[], resized: [] as FakeJob[] };
          let position = 0;
          let id = 0;
          for (const step of [...steps, { kind: 'pass' as const }]) {
            if (step.kind === 'arrive') {
              for (const j of step.jobs) {
                const job: FakeJob = { request: requestFor(`j${id++}`, j), phase: 'queued', queuePosition: ++position, rank: j.rank };
                queued.push(job);
                changes.queued.push(job);
              }
            } else if (step.kind === 'end') {
              for (const p of step.pick) {
                if (running.length === 0) break;
                const [job] = running.splice(p % running.length, 1);
                cluster.release(job!.request.id);
                job!.phase = 'completed';
                changes.stopped.push(job!);
              }
            } else if (step.kind === 'requeue' && running.length > 0) {
              // A preempted job goes back to the queue with a new place.
              const [job] = running.splice(step.pick % running.length, 1);
              cluster.release(job!.request.id);
              job!.phase = 'queued';
              job!.queuePosition = ++position;
              queued.push(job!);
              changes.stopped.push(job!);
              changes.queued.push(job!);
            } else if (step.kind === 'node') {
              const i = step.node % nodeCount;
              cluster.setNodeHealth(i, step.up ? 'up' : 'cordoned');
            }
            // A pass after every step: both ways must start the same jobs on the same tasks.
            const expected = walkWholeQueue(queued, placement, new CapacityScratch(cluster));
            const context = {
              nowS: 0,
              cluster,
              queued: queued as unknown as (FakeJob & JobView)[],
              queuedInOrder: () => queued as unknown as (FakeJob & JobView)[],
              running: running as unknown as (FakeJob & JobView)[],
              placement,
              scratch: () => new CapacityScratch(cluster),
              changes: changes as unknown as SchedulingContext<FakeJob & JobView>['changes'],
            } satisfies SchedulingContext<FakeJob & JobView>;
            const actual = queue.backfill(context);
            expect(actual).toEqual(expected);
            changes = { queued: [], started: [], stopped: [], resized: [] };
            for (const action of actual) {
              if (action.kind !== 'start') continue;
              const at = queued.findIndex((j) => j.request.id === action.jobId);
              const [job] = queued.splice(at, 1);
              cluster.allocate(job!.request.id, action.tasks);
              job!.phase = 'running';
              running.push(job!);
              changes.started.push(job!);
            }
          }
        }),
        { numRuns: 250 },
      );
    });
  }
});
