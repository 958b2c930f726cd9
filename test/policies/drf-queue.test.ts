import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobRequest, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { createDrf } from '../../src/policies/scheduling/drf.js';
import { createDrfDynamic } from '../../src/policies/scheduling/drf-dynamic.js';
import type { JobPhase, JobView, PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../../src/policies/types.js';
import { referenceDrf, referenceDrfDynamic } from './drf-reference.js';
import { withoutViews } from '../helpers.js';

/** The part of a job view the DRF schedulers read. */
interface FakeJob {
  request: JobRequest;
  phase: JobPhase;
  queuePosition: number;
  arrivalIndex: number;
  paused: boolean;
  workers: number;
  ps: number;
}

const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 1000, cpuMilli: 30_000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 12_000, memMiB: 1024 },
];
const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 1024 };
const INTERVAL_S = 10;

const jobArb = fc.record({
  demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }),
  replicas: fc.integer({ min: 1, max: 3 }),
  ps: fc.boolean(),
  elastic: fc.boolean(),
  // '' is a job of its own (job-level DRF).
  user: fc.constantFrom('', 'u0', 'u1', 'u2'),
  // Few submission times, so ties go to the id.
  submitS: fc.integer({ min: 0, max: 3 }),
  type: fc.constantFrom<string[]>([], ['A'], ['B']),
});
/** A step of the run: jobs arrive, running jobs end or are preempted, a node goes down or comes back, a job pauses, time passes. */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), jobs: fc.array(jobArb, { minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('end' as const), pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('node' as const), node: fc.nat(), up: fc.boolean() }),
  fc.record({ kind: fc.constant('pause' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('wait' as const), seconds: fc.integer({ min: 1, max: 12 }) }),
);

function nodes(count: number): NodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ name: `n${i}`, group: 'g', gpuType: i % 3 === 2 ? 'B' : 'A', gpus: i % 4 === 3 ? 0 : 4, cpuMilli: 32_000, memMiB: 65_536, rack: `r${i % 2}` }));
}

/** Role lists and elastic bounds by their values: as in a generated trace, jobs of one shape share one list (and one bounds object), with other GPU models or bounds. */
const SHARED_ROLES = new Map<string, JobRequest['roles']>();
const SHARED_ELASTIC = new Map<number, JobRequest['elastic']>();

function requestFor(id: string, j: { demand: number; replicas: number; ps: boolean; elastic: boolean; user: string; submitS: number; type: string[] }): JobRequest {
  const demand = DEMANDS[j.demand]!;
  const ps = j.ps && demand.gpus > 0;
  const rolesKey = `${j.demand}|${j.replicas}|${ps}`;
  let roles = SHARED_ROLES.get(rolesKey);
  if (roles === undefined) {
    const list: { role: 'worker' | 'ps'; replicas: number; demand: ReplicaDemand }[] = [{ role: 'worker', replicas: j.replicas, demand }];
    if (ps) list.push({ role: 'ps', replicas: 1, demand: PS });
    SHARED_ROLES.set(rolesKey, (roles = list));
  }
  let elastic: JobRequest['elastic'] = null;
  if (j.elastic) {
    elastic = SHARED_ELASTIC.get(j.replicas) ?? null;
    if (elastic === null) SHARED_ELASTIC.set(j.replicas, (elastic = { minReplicas: 1, maxReplicas: j.replicas + 2, unit: 1 } as JobRequest['elastic']));
  }
  return { id, kind: ps ? 'ps' : 'batch', submitS: j.submitS, user: j.user, gpuTypes: j.type, roles, elastic, declaredSteps: null, targetLoss: null } as unknown as JobRequest;
}

