import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { leastSquares, nnls, residualOf } from '../../../src/policies/fitting/nnls.js';

/** A^T (A x - b): at an NNLS solution it is 0 where x > 0 and >= 0 where x = 0 (KKT). */
function kktGradient(a: number[][], b: number[], x: number[]): number[] {
  const r = residualOf(a, b, x);
  return x.map((_, j) => a.reduce((sum, row, i) => sum + row[j]! * r[i]!, 0));
}

function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

describe('nnls (Lawson-Hanson)', () => {
  it('solves a hand-computed problem whose LS solution is already non-negative', () => {
    // Normal equations [[2,1],[1,2]] x = [3,2] give x = (4/3, 1/3).
    const a = [
      [1, 0],
      [0, 1],
      [1, 1],
    ];
    const { x, residualNorm } = nnls(a, [2, 1, 1]);
    expect(x[0]).toBeCloseTo(4 / 3, 12);
    expect(x[1]).toBeCloseTo(1 / 3, 12);
    // Residual (2/3, 2/3, -2/3) has norm 2/sqrt(3).
    expect(residualNorm).toBeCloseTo(2 / Math.sqrt(3), 12);
  });

  it('clips a component the unconstrained solution makes negative and re-solves the rest', () => {
    // The LS line through (1,3), (2,2), (3,1) is 4 - t: slope -1 < 0. With slope >= 0 the best is the mean, 2.
    const a = [
      [1, 1],
      [1, 2],
      [1, 3],
    ];
    const b = [3, 2, 1];
    expect(leastSquares(a, b)[1]).toBeCloseTo(-1, 12);
    const { x, residualNorm } = nnls(a, b);
    expect(x[0]).toBeCloseTo(2, 12);
    expect(x[1]).toBe(0);
    expect(residualNorm).toBeCloseTo(Math.SQRT2, 12);
    // KKT: the gradient of the clipped component points outwards.
    expect(kktGradient(a, b, x)[1]).toBeGreaterThan(0);
  });

  it('returns zeros when every coefficient would be negative, and handles an identity', () => {
    expect(nnls([[1, 0], [0, 1]], [-1, -2]).x).toEqual([0, 0]);
    expect(nnls([[1, 0], [0, 1]], [1, -1]).x).toEqual([1, 0]);
  });

  it('gives an all-zero column a zero coefficient', () => {
    const { x } = nnls([[1, 0], [2, 0], [3, 0]], [2, 4, 6]);
    expect(x[0]).toBeCloseTo(2, 12);
    expect(x[1]).toBe(0);
  });

  it('recovers a non-negative solution exactly from noiseless data, zeros included, across column scales', () => {
    const rng = seedrandom('nnls-exact');
    const truth = [0.7, 0, 2.5e-4, 12, 0];
    const scales = [1, 10, 1e4, 0.01, 3];
    const a: number[][] = [];
    for (let i = 0; i < 40; i++) a.push(scales.map((s) => s * (rng() - 0.3)));
    const b = a.map((row) => row.reduce((sum, v, j) => sum + v * truth[j]!, 0));
    const { x, residualNorm } = nnls(a, b);
    truth.forEach((t, j) => expect(x[j]).toBeCloseTo(t, 9));
    expect(residualNorm).toBeLessThan(1e-9);
  });

  it('stays close to the truth under noise and satisfies the optimality conditions', () => {
    const rng = seedrandom('nnls-noise');
    const truth = [2, 0.5, 0, 1.5];
    const a: number[][] = [];
    for (let i = 0; i < 200; i++) a.push([1, rng() * 4, rng() * 2, rng()]);
    const b = a.map((row) => row.reduce((sum, v, j) => sum + v * truth[j]!, 0) + 0.01 * gaussian(rng));
    const { x } = nnls(a, b);
    truth.forEach((t, j) => expect(Math.abs(x[j]! - t)).toBeLessThan(0.02));
    expect(x.every((v) => v >= 0)).toBe(true);
    const g = kktGradient(a, b, x);
    x.forEach((v, j) => {
      if (v > 0) expect(Math.abs(g[j]!)).toBeLessThan(1e-8);
      else expect(g[j]!).toBeGreaterThan(-1e-8);
    });
  });

  it('rejects mismatched shapes', () => {
    expect(() => nnls([[1, 2]], [1, 2])).toThrow(RangeError);
  });
});
