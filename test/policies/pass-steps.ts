import fc from 'fast-check';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobRequest, ReplicaDemand } from '../../src/model/job-spec.js';
import type { JobPhase, JobView, PlacementPolicy, SchedulingAction, SchedulingContext } from '../../src/policies/types.js';

// Queued jobs, clusters and the steps between passes that the queue tests of scheduling policies draw.

/** The part of a job view a backfilling pass reads. */
export interface FakeJob {
  request: JobRequest;
  phase: JobPhase;
  queuePosition: number;
  arrivalIndex: number;
  /** The policy's own order (SJF's remaining time, here any number). */
  rank: number;
}

export const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 1000, cpuMilli: 30_000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 4, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 },
];
export const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 1024 };

export const jobArb = fc.record({ demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }), replicas: fc.integer({ min: 1, max: 3 }), ps: fc.boolean(), rank: fc.integer({ min: 0, max: 5 }), type: fc.constantFrom<string[]>([], ['A'], ['B']) });
/** Steps of a run whose arriving jobs are drawn by `job`: jobs arrive, some running jobs end, a node goes down or comes back, a running job is requeued. */
export function stepArbOf<A>(job: fc.Arbitrary<A>) {
  return fc.oneof(
    fc.record({ kind: fc.constant('arrive' as const), jobs: fc.array(job, { minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant('end' as const), pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('node' as const), node: fc.nat(), up: fc.boolean() }),
    fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat() }),
  );
}

/** Steps whose jobs are drawn by jobArb. */
export const stepArb = stepArbOf(jobArb);

export function nodes(count: number): NodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ name: `n${i}`, group: 'g', gpuType: i % 3 === 2 ? 'B' : 'A', gpus: i % 4 === 3 ? 0 : 4, cpuMilli: 32_000, memMiB: 65_536, rack: `r${i % 2}` }));
}

export function requestFor(id: string, j: { demand: number; replicas: number; ps: boolean; type: string[] }): JobRequest {
  const demand = DEMANDS[j.demand]!;
  const roles: { role: 'worker' | 'ps'; replicas: number; demand: ReplicaDemand }[] = [{ role: 'worker', replicas: j.replicas, demand }];
  if (j.ps && demand.gpus > 0) roles.push({ role: 'ps' as const, replicas: 1, demand: PS });
  return { id, kind: j.ps ? 'ps' : 'batch', submitS: 0, user: 'u', gpuTypes: j.type, roles, elastic: null, declaredSteps: null, targetLoss: null } as unknown as JobRequest;
}

/** A step whose arriving jobs are drawn as `A`. */
export type PassStep<A> = { kind: 'arrive'; jobs: A[] } | { kind: 'end'; pick: number[] } | { kind: 'node'; node: number; up: boolean } | { kind: 'requeue'; pick: number };

/** What a pass driver needs of a job. */
export interface DrivenJob {
  readonly request: JobRequest;
  phase: JobPhase;
  queuePosition: number;
  /** Its place in submission order (set by the driver). */
  arrivalIndex: number;
}

/**
 * A queue, a running list and a cluster that steps change, and the context of a pass over them
 * (the queue in position order). `make` turns a drawn job into a queued job with that id.
 */
export class PassDriver<J extends DrivenJob = FakeJob, A = JobDraw> {
  readonly cluster: ClusterState;
  readonly queued: J[] = [];
  readonly running: J[] = [];
  private changes = { queued: [] as J[], started: [] as J[], stopped: [] as J[], resized: [] as J[] };
  private position = 0;
  private id = 0;

  constructor(
    private readonly nodeCount: number,
    private readonly make: (drawn: A, id: string) => J = fakeJob as unknown as (drawn: A, id: string) => J,
  ) {
    this.cluster = new ClusterState({ nodes: nodes(nodeCount) });
  }

  /** Applies one step. */
  apply(step: PassStep<A>): void {
    const { cluster, queued, running, changes } = this;
    if (step.kind === 'arrive') {
      for (const j of step.jobs) {
        const job = this.make(j, `j${this.id}`);
        job.arrivalIndex = this.id++;
        job.phase = 'queued';
        job.queuePosition = ++this.position;
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
      job!.queuePosition = ++this.position;
      queued.push(job!);
      changes.stopped.push(job!);
      changes.queued.push(job!);
    } else if (step.kind === 'node') {
      cluster.setNodeHealth(step.node % this.nodeCount, step.up ? 'up' : 'cordoned');
    }
  }

  /** The context of a pass now, with the changes since the last pass (jobs seen as `V`). */
  context<V extends JobView = J & JobView>(placement: PlacementPolicy): SchedulingContext<V> {
    const { cluster, queued, running } = this;
    const views = queued as unknown as V[];
    return {
      nowS: 0,
      cluster,
      queued: views,
      queuedInOrder: () => views,
      running: running as unknown as V[],
      placement,
      scratch: () => new CapacityScratch(cluster),
      changes: this.changes as unknown as SchedulingContext<V>['changes'],
    };
  }

  /** Applies a pass's starts to the cluster and lists; the changes start afresh. */
  startAll(actions: readonly SchedulingAction[]): void {
    const { cluster, queued, running } = this;
    this.changes = { queued: [], started: [], stopped: [], resized: [] };
    for (const action of actions) {
      if (action.kind !== 'start') continue;
      const at = queued.findIndex((j) => j.request.id === action.jobId);
      const [job] = queued.splice(at, 1);
      cluster.allocate(job!.request.id, action.tasks);
      job!.phase = 'running';
      running.push(job!);
      this.changes.started.push(job!);
    }
  }
}

/** A job drawn by jobArb. */
export type JobDraw = typeof jobArb extends fc.Arbitrary<infer D> ? D : never;

/** A queued fake job of a drawn job (phase and place set by the driver). */
function fakeJob(j: JobDraw, id: string): FakeJob {
  return { request: requestFor(id, j), phase: 'queued', queuePosition: 0, arrivalIndex: -1, rank: j.rank };
}
