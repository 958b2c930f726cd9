import type { RecoveryPolicy } from './types.js';

/** Parameters of DLRover's fault tolerance (seed 001's table), in seconds. */
export interface DlroverOptions {
  /** A replacement pod on a healthy node (~2 min: one pod, images cached). */
  readonly replaceS: number;
  /** Automatic scale-down to a multiple of the node unit when no healthy node is free (~3 min). */
  readonly scaleDownS: number;
  /** Restarting processes after a software fault (no new pod). */
  readonly restartS: number;
  /** Flash checkpoint save: to memory, then storage (~1 min). */
  readonly checkpointSaveS: number;
  /** Checkpoint load after a restart (~4 min). */
  readonly checkpointLoadS: number;
  /**
   * Automatic detection (~5 min in the seed's table, for network, other hardware and software
   * faults alike): a crashed job pauses this long before its node check, and broken hardware no job
   * runs on is taken out of service after it.
   */
  readonly detectS: number;
}

/** Defaults of DLRover's fault tolerance (REFERENCE §1). */
export const DLROVER: DlroverOptions = { replaceS: 120, scaleDownS: 180, restartS: 0, checkpointSaveS: 60, checkpointLoadS: 240, detectS: 300 };

/**
 * `dlrover`: DLRover's elastic fault tolerance (REFERENCE §1, seed 001). The job master detects a
 * failure automatically in ~5 min (a hang only at the heartbeat timeout); the node check (GEMM + allgather in pairs,
 * 1-3 min) runs on the job's nodes and cordons faulty nodes and stragglers; their pods are replaced
 * on healthy nodes (~2 min), or, without free healthy nodes, the job scales down to a multiple of
 * its node unit (~3 min) and scales back up when capacity returns. A software fault only restarts
 * the processes after a ~1 min check. Checkpoints are flash checkpoints (save ~1 min, load ~4 min).
 */
export function createDlrover(options: DlroverOptions = DLROVER): RecoveryPolicy {
  return {
    name: 'dlrover',
    checkpointCosts: { saveS: options.checkpointSaveS, loadS: options.checkpointLoadS },
    isolationDelayS: () => options.detectS,
    onCrash: () => ({
      kind: 'in-place',
      detectS: options.detectS,
      nodeCheck: true,
      replaceS: options.replaceS,
      scaleDownS: options.scaleDownS,
      restartS: options.restartS,
    }),
  };
}
