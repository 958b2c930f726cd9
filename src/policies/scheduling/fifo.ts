import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { JobRequest } from '../../model/job-spec.js';
import { NO_ACTIONS, placementRequestOf, type JobView, type PlacementRequest, type PlainSchedulingPolicy, type SchedulingAction, type SchedulingContext } from '../types.js';
import { fitsSomeGrown } from './grown-nodes.js';
import { identicalReplicas, ShapeQueue } from './shape-queue.js';

/** How `fifo` treats a job that does not fit. */
export interface FifoOptions {
  /**
   * False (strict FIFO): the first job that does not fit blocks every job behind it. True
   * (backfilling, the Alibaba PAI simulator's FIFO): it is skipped, and later jobs that fit start.
   */
  readonly backfill?: boolean;
}

/**
 * `fifo`: arrival order with gang start. Jobs start in submission order, each only with all its
 * replicas. Strict: the first job that does not fit blocks every job behind it (head-of-line
 * blocking). With `backfill`: greedy first fit in arrival order, skipping jobs that do not fit, so
 * small jobs pass a large head job (which may then wait for long: nothing is reserved for it).
 */
export function createFifo(options: FifoOptions = {}): PlainSchedulingPolicy {
  const backfill = options.backfill ?? false;
  if (backfill) {
    // Queue order: the queue kept by shape class, so a pass costs what it starts and tries.
    const queue = new ShapeQueue<JobView>((job, tie) => [job.queuePosition, tie]);
    return { name: 'fifo-backfill', schedule: (context) => queue.backfill(context) };
  }
  // The head that failed on the whole free capacity (the first try of a pass) and the cluster's
  // growth mark then: a gang of identical replicas under a placement complete for them fails again
  // until some node it could use gains capacity (see ShapeQueue), so its tries in between are
  // skipped. Its wait is still diagnosed at every pass.
  let blockedJob: JobView | null = null;
  let blockedRequest: JobRequest | null = null;
  let blockedMark = 0;
  /** The blocked head's placement request, used again at each pass it stays at the head (null: none). */
  let blockedPlacement: PlacementRequest | null = null;
  /** True when the job is the blocked head, asking for the same, and no node grown since could take one of its replicas. */
  const stillBlocked = (context: SchedulingContext, scratch: CapacityScratch, job: JobView): boolean => {
    if (job !== blockedJob || job.request !== blockedRequest) return false;
    const { cluster } = context;
    const mark = cluster.growthCount;
    if (mark !== blockedMark && fitsSomeGrown(cluster, scratch, cluster.grownNodesSince(blockedMark), job.request.gpuTypes, job.request.roles)) return false;
    blockedMark = mark;
    return true;
  };
  return {
    name: 'fifo',
    schedule(context: SchedulingContext): readonly SchedulingAction[] {
      // Made at the first start: most passes start nothing or one job.
      let actions: SchedulingAction[] | null = null;
      // Made at the first queued job: a pass over an empty queue costs nothing.
      let scratch: CapacityScratch | null = null;
      for (const job of context.queuedInOrder()) {
        scratch ??= context.scratch();
        const request = job === blockedJob && job.request === blockedRequest && blockedPlacement !== null ? blockedPlacement : placementRequestOf(job.request);
        // Only the pass's first try sees the whole free capacity (later ones see what the pass's starts left).
        const first: boolean = actions === null;
        const skipped: boolean = first && stillBlocked(context, scratch, job);
        const tasks: TaskPlacement[] | null = skipped ? null : context.placement.place(scratch, request);
        if (tasks === null) {
          if (first && !skipped) {
            const blocks = context.placement.completeForIdentical === true && identicalReplicas(job.request);
            blockedJob = blocks ? job : null;
            blockedRequest = blocks ? job.request : null;
            blockedPlacement = blocks ? request : null;
            blockedMark = context.cluster.growthCount;
          }
          // Every job behind the head waits for it.
          context.why?.unplaced(job, scratch, request);
          context.why?.others('head-of-line', job);
          break;
        }
        if (job === blockedJob) {
          blockedJob = blockedRequest = null;
          blockedPlacement = null;
        }
        const start: SchedulingAction = { kind: 'start', jobId: job.request.id, tasks, job };
        if (actions === null) actions = [start];
        else actions.push(start);
      }
      return actions ?? NO_ACTIONS;
    },
  };
}
