import type { SpeedSample } from '../../model/observations.js';
import { nnls } from './nnls.js';

/** Optimus's asynchronous PS speed model: steps/s = w / (t0 + t1*w/p + t2*w + t3*p), all t >= 0. */
export interface AsyncSpeedParams {
  readonly t0: number;
  readonly t1: number;
  readonly t2: number;
  readonly t3: number;
}

/** Optimus's synchronous PS speed model with global batch M: steps/s = 1 / (t0*M/w + t1 + t2*w/p + t3*w + t4*p). */
export interface SyncSpeedParams {
  readonly t0: number;
  readonly t1: number;
  readonly t2: number;
  readonly t3: number;
  readonly t4: number;
  /** Global batch M (mini-batches per step, split over the workers). */
  readonly globalBatch: number;
}

/** Options of the fits: a prior the fit is pulled towards, with a small weight. */
export interface SpeedFitOptions<P> {
  /** Parameters to shrink towards (each > 0 where used); absent = plain NNLS on the samples. */
  readonly prior?: P;
  /**
   * Weight of each prior pseudo-observation relative to one sample (0.05 = a 100% deviation of a
   * parameter from its prior costs as much as a 5% relative error on one sample).
   */
  readonly priorWeight?: number;
}

/** Steps per second of the asynchronous model at p parameter servers and w workers (0 when p or w is 0). */
export function asyncStepsPerS(t: AsyncSpeedParams, ps: number, workers: number): number {
  if (ps <= 0 || workers <= 0) return 0;
  return workers / (t.t0 + (t.t1 * workers) / ps + t.t2 * workers + t.t3 * ps);
}

/** Steps per second of the synchronous model at p parameter servers and w workers (0 when p or w is 0). */
export function syncStepsPerS(t: SyncSpeedParams, ps: number, workers: number): number {
  if (ps <= 0 || workers <= 0) return 0;
  return 1 / ((t.t0 * t.globalBatch) / workers + t.t1 + (t.t2 * workers) / ps + t.t3 * workers + t.t4 * ps);
}

/** Number of distinct (ps, workers) shapes among the samples. */
export function distinctShapes(samples: readonly SpeedSample[]): number {
  const seen = new Set<string>();
  for (const s of samples) seen.add(`${s.ps}:${s.workers}`);
  return seen.size;
}

/**
 * Fits the asynchronous model by NNLS on w/f = t0 + t1*(w/p) + t2*w + t3*p, each row divided by its
 * observed w/f so that residuals are relative (speeds are measured with relative noise). Null when
 * no usable sample exists or the fit degenerates (all t = 0).
 */
export function fitAsyncSpeedModel(
  samples: readonly SpeedSample[],
  options: SpeedFitOptions<AsyncSpeedParams> = {},
): AsyncSpeedParams | null {
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (const s of usable(samples)) {
    const y = s.workers / s.stepsPerS;
    rows.push([1 / y, s.workers / s.ps / y, s.workers / y, s.ps / y]);
    rhs.push(1);
  }
  if (rows.length === 0) return null;
  if (options.prior) addPriorRows(rows, rhs, [options.prior.t0, options.prior.t1, options.prior.t2, options.prior.t3], options.priorWeight);
  const [t0, t1, t2, t3] = nnls(rows, rhs).x as [number, number, number, number];
  if (!(t0 + t1 + t2 + t3 > 0)) return null;
  return { t0, t1, t2, t3 };
}

/**
 * Fits the synchronous model by NNLS on 1/f = t0*M/w + t1 + t2*w/p + t3*w + t4*p, rows divided by
 * their observed 1/f (relative residuals). Null when no usable sample exists or all t = 0.
 */
export function fitSyncSpeedModel(
  samples: readonly SpeedSample[],
  globalBatch: number,
  options: SpeedFitOptions<Omit<SyncSpeedParams, 'globalBatch'>> = {},
): SyncSpeedParams | null {
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (const s of usable(samples)) {
    const y = 1 / s.stepsPerS;
    rows.push([globalBatch / s.workers / y, 1 / y, s.workers / s.ps / y, s.workers / y, s.ps / y]);
    rhs.push(1);
  }
  if (rows.length === 0) return null;
  const p = options.prior;
  if (p) addPriorRows(rows, rhs, [p.t0, p.t1, p.t2, p.t3, p.t4], options.priorWeight);
  const [t0, t1, t2, t3, t4] = nnls(rows, rhs).x as [number, number, number, number, number];
  if (!(t0 + t1 + t2 + t3 + t4 > 0)) return null;
  return { t0, t1, t2, t3, t4, globalBatch };
}

/**
 * Scales a prior asynchronous model to the samples: the factor s minimising the relative residuals
 * of w/f ≈ s * (t0 + t1*w/p + t2*w + t3*p), i.e. the prior's shape with the samples' level. Used
 * while too few distinct shapes were seen to fit four parameters. Null without usable samples.
 */
export function scaleAsyncPrior(samples: readonly SpeedSample[], prior: AsyncSpeedParams): AsyncSpeedParams | null {
  let numerator = 0;
  let denominator = 0;
  for (const s of usable(samples)) {
    const y = s.workers / s.stepsPerS;
    const g = prior.t0 + (prior.t1 * s.workers) / s.ps + prior.t2 * s.workers + prior.t3 * s.ps;
    // Minimises sum ((s*g - y)/y)^2.
    numerator += g / y;
    denominator += (g / y) * (g / y);
  }
  if (!(denominator > 0)) return null;
  const factor = numerator / denominator;
  return { t0: prior.t0 * factor, t1: prior.t1 * factor, t2: prior.t2 * factor, t3: prior.t3 * factor };
}

function usable(samples: readonly SpeedSample[]): SpeedSample[] {
  return samples.filter((s) => s.ps > 0 && s.workers > 0 && Number.isFinite(s.stepsPerS) && s.stepsPerS > 0);
}

/** Pseudo-rows pulling each parameter towards its prior value: weight * (t_j / prior_j - 1) = 0. */
function addPriorRows(rows: number[][], rhs: number[], prior: readonly number[], weight = 0.05): void {
  prior.forEach((value, j) => {
    if (!(value > 0)) return;
    const row = new Array<number>(prior.length).fill(0);
    row[j] = weight / value;
    rows.push(row);
    rhs.push(weight);
  });
}
