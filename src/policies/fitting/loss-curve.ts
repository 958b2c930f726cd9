import type { LossSample } from '../../model/observations.js';

/** Fitted parameters of Optimus's loss model l(k) = 1/(b0*k + b1) + b2 (all >= 0). */
export interface LossCurveFit {
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  /** Root mean square of the relative residuals (l_observed - l_fitted) / l_observed. */
  readonly relativeRms: number;
  /** Samples the fit used. */
  readonly samples: number;
}

/** Grid points of the search over b2 before the golden-section refinement. */
const B2_GRID_POINTS = 40;
/** Golden-section iterations refining b2 inside the best grid bracket. */
const B2_REFINE_ITERATIONS = 40;

/**
 * Fits l(k) = 1/(b0*k + b1) + b2 with b0, b1, b2 >= 0 to loss samples; null with fewer than 3
 * samples or when no candidate fits. For a fixed b2 the model is linear after taking
 * 1/(l - b2) = b0*k + b1, which NNLS solves with rows weighted by (l - b2)^2 / l so that the
 * linear residuals approximate relative residuals of the loss (the noise is relative). The best b2
 * in [0, min loss) is found by a grid search followed by golden-section refinement of the true
 * relative loss residual.
 */
export function fitLossCurve(samples: readonly LossSample[]): LossCurveFit | null {
  const points = samples.filter((s) => Number.isFinite(s.loss) && s.loss > 0 && Number.isFinite(s.step) && s.step >= 0);
  if (points.length < 3) return null;
  let minLoss = Infinity;
  for (const p of points) minLoss = Math.min(minLoss, p.loss);
  const upper = minLoss * (1 - 1e-6);

  const evaluate = (b2: number): Candidate => fitForB2(points, b2);
  const grid: number[] = [];
  for (let g = 0; g <= B2_GRID_POINTS; g++) grid.push((upper * g) / B2_GRID_POINTS);
  let best = evaluate(grid[0]!);
  let bestIndex = 0;
  for (let g = 1; g < grid.length; g++) {
    const candidate = evaluate(grid[g]!);
    if (candidate.sse < best.sse) {
      best = candidate;
      bestIndex = g;
    }
  }

  // Golden-section search on the bracket around the best grid point (the objective is smooth there).
  let lo = grid[Math.max(0, bestIndex - 1)]!;
  let hi = grid[Math.min(grid.length - 1, bestIndex + 1)]!;
  const ratio = (Math.sqrt(5) - 1) / 2;
  let c = hi - ratio * (hi - lo);
  let d = lo + ratio * (hi - lo);
  let fc = evaluate(c);
  let fd = evaluate(d);
  for (let i = 0; i < B2_REFINE_ITERATIONS; i++) {
    if (fc.sse < fd.sse) {
      hi = d;
      d = c;
      fd = fc;
      c = hi - ratio * (hi - lo);
      fc = evaluate(c);
    } else {
      lo = c;
      c = d;
      fc = fd;
      d = lo + ratio * (hi - lo);
      fd = evaluate(d);
    }
  }
  let chosen: Candidate = best;
  for (const candidate of [fc, fd]) if (candidate.sse < chosen.sse) chosen = candidate;
  if (!Number.isFinite(chosen.sse)) return null;
  return {
    b0: chosen.b0,
    b1: chosen.b1,
    b2: chosen.b2,
    relativeRms: Math.sqrt(chosen.sse / points.length),
    samples: points.length,
  };
}

/** The fitted loss at step k. */
export function fittedLoss(fit: Pick<LossCurveFit, 'b0' | 'b1' | 'b2'>, step: number): number {
  return 1 / (fit.b0 * step + fit.b1) + fit.b2;
}

/**
 * The step at which the fitted curve reaches `targetLoss`: (1/(target - b2) - b1) / b0, at least 0;
 * Infinity when the fitted asymptote b2 is at or above the target (or the curve is flat).
 */
export function predictConvergenceStep(fit: Pick<LossCurveFit, 'b0' | 'b1' | 'b2'>, targetLoss: number): number {
  if (!(targetLoss > fit.b2) || !(fit.b0 > 0)) return Infinity;
  return Math.max(0, (1 / (targetLoss - fit.b2) - fit.b1) / fit.b0);
}

/** One b2 candidate with its NNLS (b0, b1) and the sum of squared relative residuals. */
interface Candidate {
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  readonly sse: number;
}

function fitForB2(points: readonly LossSample[], b2: number): Candidate {
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (const p of points) {
    const excess = p.loss - b2;
    const weight = (excess * excess) / p.loss;
    rows.push([weight * p.step, weight]);
    rhs.push(weight / excess);
  }
  const [b0, b1] = nnls2(rows, rhs);
  let sse = 0;
  for (const p of points) {
    const denominator = b0 * p.step + b1;
    if (!(denominator > 0)) return { b0, b1, b2, sse: Infinity };
    const relative = (p.loss - (1 / denominator + b2)) / p.loss;
    sse += relative * relative;
  }
  return { b0, b1, b2, sse };
}

/**
 * NNLS with two columns in closed form (the loss fit solves ~80 of these per job and pass, so the
 * general active-set solver would dominate a re-plan): the unconstrained solution of the 2x2
 * normal equations when both coefficients are >= 0, else the better of the two one-column
 * solutions (each clipped at 0). Columns are scaled to unit norm first. Same result as `nnls`.
 */
export function nnls2(rows: readonly (readonly number[])[], rhs: readonly number[]): [number, number] {
  let aa = 0;
  let cc = 0;
  for (const row of rows) {
    aa += row[0]! * row[0]!;
    cc += row[1]! * row[1]!;
  }
  const sa = Math.sqrt(aa);
  const sc = Math.sqrt(cc);
  if (!(sa > 0) && !(sc > 0)) return [0, 0];
  let ac = 0;
  let ar = 0;
  let cr = 0;
  for (let i = 0; i < rows.length; i++) {
    const a = sa > 0 ? rows[i]![0]! / sa : 0;
    const c = sc > 0 ? rows[i]![1]! / sc : 0;
    ac += a * c;
    ar += a * rhs[i]!;
    cr += c * rhs[i]!;
  }
  const unscale = (x: number, y: number): [number, number] => [sa > 0 ? x / sa : 0, sc > 0 ? y / sc : 0];
  // Scaled columns have unit norm: normal equations [[1, ac], [ac, 1]] [x, y] = [ar, cr].
  const det = 1 - ac * ac;
  if (sa > 0 && sc > 0 && det > 1e-12) {
    const x = (ar - ac * cr) / det;
    const y = (cr - ac * ar) / det;
    if (x >= 0 && y >= 0) return unscale(x, y);
  }
  // One column at a time: the reduction of the squared residual is (max(0, a.r))^2.
  const onlyA = sa > 0 ? Math.max(0, ar) : 0;
  const onlyC = sc > 0 ? Math.max(0, cr) : 0;
  return onlyA * onlyA >= onlyC * onlyC ? unscale(onlyA, 0) : unscale(0, onlyC);
}

