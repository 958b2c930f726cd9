import { BTree, type BTreeOf } from '../../model/btree.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { JobRequest } from '../../model/job-spec.js';
import type { JobView, QueueChanges, SchedulingAction, SchedulingContext } from '../types.js';
import { ShapeQueue } from './shape-queue.js';
import { ByArrival } from './by-arrival.js';

/**
 * True for the jobs Optimus sizes itself: elastic PS jobs with a worker and a PS role and no other
 * role (a chief would have to move with every start). Every other job is rigid to Optimus.
 */
export function isElasticPsJob(request: Pick<JobRequest, 'kind' | 'elastic' | 'roles'>): boolean {
  return (
    request.kind === 'ps' &&
    request.elastic !== null &&
    request.roles.some((r) => r.role === 'ps') &&
    request.roles.every((r) => r.role === 'worker' || r.role === 'ps')
  );
}

const isRigid = (job: JobView): boolean => !isElasticPsJob(job.request);

/**
 * Optimus's queue, kept up to date from the queue's changes instead of re-read at every pass: the
 * rigid jobs by shape class (a first-fit pass in submission order, as `fifo-backfill` walks it,
 * costs what it starts and tries), the elastic PS jobs in submission order.
 */
export class OptimusQueue {
  private readonly rigid = new ShapeQueue<JobView>((job, tie) => [job.queuePosition, tie]);
  /** Queued elastic PS jobs by queue position. */
  private readonly elastic: BTreeOf<number, JobView> = new BTree<number, JobView>();
  /** Each queued elastic job's key in `elastic`. */
  private readonly positionOf = new ByArrival<number>();
  private elasticSeeded = false;
  private rigidSeeded = false;
  /** The pass's changes of rigid jobs: lists filled again at every pass (filtering made four arrays a pass). */
  private readonly rigidChanges = { queued: [] as JobView[], started: [] as JobView[], stopped: [] as JobView[], resized: [] as JobView[] };

  /** Takes in the pass's changes (the whole queue at the first pass). */
  sync(context: SchedulingContext): void {
    if (!this.elasticSeeded) {
      for (const job of context.queued) if (!isRigid(job)) this.addElastic(job);
      this.elasticSeeded = true;
    }
    for (const list of [context.changes.queued, context.changes.started, context.changes.stopped, context.changes.resized]) {
      for (const job of list) {
        if (isRigid(job)) continue;
        this.removeElastic(job);
        if (job.phase === 'queued') this.addElastic(job);
      }
    }
  }

  /**
   * Starts rigid jobs at their requested shape where they fit `scratch`, in submission order
   * without blocking, reserving them in `scratch` (call after `sync`).
   */
  startRigid(context: SchedulingContext, scratch: CapacityScratch): readonly SchedulingAction[] {
    const seeding = !this.rigidSeeded;
    this.rigidSeeded = true;
    const changes = this.rigidChanges;
    rigidOf(context.changes.queued, changes.queued);
    rigidOf(context.changes.started, changes.started);
    rigidOf(context.changes.stopped, changes.stopped);
    rigidOf(context.changes.resized, changes.resized);
    return this.rigid.backfill(new RigidContext(context, seeding, scratch, changes));
  }

  /** Queued elastic PS jobs, in submission order. */
  queuedElastic(): JobView[] {
    return this.elastic.valuesArray();
  }

  /** True when elastic PS jobs wait. */
  get hasQueuedElastic(): boolean {
    return this.elastic.size > 0;
  }

  private addElastic(job: JobView): void {
    this.elastic.set(job.queuePosition, job);
    this.positionOf.set(job, job.queuePosition);
  }

  private removeElastic(job: JobView): void {
    const position = this.positionOf.take(job);
    if (position === undefined) return;
    if (this.elastic.get(position) === job) this.elastic.delete(position);
  }
}

/** Sets `out` to the rigid jobs of `jobs`, in order. */
function rigidOf(jobs: readonly JobView[], out: JobView[]): void {
  out.length = 0;
  for (let k = 0; k < jobs.length; k++) if (isRigid(jobs[k]!)) out.push(jobs[k]!);
}

/** A pass's context as the rigid jobs' shape queue sees it: their changes, and the scratch the pass plans in. */
class RigidContext implements SchedulingContext {
  constructor(
    private readonly outer: SchedulingContext,
    private readonly seeding: boolean,
    private readonly planIn: CapacityScratch,
    readonly changes: QueueChanges,
  ) {}

  get nowS(): number {
    return this.outer.nowS;
  }

  get cluster(): SchedulingContext['cluster'] {
    return this.outer.cluster;
  }

  // Read by the shape queue at its first pass only.
  get queued(): readonly JobView[] {
    return this.seeding ? this.outer.queued.filter(isRigid) : [];
  }

  queuedInOrder(): Iterable<JobView> {
    return this.seeding ? this.outer.queued.filter(isRigid) : [];
  }

  get running(): readonly JobView[] {
    return this.outer.running;
  }

  get placement(): SchedulingContext['placement'] {
    return this.outer.placement;
  }

  scratch(): CapacityScratch {
    return this.planIn;
  }
}
