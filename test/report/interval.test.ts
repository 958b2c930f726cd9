import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ciHalfWidth, tQuantile } from '../../src/report/interval.js';

describe('Student t quantile', () => {
  it('matches known values of t(0.975, df) to 1e-9 relative', () => {
    // df 1 and 2 have closed forms: tan(pi (p - 1/2)) and (2p - 1) / sqrt(2 p (1 - p)).
    const known: [number, number][] = [
      [1, Math.tan(Math.PI * 0.475)],
      [2, 0.95 / Math.sqrt(2 * 0.975 * 0.025)],
      // Tabled values (R's qt(0.975, df)).
      [4, 2.7764451051977987],
      [10, 2.2281388519862744],
      [30, 2.0422724563012378],
      [200, 1.9718962236339095],
    ];
    for (const [df, t] of known) expect(Math.abs(tQuantile(0.975, df) - t) / t).toBeLessThan(1e-9);
  });

  it('is odd around 1/2 and falls towards the normal quantile as the degrees of freedom grow', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.51, max: 0.999, noNaN: true }), fc.integer({ min: 1, max: 500 }), (p, df) => {
        const t = tQuantile(p, df);
        expect(tQuantile(1 - p, df)).toBeCloseTo(-t, 9);
        expect(tQuantile(p, df + 1)).toBeLessThan(t);
      }),
    );
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.959963984540054, 5);
  });

  it('gives the half-width t(0.975, n-1) sd / sqrt(n)', () => {
    // (2, 1, 0.5): sd 0.763763, t(0.975, 2) = 4.302653.
    expect(ciHalfWidth([2, 1, 0.5], 7 / 6)).toBeCloseTo((4.302652729749464 * 0.7637626158259734) / Math.sqrt(3), 9);
  });
});
