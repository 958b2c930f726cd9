import { placementRequestOf, type PlainSchedulingPolicy, type SchedulingAction, type SchedulingContext } from '../types.js';

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
  return {
    name: backfill ? 'fifo-backfill' : 'fifo',
    schedule(context: SchedulingContext): SchedulingAction[] {
      const actions: SchedulingAction[] = [];
      const scratch = context.scratch();
      for (const job of context.queued) {
        const tasks = context.placement.place(scratch, placementRequestOf(job.request));
        if (tasks === null) {
          if (backfill) continue;
          break;
        }
        actions.push({ kind: 'start', jobId: job.request.id, tasks });
      }
      return actions;
    },
  };
}
