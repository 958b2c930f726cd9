import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PositionsByKey } from '../../src/sim/positions-by-key.js';

describe('PositionsByKey', () => {
  it('finds, of the listed keys at most k, the one of largest position, under any sets, clears and renumberings', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 36 }), position: fc.double({ min: -1e6, max: 1e6, noNaN: true }) }),
      fc.record({ kind: fc.constant('clear' as const), key: fc.integer({ min: 0, max: 36 }) }),
      fc.record({ kind: fc.constant('renumber' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.array(fc.integer({ min: -2, max: 40 }), { minLength: 1, maxLength: 20 }), (ops, queries) => {
        // 37 keys: the tree's leaves (64) outnumber them.
        const index = new PositionsByKey<{ position: number }>(37);
        const listed = new Map<number, { position: number }>();
        for (const step of ops) {
          if (step.kind === 'set') {
            // Positions stay distinct, as a list's do.
            if ([...listed.values()].some((link) => link.position === step.position)) continue;
            const link = { position: step.position };
            listed.set(step.key, link);
            index.set(step.key, link);
          } else if (step.kind === 'clear') {
            listed.delete(step.key);
            index.clear(step.key);
          } else {
            // Every position changes, order kept (as a list numbering its items afresh).
            const byPosition = [...listed.values()].sort((a, b) => a.position - b.position);
            byPosition.forEach((link, k) => (link.position = k + 1));
            index.refresh();
          }
        }
        for (const key of queries) {
          let expected: { position: number } | null = null;
          for (const [k, link] of listed) if (k <= key && (expected === null || link.position > expected.position)) expected = link;
          expect(index.lastAtMost(key)).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
