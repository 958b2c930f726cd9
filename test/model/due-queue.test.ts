import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../src/model/due-queue.js';

/** Adds (with due times that often coincide) and polls, interleaved. */
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), dueS: fc.integer({ min: 0, max: 20 }).map((t) => t / 4) }),
  fc.record({ kind: fc.constant('poll' as const), times: fc.integer({ min: 1, max: 30 }) }),
);

describe('DueQueue', () => {
  it('gives items earliest due first, equal times in the order added, as a stable sort of what it holds does', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 500 }), (ops) => {
        const queue = new DueQueue<number>();
        let held: { dueS: number; item: number }[] = [];
        let next = 0;
        for (const op of ops) {
          if (op.kind === 'add') {
            queue.add(op.dueS, next);
            held.push({ dueS: op.dueS, item: next++ });
            continue;
          }
          for (let k = 0; k < op.times; k++) {
            // Array sort is stable: equal times stay in the order added.
            held = held.sort((a, b) => a.dueS - b.dueS);
            expect(queue.size).toBe(held.length);
            expect(queue.nextDueS()).toBe(held.length === 0 ? Infinity : held[0]!.dueS);
            expect(queue.poll()).toBe(held.shift()?.item);
          }
        }
        expect(queue.size).toBe(held.length);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('keeps its order past many growths of its slots, with slots given back and used again', () => {
    const queue = new DueQueue<number>();
    const dueOf = (item: number): number => (item >= 5000 ? 999.5 : (item * 7919) % 1000);
    const byDue = (items: number[]): number[] => items.sort((a, b) => dueOf(a) - dueOf(b) || a - b);
    const all = Array.from({ length: 7000 }, (_, i) => i);
    for (const item of all.slice(0, 5000)) queue.add(dueOf(item), item);
    const polled: number[] = [];
    for (let i = 0; i < 2500; i++) polled.push(queue.poll()!);
    expect(polled).toEqual(byDue(all.slice(0, 5000)).slice(0, 2500));
    for (const item of all.slice(5000)) queue.add(dueOf(item), item);
    const rest: number[] = [];
    while (queue.size > 0) rest.push(queue.poll()!);
    expect(rest).toEqual(byDue([...byDue(all.slice(0, 5000)).slice(2500), ...all.slice(5000)]));
    expect(queue.poll()).toBeUndefined();
    expect(queue.nextDueS()).toBe(Infinity);
  });
});
