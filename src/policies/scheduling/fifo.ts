import { placementRequestOf, type PlainSchedulingPolicy, type SchedulingAction, type SchedulingContext } from '../types.js';

/**
 * `fifo`: strict arrival order with gang start. Jobs start in submission order, each only with all
 * its replicas; the first job that does not fit blocks every job behind it (head-of-line blocking).
 */
export function createFifo(): PlainSchedulingPolicy {
  return {
    name: 'fifo',
    schedule(context: SchedulingContext): SchedulingAction[] {
      const actions: SchedulingAction[] = [];
      const scratch = context.scratch();
      for (const job of context.queued) {
        const tasks = context.placement.place(scratch, placementRequestOf(job.request));
        if (tasks === null) break;
        actions.push({ kind: 'start', jobId: job.request.id, tasks });
      }
      return actions;
    },
  };
}
