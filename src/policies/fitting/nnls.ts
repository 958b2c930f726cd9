/**
 * Non-negative least squares: min ||A x - b||_2 subject to x >= 0, by the Lawson-Hanson active-set
 * algorithm (Lawson & Hanson, "Solving Least Squares Problems", 1974, ch. 23), for the small dense
 * problems of model fitting (a handful of columns, up to a few hundred rows).
 *
 * Written by hand: the npm registry has one maintained NNLS package, `ml-fcnnls` (mljs, built on
 * `ml-matrix`), aimed at many right-hand sides at once; for 2-5 columns a self-contained solver of
 * ~150 lines is smaller than the two dependencies and keeps every fit deterministic and inspectable.
 */

/** The result of an NNLS solve. */
export interface NnlsResult {
  /** The solution, every component >= 0. */
  readonly x: number[];
  /** ||A x - b||_2 at the solution. */
  readonly residualNorm: number;
  /** Outer iterations (columns freed) the active-set loop took. */
  readonly iterations: number;
}

/**
 * Solves min ||A x - b|| subject to x >= 0. `a` is row-major (m rows of n columns), `b` has m entries.
 * Columns are scaled to unit norm internally (the loss and speed fits mix columns of very different
 * magnitudes); an all-zero column gets x = 0.
 */
export function nnls(a: readonly (readonly number[])[], b: readonly number[]): NnlsResult {
  const m = a.length;
  if (b.length !== m) throw new RangeError(`nnls: A has ${m} rows but b has ${b.length}`);
  const n = m === 0 ? 0 : a[0]!.length;
  for (const row of a) if (row.length !== n) throw new RangeError('nnls: rows of A differ in length');

  // Scale columns to unit norm; solve for y = scale * x, then x = y / scale.
  const scale = new Array<number>(n).fill(0);
  for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let i = 0; i < m; i++) sum += a[i]![j]! * a[i]![j]!;
    scale[j] = Math.sqrt(sum);
  }
  const scaled: number[][] = a.map((row) => row.map((v, j) => (scale[j]! > 0 ? v / scale[j]! : 0)));
  const usable = scale.map((s) => s > 0);

  const y = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  const tol = 10 * Number.EPSILON * Math.max(m, n) * Math.max(1, norm(b));
  const maxOuter = 3 * n + 10;
  let iterations = 0;

  let gradient = gradientOf(scaled, b, y);
  while (iterations < maxOuter) {
    // The inactive column whose coefficient most wants to grow.
    let t = -1;
    for (let j = 0; j < n; j++) {
      if (!passive[j] && usable[j] && gradient[j]! > tol && (t < 0 || gradient[j]! > gradient[t]!)) t = j;
    }
    if (t < 0) break;
    iterations++;
    passive[t] = true;

    for (let inner = 0; inner < 3 * n + 10; inner++) {
      const z = solvePassive(scaled, b, passive);
      let feasible = true;
      for (let j = 0; j < n; j++) if (passive[j] && z[j]! <= 0) feasible = false;
      if (feasible) {
        for (let j = 0; j < n; j++) y[j] = z[j]!;
        break;
      }
      // Step from y towards z as far as stays feasible, then drop the columns that hit zero.
      let alpha = Infinity;
      for (let j = 0; j < n; j++) {
        if (passive[j] && z[j]! <= 0) {
          const gap = y[j]! - z[j]!;
          alpha = Math.min(alpha, gap > 0 ? y[j]! / gap : 0);
        }
      }
      if (!Number.isFinite(alpha)) alpha = 0;
      for (let j = 0; j < n; j++) {
        y[j] = y[j]! + alpha * (z[j]! - y[j]!);
        if (passive[j] && y[j]! <= tol) {
          passive[j] = false;
          y[j] = 0;
        }
      }
      if (!passive.some(Boolean)) break;
    }
    gradient = gradientOf(scaled, b, y);
  }

  const x = y.map((v, j) => (scale[j]! > 0 ? Math.max(0, v) / scale[j]! : 0));
  return { x, residualNorm: norm(residualOf(a, b, x)), iterations };
}

