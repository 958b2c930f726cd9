import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedList } from '../../src/sim/ordered-list.js';

/** The array the list stands for, changed the obvious way. */
function applyToArray(array: number[], op: { kind: 'push' | 'insert' | 'delete'; value: number }): void {
  if (op.kind === 'push') array.push(op.value);
  else if (op.kind === 'delete') {
    const at = array.indexOf(op.value);
    if (at >= 0) array.splice(at, 1);
  } else {
    let at = array.length;
    while (at > 0 && array[at - 1]! > op.value) at--;
    array.splice(at, 0, op.value);
  }
}

describe('OrderedList', () => {
  it('reads as the array it stands for after any pushes, ordered inserts and deletions', () => {
    const op = fc.record({ kind: fc.constantFrom('push' as const, 'insert' as const, 'delete' as const), value: fc.integer({ min: 0, max: 40 }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const list = new OrderedList<number>();
        const array: number[] = [];
        let nextId = 1000;
        for (const { kind, value } of ops) {
          // Items are distinct: pushes and inserts add fresh ones; deletions name a present or absent one.
          const item = kind === 'delete' ? (array.length > 0 ? array[value % array.length]! : value) : kind === 'push' ? nextId++ : value;
          if (kind !== 'delete' && list.has(item)) continue;
          if (kind === 'push') list.push(item);
          else if (kind === 'insert') list.insertFromBack(item, (other) => other <= item);
          else expect(list.delete(item)).toBe(array.includes(item));
          applyToArray(array, { kind, value: item });
          expect(list.size).toBe(array.length);
        }
        expect([...list.toArray()]).toEqual(array);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps its order when many inserts land in the same gap (positions renumbered)', () => {
    const list = new OrderedList<number>();
    list.push(0);
    list.push(1_000_000);
    // Each insert goes right after 0, halving the gap every time: precision runs out after ~50.
    for (let k = 1; k <= 200; k++) list.insertFromBack(1_000_000 - k, (other) => other === 0);
    const array = list.toArray();
    expect(array[0]).toBe(0);
    expect(array[array.length - 1]).toBe(1_000_000);
    expect(array.slice(1, -1)).toEqual(Array.from({ length: 200 }, (_, k) => 1_000_000 - 200 + k));
  });
});
