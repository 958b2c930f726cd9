import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNumberLists } from '../../src/model/btree.js';
import { SortedMap } from '../../src/model/sorted-map.js';

type Key = readonly number[];

/** One change or read of the map; keys are short number lists, so that many coincide. */
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 2 }), value: fc.integer() }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 2 }) }),
  // Runs of deletions from the front, as a queue's starts take its first jobs.
  fc.record({ kind: fc.constant('deleteMin' as const), times: fc.integer({ min: 1, max: 40 }) }),
);

/** The plain reference: every entry, sorted on each read. */
function sortedEntries(entries: ReadonlyMap<string, [Key, number]>): [Key, number][] {
  return [...entries.values()].sort((a, b) => compareNumberLists(a[0], b[0]));
}

describe('SortedMap', () => {
  it('answers every read as a sorted list of its entries does, across its move into a B-tree and back', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 400 }), (ops) => {
        const map = new SortedMap<Key, number>(compareNumberLists);
        const reference = new Map<string, [Key, number]>();
        const reuse: [Key, number] = [[], 0];
        for (const op of ops) {
          if (op.kind === 'set') {
            map.set(op.key, op.value);
            reference.set(op.key.join(','), [op.key, op.value]);
          } else if (op.kind === 'delete') {
            expect(map.delete(op.key)).toBe(reference.delete(op.key.join(',')));
          } else {
            for (let t = 0; t < op.times; t++) {
              const first = map.minKey();
              if (first === undefined) break;
              expect(map.delete(first)).toBe(true);
              reference.delete(first.join(','));
            }
          }
          const sorted = sortedEntries(reference);
          expect(map.size).toBe(sorted.length);
          expect(map.minKey()).toEqual(sorted[0]?.[0]);
          // Every entry in order through nextHigherPair, and each key's neighbours and value.
          const walked: [Key, number][] = [];
          for (let pair = map.nextHigherPair(undefined, reuse); pair !== undefined; pair = map.nextHigherPair(pair[0], reuse)) walked.push([pair[0], pair[1]]);
          expect(walked).toEqual(sorted);
          for (let k = 0; k < sorted.length; k++) {
            expect(map.get(sorted[k]![0])).toBe(sorted[k]![1]);
            expect(map.nextHigherKey(sorted[k]![0])).toEqual(sorted[k + 1]?.[0]);
          }
          // Keys not held: no value, and the next key held above them.
          for (const probe of [[-1], [4, 5, 6], [10]]) {
            const above = sorted.find(([key]) => compareNumberLists(key, probe) > 0);
            if (!reference.has(probe.join(','))) expect(map.get(probe)).toBeUndefined();
            expect(map.nextHigherKey(probe)).toEqual(above?.[0]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('holds more entries than its arrays keep, and keeps them in order', () => {
    const map = new SortedMap<Key, number>(compareNumberLists);
    // Descending keys: every insertion goes to the front.
    for (let k = 200; k > 0; k--) map.set([k], k);
    expect(map.size).toBe(200);
    const keys: number[] = [];
    for (let key = map.minKey(); key !== undefined; key = map.nextHigherKey(key)) keys.push(key[0]!);
    expect(keys).toEqual(Array.from({ length: 200 }, (_, k) => k + 1));
    for (let k = 1; k <= 200; k++) expect(map.delete([k])).toBe(true);
    expect(map.size).toBe(0);
    expect(map.minKey()).toBeUndefined();
  });
});
