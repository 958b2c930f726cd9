import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedList, type ListLink } from '../../src/sim/ordered-list.js';

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

/** Keys the lists of the property tests take (values and fresh ids stay below it). */
const KEYS = 2_000;

/** An item that keeps its own link (as jobs do in the job control's lists). */
interface Boxed {
  readonly value: number;
  link: ListLink<Boxed> | null;
}

/**
 * Runs random pushes, ordered inserts and deletions on `list` (items made by `itemOf` from
 * distinct numbers, read back by `valueOf`) and on an array, checking they read the same.
 */
function checkAgainstArray<T>(makeList: () => OrderedList<T>, itemOf: (value: number) => T, valueOf: (item: T) => number): void {
  const op = fc.record({ kind: fc.constantFrom('push' as const, 'insert' as const, 'delete' as const), value: fc.integer({ min: 0, max: 40 }) });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const list = makeList();
      const items = new Map<number, T>();
      const item = (value: number): T => items.get(value) ?? (items.set(value, itemOf(value)), items.get(value)!);
      const array: number[] = [];
      let nextId = 1000;
      for (const { kind, value } of ops) {
        // Items are distinct: pushes and inserts add fresh ones; deletions name a present or absent one.
        const chosen = kind === 'delete' ? (array.length > 0 ? array[value % array.length]! : value) : kind === 'push' ? nextId++ : value;
        if (kind !== 'delete' && list.has(item(chosen))) continue;
        if (kind === 'push') list.push(item(chosen));
        else if (kind === 'insert') list.insertByKey(item(chosen));
        else expect(list.delete(item(chosen))).toBe(array.includes(chosen));
        applyToArray(array, { kind, value: chosen });
        expect(list.size).toBe(array.length);
      }
      expect(list.toArray().map(valueOf)).toEqual(array);
      expect([...list.values()].map(valueOf)).toEqual(array);
    }),
    { numRuns: 200 },
  );
}

describe('OrderedList', () => {
  it('reads as the array it stands for after any pushes, ordered inserts and deletions', () => {
    checkAgainstArray(
      () => new OrderedList<number>(undefined, { of: (value) => value, count: () => KEYS }),
      (value) => value,
      (value) => value,
    );
  });

  it('reads the same when each item keeps its link in a field of its own', () => {
    checkAgainstArray(
      () => new OrderedList<Boxed>({ get: (item) => item.link, set: (item, link) => void (item.link = link) }, { of: (item) => item.value, count: () => KEYS }),
      (value): Boxed => ({ value, link: null }),
      (item) => item.value,
    );
  });

  it('keeps its order when many inserts land in the same gap (positions renumbered)', () => {
    const list = new OrderedList<number>(undefined, { of: (value) => value, count: () => 1_000_001 });
    list.push(0);
    list.push(1_000_000);
    // Each insert goes right after 0, halving the gap every time: precision runs out after ~50.
    let renumbered = 0;
    for (let k = 1; k <= 200; k++) if (list.insertByKey(1_000_000 - k)) renumbered++;
    expect(renumbered).toBeGreaterThan(0);
    const array = list.toArray();
    expect(array[0]).toBe(0);
    expect(array[array.length - 1]).toBe(1_000_000);
    expect(array.slice(1, -1)).toEqual(Array.from({ length: 200 }, (_, k) => 1_000_000 - 200 + k));
  });
});

describe('ordered list walk', () => {
  it("reads each item's successor when asked for it, so a change made during the walk shows, and stays done once done", () => {
    const list = new OrderedList<string>();
    for (const item of ['a', 'b', 'c', 'd']) list.push(item);
    const seen: string[] = [];
    for (const item of list.values()) {
      seen.push(item);
      // Taking out the item after the one just read: the walk does not reach it.
      if (item === 'a') list.delete('b');
      // Appending while at the last item: the walk reaches the new one.
      if (item === 'd') list.push('e');
    }
    expect(seen).toEqual(['a', 'c', 'd', 'e']);
    const walk = list.values()[Symbol.iterator]();
    const read: string[] = [];
    for (let r = walk.next(); !r.done; r = walk.next()) read.push(r.value);
    expect(read).toEqual(['a', 'c', 'd', 'e']);
    list.push('f');
    expect(walk.next().done).toBe(true);
  });

  it('reads the same items however often what values() gave is read, each read walking on its own', () => {
    const list = new OrderedList<string>();
    for (const item of ['a', 'b', 'c']) list.push(item);
    list.delete('b');
    const items = list.values();
    // Two iterators asked for before either is read: neither moves the other.
    const first = items[Symbol.iterator]();
    const second = items[Symbol.iterator]();
    expect(first.next().value).toBe('a');
    expect([...{ [Symbol.iterator]: () => second }]).toEqual(['a', 'c']);
    expect(first.next().value).toBe('c');
    expect(first.next().done).toBe(true);
    // Read again after a read that stopped early, and after one that ran to the end.
    for (const item of items) if (item === 'a') break;
    expect([...items]).toEqual(['a', 'c']);
    expect([...items]).toEqual(['a', 'c']);
  });
});
