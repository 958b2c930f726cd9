import type { CapacityScratch } from '../../model/capacity.js';
import { NO_ACTIONS, placementRequestOf, type JobView, type PlainSchedulingPolicy, type SchedulingAction, type SchedulingContext } from '../types.js';
import { ShapeQueue } from './shape-queue.js';

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
  return {
    name: 'fifo',
    schedule(context: SchedulingContext): readonly SchedulingAction[] {
      // Made at the first start: most passes start nothing or one job.
      let actions: SchedulingAction[] | null = null;
      // Made at the first queued job: a pass over an empty queue costs nothing.
      let scratch: CapacityScratch | null = null;
      for (const job of context.queuedInOrder()) {
        scratch ??= context.scratch();
        const request = placementRequestOf(job.request);
        const tasks = context.placement.place(scratch, request);
        if (tasks === null) {
          // Every job behind the head waits for it.
          context.why?.unplaced(job, scratch, request);
          context.why?.others('head-of-line', job);
          break;
        }
        const start: SchedulingAction = { kind: 'start', jobId: job.request.id, tasks };
        if (actions === null) actions = [start];
        else actions.push(start);
      }
      return actions ?? NO_ACTIONS;
    },
  };
}
