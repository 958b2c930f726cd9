import { locatedByHandS, MANUAL_RECOVERY, resubmitByHand, type ManualRecoveryOptions } from './manual.js';
import { InPlaceRecovery, type InPlaceSettings } from './in-place.js';
import type { RecoveryPolicy } from './types.js';

/**
 * Parameters of Torch Elastic recovery, in seconds; the hand-operated ones (polling for a lost job,
 * rescheduling it, locating broken hardware) are manual recovery's, with its defaults.
 */
export interface TorchElasticOptions extends ManualRecoveryOptions {
  /** Scheduling a replacement pod (image pull, installs) when capacity allows (~5 min, the seed's time to schedule pods). */
  readonly replaceS: number;
  /**
   * Re-rendezvous and process restart on a membership change (~1 min [approx]: PyTorch's dynamic
   * rendezvous waits 30 s (`last_call_timeout`) for late joiners, then the processes are launched).
   */
  readonly restartS: number;
}

/** Defaults of Torch Elastic recovery. */
export const TORCH_ELASTIC: TorchElasticOptions = { ...MANUAL_RECOVERY, replaceS: 300, restartS: 60 };

/**
 * `torch-elastic`: plain PyTorch elastic training (REFERENCE §1). The agents notice a dead process
 * at once and restart every process on any membership change. A lost node's pod is replaced when
 * capacity allows; otherwise an elastic job carries on with the workers it has (any count: no node
 * unit) and takes new nodes as soon as they come. There is no node check, so a slow node stays and
 * broken hardware the scheduler cannot see is found by hand, as under manual recovery. The
 * rendezvous store lives on the rank-0 node: losing that node fails the job, and a user resubmits it
 * as under manual recovery.
 */
export function createTorchElastic(options: TorchElasticOptions = TORCH_ELASTIC): RecoveryPolicy {
  const recovery = new InPlaceRecovery(undefined);
  const settings: InPlaceSettings = {
    detectS: 0,
    nodeCheck: false,
    replaceS: options.replaceS,
    scaleDownS: options.restartS,
    restartS: options.restartS,
    relaunchNodeIndices: [],
    maxRelaunchesPerPod: null,
    relaunchMemMiB: null,
  };
  return {
    name: 'torch-elastic',
    isolationDelayS: (fault, nowS) => locatedByHandS(fault, nowS, options),
    onCrash: (job, cause, context) => {
      if (cause.rankZeroNodeIndex !== null && cause.lostNodeIndices.includes(cause.rankZeroNodeIndex)) return resubmitByHand(context.nowS, options);
      return recovery.plan(job, cause, context, settings);
    },
    growBack: (context) => recovery.growBack(context),
  };
}
