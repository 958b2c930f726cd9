import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binsOver, cdfPoints, coarsenUsage, countInBins, MAX_CDF_POINTS, occupancyInBins } from '../../../src/report/binning.js';
import { usageRows } from './fixtures.js';

describe('binning', () => {
  it('draws a CDF from at most MAX_CDF_POINTS quantiles, rising, keeping the minimum and maximum', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e7, noNaN: true }), { minLength: 1, maxLength: 3000 }), (values) => {
        const sorted = Float64Array.from(values).sort();
        const points = cdfPoints(sorted);
        expect(points.length).toBeLessThanOrEqual(MAX_CDF_POINTS);
        expect(points[0]!.value).toBe(sorted[0]);
        expect(points[points.length - 1]!.value).toBe(sorted[sorted.length - 1]);
        expect(points[points.length - 1]!.fraction).toBe(1);
        for (let i = 1; i < points.length; i++) {
          expect(points[i]!.value).toBeGreaterThanOrEqual(points[i - 1]!.value);
          expect(points[i]!.fraction).toBeGreaterThan(points[i - 1]!.fraction);
        }
      }),
      { numRuns: 50 },
    );
    expect(cdfPoints([])).toEqual([]);
  });

  it('merges usage bins keeping the time-weighted mean', () => {
    const rows = usageRows(2000);
    const coarse = coarsenUsage(rows, 500);
    expect(coarse).toHaveLength(500);
    const total = (rs: typeof rows) => rs.reduce((sum, r) => sum + r.allocatedGpus * r.binS, 0);
    expect(total(coarse)).toBeCloseTo(total(rows), 6);
    expect(coarse[1]!.timeS).toBe(240);
    expect(coarse[1]!.binS).toBe(240);
  });

  it('counts events and spreads state intervals over time bins', () => {
    const bins = binsOver(0, 100, 10);
    const counts = countInBins([{ t: 5 }, { t: 7 }, { t: 99 }, { t: 150 }], (e) => e.t, () => 'x', bins);
    expect(counts.get('x')).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    const occupancy = occupancyInBins([{ jobId: 'a', state: 'loading', fromS: 5, toS: 25 }], ['loading'], bins);
    expect(occupancy.get('loading')).toEqual([0.5, 1, 0.5, 0, 0, 0, 0, 0, 0, 0]);
  });
});
