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
  // The head that failed on the whole free capacity (the first try of a pass), its placement
  // request and the cluster's growth mark then: a gang of identical replicas under a placement
  // complete for them fails again until some node it could use gains capacity (see ShapeQueue), so
  // its tries in between are skipped. Its wait is still diagnosed at every pass.
  let blocked: { readonly job: JobView; readonly request: JobRequest; readonly placement: PlacementRequest; mark: number } | null = null;
  /** True when the job is the blocked head, asking for the same, and no node grown since could take one of its replicas. */
  const stillBlocked = (context: SchedulingContext, scratch: CapacityScratch, job: JobView): boolean => {
    if (blocked === null || job !== blocked.job || job.request !== blocked.request) return false;
    const { cluster } = context;
    const mark = cluster.growthCount;
    if (mark !== blocked.mark && fitsSomeGrown(cluster, scratch, cluster.grownNodesSince(blocked.mark), job.request.gpuTypes, job.request.roles)) return false;
    blocked.mark = mark;
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
        // Only the pass's first try sees the whole free capacity (later ones see what the pass's starts left).
        const first: boolean = actions === null;
        const skipped: boolean = first && stillBlocked(context, scratch, job);
        const request: PlacementRequest = skipped ? blocked!.placement : placementRequestOf(job.request);
        const tasks: TaskPlacement[] | null = skipped ? null : context.placement.place(scratch, request);
        if (tasks === null) {
          if (first && !skipped) {
            const blocks = context.placement.completeForIdentical === true && identicalReplicas(job.request);
            blocked = blocks ? { job, request: job.request, placement: request, mark: context.cluster.growthCount } : null;
          }
          // Every job behind the head waits for it.
          context.why?.unplaced(job, scratch, request);
          context.why?.others('head-of-line', job);
          break;
        }
        if (blocked?.job === job) blocked = null;
        const start: SchedulingAction = { kind: 'start', jobId: job.request.id, tasks, job };
        if (actions === null) actions = [start];
        else actions.push(start);
      }
      return actions ?? NO_ACTIONS;
    },
  };
}