/** Runs the random steps with a pass after each, applying `reference`'s decisions; `actual` must decide the same at every pass. */
function holdsEqual(placementName: string, make: () => [PlainSchedulingPolicy, PlainSchedulingPolicy]): void {
  const placement = [packPlacement, spreadPlacement, topologyPlacement].find((p) => p.name === placementName)!;
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 7 }), fc.array(stepArb, { minLength: 1, maxLength: 40 }), (nodeCount, steps) => {
      const cluster = new ClusterState({ nodes: nodes(nodeCount) });
      const [reference, actual] = make();
      const queued: FakeJob[] = [];
      const running: FakeJob[] = [];
      let changes = { queued: [] as FakeJob[], started: [] as FakeJob[], stopped: [] as FakeJob[], resized: [] as FakeJob[] };
      let position = 0;
      let id = 0;
      let nowS = 0;
      const stop = (pick: number): FakeJob | null => {
        if (running.length === 0) return null;
        const [job] = running.splice(pick % running.length, 1);
        cluster.release(job!.request.id);
        job!.workers = 0;
        job!.ps = 0;
        job!.paused = false;
        changes.stopped.push(job!);
        return job!;
      };
      for (const step of [...steps, { kind: 'wait' as const, seconds: INTERVAL_S }]) {
        if (step.kind === 'arrive') {
          for (const j of step.jobs) {
            const job: FakeJob = { request: requestFor(`j${id}`, j), phase: 'queued', queuePosition: ++position, arrivalIndex: id++, paused: false, workers: 0, ps: 0 };
            queued.push(job);
            changes.queued.push(job);
          }
        } else if (step.kind === 'end') {
          for (const p of step.pick) {
            const job = stop(p);
            if (job !== null) job.phase = 'completed';
          }
        } else if (step.kind === 'requeue') {
          const job = stop(step.pick);
          if (job !== null) {
            job.phase = 'queued';
            job.queuePosition = ++position;
            queued.push(job);
            changes.queued.push(job);
          }
        } else if (step.kind === 'node') {
          cluster.setNodeHealth(step.node % nodeCount, step.up ? 'up' : 'cordoned');
        } else if (step.kind === 'pause') {
          if (running.length > 0) {
            const job = running[step.pick % running.length]!;
            job.paused = !job.paused;
          }
        } else {
          nowS += step.seconds;
        }
        const context = {
          nowS,
          cluster,
          queued: queued as unknown as JobView[],
          queuedInOrder: () => queued as unknown as JobView[],
          running: running as unknown as JobView[],
          placement,
          scratch: () => new CapacityScratch(cluster),
          changes: changes as unknown as SchedulingContext['changes'],
        } satisfies SchedulingContext;
        const expected = reference.schedule(context);
        const decided = actual.schedule(context);
        // Each start names the queued job's own view.
        for (const d of decided) if (d.kind === 'start') expect(d.job).toBe(queued.find((j) => j.request.id === d.jobId));
        expect(withoutViews(decided)).toEqual(expected);
        changes = { queued: [], started: [], stopped: [], resized: [] };
        apply(expected);
      }

      /** As the simulator applies a batch: every removal, then every addition, then the starts. */
      function apply(actions: readonly SchedulingAction[]): void {
        for (const action of actions) {
          if (action.kind === 'resize' && action.remove.length > 0) cluster.releaseTasks(action.jobId, action.remove);
          else if (action.kind !== 'resize' && action.kind !== 'start') throw new Error(`unexpected ${action.kind}`);
        }
        for (const action of actions) {
          if (action.kind !== 'resize') continue;
          const job = running.find((j) => j.request.id === action.jobId)!;
          if (action.add.length > 0) cluster.allocate(job.request.id, action.add);
          count(job);
          job.paused = true;
          changes.resized.push(job);
        }
        for (const action of actions) {
          if (action.kind !== 'start') continue;
          const at = queued.findIndex((j) => j.request.id === action.jobId);
          const [job] = queued.splice(at, 1);
          cluster.allocate(job!.request.id, action.tasks);
          job!.phase = 'running';
          count(job!);
          running.push(job!);
          changes.started.push(job!);
        }
      }

      function count(job: FakeJob): void {
        const tasks: readonly TaskPlacement[] = cluster.tasksOf(job.request.id) ?? [];
        job.workers = tasks.filter((t) => t.role === 'worker').length;
        job.ps = tasks.filter((t) => t.role === 'ps').length;
      }
    }),
    { numRuns: 200 },
  );
}

const WEIGHTS = { u0: 2, u2: 0.5 };

describe('DrfQueue: DRF kept from the changes', () => {
  for (const placement of ['pack', 'spread', 'topology']) {
    it(`drf starts exactly what a fill over the whole queue starts, pass after pass (${placement})`, () => {
      holdsEqual(placement, () => [referenceDrf(WEIGHTS), createDrf({ userWeights: WEIGHTS })]);
    });

    it(`drf-dynamic re-plans and admits exactly as a fill over the whole queue and running list does (${placement})`, () => {
      holdsEqual(placement, () => [referenceDrfDynamic(INTERVAL_S, WEIGHTS), createDrfDynamic({ userWeights: WEIGHTS, intervalS: INTERVAL_S })]);
    });
  }
});
