import type { RecoveryPolicy } from './types.js';

/** Parameters of manual recovery (DLRover seed 001's "before" column), in seconds. */
export interface ManualRecoveryOptions {
  /** A user script polls job status this often, from time 0; it notices a failure at its next poll (10 min). */
  readonly pollS: number;
  /** Scheduling all pods again, pulling images, installing (~5 min). */
  readonly rescheduleS: number;
}

/** Defaults of manual recovery (REFERENCE §1). */
export const MANUAL_RECOVERY: ManualRecoveryOptions = { pollS: 600, rescheduleS: 300 };

/**
 * `manual`: no fault tolerance beyond a user's script. The failed job is noticed at the script's
 * next poll and resubmitted through the scheduler like a new job (to the back of the queue); its
 * pods take `rescheduleS` to start, then it loads its last checkpoint. There is no node check: a
 * slow but not dead node may be picked again.
 */
export function createManualRecovery(options: ManualRecoveryOptions = MANUAL_RECOVERY): RecoveryPolicy {
  return {
    name: 'manual',
    onCrash: (_job, _cause, nowS) => {
      const nextPollS = (Math.floor(nowS / options.pollS) + 1) * options.pollS;
      return { kind: 'resubmit', detectS: nextPollS - nowS, rescheduleS: options.rescheduleS };
    },
  };
}
