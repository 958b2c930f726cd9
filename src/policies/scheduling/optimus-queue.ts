import { BTree, type BTreeOf } from '../../model/btree.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { JobRequest } from '../../model/job-spec.js';
import type { JobView, QueueChanges, SchedulingAction, SchedulingContext } from '../types.js';
import { ShapeQueue } from './shape-queue.js';

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
  private readonly positionOf = new Map<JobView, number>();
  private elasticSeeded = false;
  private rigidSeeded = false;

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
    const changes: QueueChanges = {
      queued: context.changes.queued.filter(isRigid),
      started: context.changes.started.filter(isRigid),
      stopped: context.changes.stopped.filter(isRigid),
      resized: context.changes.resized.filter(isRigid),
    };
    const rigidContext: SchedulingContext = {
      nowS: context.nowS,
      cluster: context.cluster,
      // Read by the shape queue at its first pass only.
      get queued() {
        return seeding ? context.queued.filter(isRigid) : [];
      },
      queuedInOrder: () => (seeding ? context.queued.filter(isRigid) : []),
      get running() {
        return context.running;
      },
      placement: context.placement,
      scratch: () => scratch,
      changes,
    };
    return this.rigid.backfill(rigidContext);
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
    const position = this.positionOf.get(job);
    if (position === undefined) return;
    this.positionOf.delete(job);
    if (this.elastic.get(position) === job) this.elastic.delete(position);
  }
}
