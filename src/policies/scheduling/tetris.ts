import type { OracleJobView, OracleSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { TetrisQueue } from './tetris-queue.js';

export { alignment } from './tetris-alignment.js';

/**
 * How many machines of each GPU group a single-replica request is scored on per round, by default:
 * a dlsim choice. The Tetris paper gives no such number: it matches one machine at a time (the one
 * whose resources became available) against the tasks that fit it. On 50,000 and 200,000 replayed
 * PAI jobs (as `scaling/tetris` builds them) bounds of 1, 2, 4 and 8 give mean JCTs within 0.01% of
 * the full scan's and cost about the same; 4 leaves each group a few machines to choose among.
 */
export const TETRIS_CANDIDATE_MACHINES = 4;

/** Options of `tetris`. */
export interface TetrisOptions {
  /** Machines of each GPU group a single-replica request is scored on per round (default TETRIS_CANDIDATE_MACHINES). */
  readonly candidateMachines?: number;
}

/**
 * `tetris`: multi-resource packing with a shortest-remaining-work bias (REFERENCE §6), an oracle
 * baseline (remaining work = `oracleRemainingS`). Each round scores (task, machine) pairs as
 * alignment - e x remaining seconds, where e makes the second term's mean over the round's pairs
 * equal the first's, starts the best pair, and repeats until nothing fits. A job with one replica
 * is one task; a gang (more than one replica, rigid or elastic at its requested size) is one task
 * too, scored on the machine its first replica lands on in a trial of the stack's placement policy
 * and started as tried. Gang start, no preemption, no resizes.
 *
 * Bounded candidates: as the Tetris paper (Grandl et al., SIGCOMM 2014) matches a machine whose
 * resources became available against the tasks that fit it, instead of every task against every
 * machine, a round scores a single replica only on its candidates: in each GPU group it may use
 * (a GPU model; machines without GPUs form one), the `candidateMachines` machines it fits with the
 * most free GPU capacity, then free CPU, read from the cluster's fit index. What the bound changes
 * versus the full scan of every fitting machine:
 * - a replica starts only on one of its candidates: a machine of the group with less free GPU
 *   capacity but a better alignment (more free CPU and memory for its share) is passed over while
 *   `candidateMachines` machines of the group above it fit the replica;
 * - e is the mean over the pairs scored, not over every fitting pair, and the round's sums run
 *   class by class (remaining work in whole milliseconds), so scores can differ in the last bits;
 * - a class's pick is its job with the least remaining work on its best-aligned candidate (the
 *   same pair as the best of all its pairs, up to rounding);
 * - a gang is tried once when it enters the pass and keeps that trial while it fits; after a start
 *   takes capacity it needs, its score stays the trial's last one and it is placed anew when
 *   picked (the full scan tried every gang again every round).
 * A round costs the live request classes plus the updates of the classes whose candidates the
 * last start used, not queued jobs x machines (see TetrisQueue for the exact rule).
 */
export function createTetris(options: TetrisOptions = {}): OracleSchedulingPolicy {
  const queue = new TetrisQueue(options.candidateMachines ?? TETRIS_CANDIDATE_MACHINES);
  return {
    name: 'tetris',
    oracle: true,
    // Its candidate machines are the best few of each GPU model.
    machinesByGpuModel: true,
    schedule(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
      return queue.pass(context);
    },
  };
}
