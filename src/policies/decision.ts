import type { AuxTask, TaskPlacement } from '../model/allocation.js';
import type { Role } from '../model/job-spec.js';

/**
 * How a reshape interrupts training: not at all (replicas join or leave a running job, as DLRover
 * adds workers to a PS job), a restart of the processes, or a checkpoint saved, the processes
 * restarted on the new shape and the checkpoint loaded (DLRover's PS migration, REFERENCE §2).
 */
export type ReshapePause = 'none' | 'restart' | 'checkpoint-restore';

/**
 * One decision a policy returns; the simulation validates and applies it. In one batch it applies
 * preemptions first, then every removal (resizes, reshapes, detaches), then every addition, then
 * starts, so a plan may reuse what it frees. A batch names each job at most once.
 */
export type Decision =
  /**
   * Start a queued job on these tasks: its requested replicas, or for an elastic job any allowed
   * count. `job`: the view of it the policy was given, when at hand (the simulation then finds the
   * job without looking its id up; a view of another job is a policy bug).
   */
  | { readonly kind: 'start'; readonly jobId: string; readonly tasks: readonly TaskPlacement[]; readonly job?: object }
  /** Change a running job's tasks at its roles' demands (tasks to remove are ones it holds); training pauses `resizePause`. */
  | {
      readonly kind: 'resize';
      readonly jobId: string;
      readonly add: readonly TaskPlacement[];
      readonly remove: readonly TaskPlacement[];
      /** Why, in words (an auto-scaler's plan records it). */
      readonly reason?: string;
    }
  /**
   * Stop a running job and put it back in the queue; it keeps its progress (checkpoint on
   * preemption), unless `reclaim`: then it is stopped without a save (a spot job's capacity taken
   * back) and loses the work since its last checkpoint.
   */
  | { readonly kind: 'preempt'; readonly jobId: string; readonly reclaim?: boolean }
  /**
   * Change one role of a running job: replicas removed and added, the added ones with any demand
   * within the spec's bounds (e.g. a PS with twice the CPU replacing one); training pauses as `pause` says.
   */
  | {
      readonly kind: 'reshape-role';
      readonly jobId: string;
      readonly role: Role;
      readonly add: readonly TaskPlacement[];
      readonly remove: readonly TaskPlacement[];
      readonly pause: ReshapePause;
      /** Why, in words (an auto-scaler's plan records it). */
      readonly reason?: string;
    }
  /** Give a running job auxiliary tasks (CPU/memory only, preemptible) on idle capacity of any node. */
  | { readonly kind: 'attach'; readonly jobId: string; readonly tasks: readonly AuxTask[] }
  /** Take auxiliary tasks back from a job. */
  | { readonly kind: 'detach'; readonly jobId: string; readonly tasks: readonly AuxTask[] };

/** True when a decision replaces a job's parameter servers by as many new ones (a migration: they take over the old ones' ranks). */
export function isPsMigration(decision: Decision): boolean {
  return decision.kind === 'reshape-role' && decision.role === 'ps' && decision.add.length > 0 && decision.add.length === decision.remove.length;
}
