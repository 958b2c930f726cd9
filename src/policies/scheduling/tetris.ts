import type { OracleJobView, OracleSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { TetrisQueue } from './tetris-queue.js';

export { alignment } from './tetris-alignment.js';

/**
 * `tetris`: multi-resource packing with a shortest-remaining-work bias (REFERENCE §6), an oracle
 * baseline (remaining work = `oracleRemainingS`). Each round scores every (task, machine) pair that
 * fits as alignment - e x remainingS, where e makes the second term's mean over the round's pairs
 * equal the first's; the best pair (ties: earlier submission, then lower node index) is reserved
 * and the round repeats until nothing fits. A job with one replica is one task and Tetris picks its
 * machine itself. A gang (more than one replica, rigid or elastic at its requested size) is one task
 * too: the stack's placement policy decides where the gang would go, the gang is scored by its first
 * replica's alignment with the node that replica would start on, and if chosen the gang is placed by
 * the placement policy. Gang start, no preemption, no resizes. The queue is kept by class of
 * request from the queue's changes, so a round costs the pairs that fit (see TetrisQueue).
 */
export function createTetris(): OracleSchedulingPolicy {
  const queue = new TetrisQueue();
  return {
    name: 'tetris',
    oracle: true,
    schedule(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
      return queue.pass(context);
    },
  };
}
