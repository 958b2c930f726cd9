import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GrowthLog } from '../../src/model/growth-log.js';

describe('growth log', () => {
  it('reads back, from any mark, each node grown since once, in the order of its last growth', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.nat(), { maxLength: 60 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (nodes, growths, marks) => {
        const log = new GrowthLog(nodes);
        // Every growth kept, as a plain list does.
        const all: number[] = [];
        for (const g of growths) {
          log.grew(g % nodes);
          all.push(g % nodes);
          expect(log.mark).toBe(all.length);
        }
        for (const m of marks) {
          const mark = m % (all.length + 1);
          const after = all.slice(mark);
          // Each node once, at its last growth after the mark.
          const expected = after.filter((node, k) => after.lastIndexOf(node) === k);
          expect(log.since(mark)).toEqual(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('lists nothing since the current mark, and every grown node since 0', () => {
    const log = new GrowthLog(3);
    expect(log.since(0)).toEqual([]);
    log.grew(2);
    log.grew(0);
    log.grew(2);
    expect(log.since(log.mark)).toEqual([]);
    expect(log.since(0)).toEqual([0, 2]);
    expect(log.since(2)).toEqual([2]);
  });
});
