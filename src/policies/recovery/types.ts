import type { FaultType } from '../../faults/catalog.js';
import type { JobView } from '../types.js';

/** Why a job's training processes died: the fault (null when a hang's watchdog fired) and whether hardware was lost. */
export interface CrashCause {
  readonly fault: FaultType | null;
  /** True when the job lost a GPU, node or network (not only its processes). */
  readonly hardwareLost: boolean;
}

/**
 * What happens to a crashed job. Every plan rolls the job back to its last checkpoint (one further
 * after silent data corruption); the simulation accounts the lost work.
 */
export type RecoveryPlan =
  /** The job fails for good. */
  | { readonly kind: 'fail' }
  /**
   * The job is resubmitted: it releases everything, and after `detectS` it joins the queue again
   * like a new job; when it starts, pod scheduling takes `rescheduleS`, then the checkpoint loads.
   */
  | { readonly kind: 'resubmit'; readonly detectS: number; readonly rescheduleS: number };

/** Decides how a job recovers from a crash. */
export interface RecoveryPolicy {
  readonly name: string;
  /** The plan for a job that just crashed at `nowS`. */
  onCrash(job: JobView, cause: CrashCause, nowS: number): RecoveryPlan;
}
