import seedrandom from 'seedrandom';
import type { LossCurveSpec } from './job-spec.js';

/** One observed training speed: the replica counts a job ran with and the steps/s measured. */
export interface SpeedSample {
  readonly ps: number;
  readonly workers: number;
  readonly stepsPerS: number;
}

/** One observed loss value at a training step. */
export interface LossSample {
  readonly step: number;
  readonly loss: number;
}

/** Relative noise of measured speeds (standard deviation). */
export const SPEED_NOISE = 0.03;

/** Steps between two reported loss values (jobs report the loss every this many steps or so). */
export const LOSS_REPORT_FRACTION = 0.01;

/**
 * A standard normal draw fixed by its key, so an observation does not depend on when or how often
 * it is read (and reading it draws from no shared stream).
 */
export function keyedNormal(key: string): number {
  const prng = seedrandom.alea(key);
  const u1 = 1 - prng();
  const u2 = prng();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** The true loss at step k. */
export function trueLoss(curve: LossCurveSpec, step: number): number {
  return 1 / (curve.b0 * step + curve.b1) + curve.b2;
}

/** The step at which the true loss reaches the target (Infinity when it never does). */
export function convergenceStep(curve: LossCurveSpec): number {
  if (curve.targetLoss <= curve.b2) return Infinity;
  return Math.max(0, (1 / (curve.targetLoss - curve.b2) - curve.b1) / curve.b0);
}

/**
 * The loss values a job has reported up to `progressSteps`: one every LOSS_REPORT_FRACTION of its
 * total steps, each with fixed noise keyed by seed, job and index.
 */
export function lossSamples(seed: number, jobId: string, curve: LossCurveSpec, totalSteps: number, progressSteps: number): LossSample[] {
  const everySteps = Math.max(1, totalSteps * LOSS_REPORT_FRACTION);
  const samples: LossSample[] = [];
  for (let i = 1; i * everySteps <= progressSteps; i++) {
    const step = i * everySteps;
    const noise = 1 + curve.noise * keyedNormal(`dlsim:${seed}:loss:${jobId}:${i}`);
    samples.push({ step, loss: trueLoss(curve, step) * noise });
  }
  return samples;
}