/** Solves min ||A x - b|| without constraints (least squares by Householder QR); rank-deficient columns get 0. */
export function leastSquares(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = a.length === 0 ? 0 : a[0]!.length;
  return solvePassive(a, b, new Array<boolean>(n).fill(true));
}

/** A x - b. */
export function residualOf(a: readonly (readonly number[])[], b: readonly number[], x: readonly number[]): number[] {
  return a.map((row, i) => {
    let sum = -b[i]!;
    for (let j = 0; j < row.length; j++) sum += row[j]! * x[j]!;
    return sum;
  });
}

/** A^T (b - A x): the negative gradient of the half squared residual. */
function gradientOf(a: readonly (readonly number[])[], b: readonly number[], x: readonly number[]): number[] {
  const n = x.length;
  const g = new Array<number>(n).fill(0);
  const r = residualOf(a, b, x);
  for (let i = 0; i < a.length; i++) {
    const row = a[i]!;
    for (let j = 0; j < n; j++) g[j]! -= row[j]! * r[i]!;
  }
  return g;
}

/** Least squares restricted to the passive columns (others 0), by Householder QR of that submatrix. */
function solvePassive(a: readonly (readonly number[])[], b: readonly number[], passive: readonly boolean[]): number[] {
  const n = passive.length;
  const columns: number[] = [];
  for (let j = 0; j < n; j++) if (passive[j]) columns.push(j);
  const m = a.length;
  const k = columns.length;
  const x = new Array<number>(n).fill(0);
  if (k === 0 || m === 0) return x;

  // Column-major copy of the submatrix and a copy of b, reduced in place.
  const r: number[][] = columns.map((j) => a.map((row) => row[j]!));
  const qtb = [...b];
  const steps = Math.min(m, k);
  for (let c = 0; c < steps; c++) {
    const col = r[c]!;
    let sigma = 0;
    for (let i = c; i < m; i++) sigma += col[i]! * col[i]!;
    const alpha = Math.sqrt(sigma);
    if (alpha === 0) continue;
    const sign = col[c]! >= 0 ? 1 : -1;
    // Householder vector v = col[c..] + sign * alpha * e1.
    const v = new Array<number>(m - c);
    for (let i = c; i < m; i++) v[i - c] = col[i]!;
    v[0]! += sign * alpha;
    let vv = 0;
    for (const vi of v) vv += vi * vi;
    if (vv === 0) continue;
    const reflect = (vec: number[]): void => {
      let dot = 0;
      for (let i = c; i < m; i++) dot += v[i - c]! * vec[i]!;
      const f = (2 * dot) / vv;
      for (let i = c; i < m; i++) vec[i]! -= f * v[i - c]!;
    };
    for (let cc = c; cc < k; cc++) reflect(r[cc]!);
    reflect(qtb);
  }

  // Back substitution; a negligible pivot (a column dependent on earlier ones) leaves its coefficient 0.
  let largestPivot = 0;
  for (let c = 0; c < steps; c++) largestPivot = Math.max(largestPivot, Math.abs(r[c]![c]!));
  const pivotTol = largestPivot * 1e-12;
  const z = new Array<number>(k).fill(0);
  for (let c = steps - 1; c >= 0; c--) {
    const pivot = r[c]![c]!;
    if (Math.abs(pivot) <= pivotTol) continue;
    let sum = qtb[c]!;
    for (let cc = c + 1; cc < steps; cc++) sum -= r[cc]![c]! * z[cc]!;
    z[c] = sum / pivot;
  }
  columns.forEach((j, c) => (x[j] = z[c]!));
  return x;
}

function norm(v: readonly number[]): number {
  let sum = 0;
  for (const value of v) sum += value * value;
  return Math.sqrt(sum);
}
