import { FLASH_SAVE_BLOCK_S, type CheckpointSpec } from './job-spec.js';
import type { PauseStep } from './pause.js';

/** Checkpoint costs a recovery stack imposes (e.g. DLRover's flash checkpoint), in seconds; they replace a job's own. */
export interface CheckpointCosts {
  readonly saveS: number;
  readonly loadS: number;
}

/** Seconds a checkpoint save blocks training: a flash save FLASH_SAVE_BLOCK_S, else the stack's save time or the job's. */
export function saveBlockS(checkpoint: CheckpointSpec, costs: CheckpointCosts | undefined): number {
  return checkpoint.flash ? FLASH_SAVE_BLOCK_S : (costs?.saveS ?? checkpoint.saveS);
}

/** Seconds a restart spends loading the last checkpoint: the stack's load time or the job's; 0 for a job that never checkpoints. */
export function loadS(checkpoint: CheckpointSpec | undefined, costs: CheckpointCosts | undefined): number {
  return checkpoint ? (costs?.loadS ?? checkpoint.loadS) : 0;
}

/** What restarting a job's training processes costs after `before`: their start-up, then the checkpoint load. */
export function restartSteps(job: { readonly startupS?: number; readonly checkpoint?: CheckpointSpec }, costs: CheckpointCosts | undefined, ...before: PauseStep[]): PauseStep[] {
  return [...before, { kind: 'starting', seconds: job.startupS ?? 0 }, { kind: 'loading', seconds: loadS(job.checkpoint, costs) }];
}

/**
 * Young/Daly's optimal checkpoint interval in seconds of training: sqrt(2 x save time x mean time
 * between failures), for a save that blocks `saveS` and failures at `failuresPerS`. Infinity when
 * the job never fails (no checkpoint needed).
 */
export function youngDalyIntervalS(saveS: number, failuresPerS: number): number {
  if (!(failuresPerS > 0)) return Infinity;
  return Math.sqrt((2 * saveS) / failuresPerS);
}
