import type { FaultType } from '../../faults/catalog.js';
import type { RecoveryPlan, RecoveryPolicy } from './types.js';

/** Parameters of manual recovery (DLRover seed 001's "before" column), in seconds. */
export interface ManualRecoveryOptions {
  /** Locating a network fault by hand (~2 h). */
  readonly locateNetworkS: number;
  /**
   * SREs take other broken hardware out of service on their rounds, this often (from time 0). The
   * seed gives no period ("depends on the SRE inspection cycle"); once a day [approx], the customary
   * period of a routine inspection round, not fitted to any published figure.
   */
  readonly sreRoundS: number;
  /** A user script polls job status this often, from time 0; it notices a failure at its next poll (10 min). */
  readonly pollS: number;
  /** Scheduling all pods again, pulling images, installing (~5 min). */
  readonly rescheduleS: number;
}

/** Defaults of manual recovery (REFERENCE §1). */
export const MANUAL_RECOVERY: ManualRecoveryOptions = { locateNetworkS: 7200, sreRoundS: 24 * 3600, pollS: 600, rescheduleS: 300 };

/** Seconds until hardware broken at `nowS` is found by hand: ~2 h for a network fault, else the next SRE round. */
export function locatedByHandS(fault: FaultType, nowS: number, options: ManualRecoveryOptions = MANUAL_RECOVERY): number {
  if (fault.effect.kind === 'network-down') return options.locateNetworkS;
  return (Math.floor(nowS / options.sreRoundS) + 1) * options.sreRoundS - nowS;
}

/** A user's script resubmits a job that failed at `nowS`: it notices at its next poll, then all pods are scheduled again. */
export function resubmitByHand(nowS: number, options: ManualRecoveryOptions): RecoveryPlan {
  const nextPollS = (Math.floor(nowS / options.pollS) + 1) * options.pollS;
  return { kind: 'resubmit', detectS: nextPollS - nowS, rescheduleS: options.rescheduleS };
}

/**
 * `manual`: no fault tolerance beyond a user's script. The failed job is noticed at the script's
 * next poll and resubmitted through the scheduler like a new job (to the back of the queue); its
 * pods take `rescheduleS` to start, then it loads its last checkpoint. There is no node check: a
 * slow but not dead node may be picked again, and broken hardware the scheduler cannot see is
 * only taken out of service when found by hand (~2 h for a network fault, else the next SRE round).
 */
export function createManualRecovery(options: ManualRecoveryOptions = MANUAL_RECOVERY): RecoveryPolicy {
  return {
    name: 'manual',
    isolationDelayS: (fault, nowS) => locatedByHandS(fault, nowS, options),
    onCrash: (_job, _cause, context) => resubmitByHand(context.nowS, options),
  };
}
