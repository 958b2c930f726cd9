import type { OracleJobView, OracleSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { TetrisQueue } from './tetris-queue.js';

export { alignment } from './tetris-alignment.js';

/**
 * How many machines a single-replica request is scored on per round, by default: a dlsim choice
 * (the Tetris paper gives no number: it scores the tasks that fit one machine, the one whose
 * resources became available, rather than a count of machines per task).
 */
export const TETRIS_CANDIDATE_MACHINES = 16;

/** Options of `tetris`. */
export interface TetrisOptions {
  /** Machines a single-replica request is scored on per round (default TETRIS_CANDIDATE_MACHINES). */
  readonly candidateMachines?: number;
}

/**
 * `tetris`: multi-resource packing with a shortest-remaining-work bias (REFERENCE §6), an oracle
 * baseline (remaining work = `oracleRemainingS`). Each round scores (task, machine) pairs as
 * alignment - e x remaining seconds, where e makes the second term's mean over the round's pairs
 * equal the first's, starts the best pair, and repeats until nothing fits. A job with one replica
 * is one task; a gang (more than one replica, rigid or elastic at its requested size) is one task
 * too, scored on the machine its first replica would start on as the stack's placement policy
 * places it, and started as that placement tried it. Gang start, no preemption, no resizes.
 *
 * Bounded candidates: as the Tetris paper (Grandl et al., SIGCOMM 2014) matches a machine whose
 * resources became available against the tasks that fit it, rather than every task against every
 * machine, a round scores a single replica only on its `candidateMachines` candidates: the machines
 * it fits with the most free GPU capacity, then free CPU, read from the cluster's fit index (the
 * machines where alignment, demand x free, runs highest). What the bound changes versus the full
 * scan of every fitting machine: a replica can start only on one of its candidates, so a machine
 * with less free GPU capacity but a better alignment (more free CPU and memory, or a smaller
 * capacity that makes its free share larger) is passed over when `candidateMachines` machines with
 * more free GPU fit; e is the mean over the pairs scored, not over every fitting pair; and a gang
 * keeps its trial placement through the pass until a start uses one of its machines. A round costs
 * the live request classes and the candidates of the classes its start touched, not queued jobs x
 * machines (see TetrisQueue for the exact rule).
 */
export function createTetris(options: TetrisOptions = {}): OracleSchedulingPolicy {
  const queue = new TetrisQueue(options.candidateMachines ?? TETRIS_CANDIDATE_MACHINES);
  return {
    name: 'tetris',
    oracle: true,
    schedule(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
      return queue.pass(context);
    },
  };
}
