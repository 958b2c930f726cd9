import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/engine/event-queue.js';

describe('EventQueue', () => {
  it('pops by time, ties in the order pushed, under any mix of pushes and pops', () => {
    // A push is a time (few distinct values, so ties are common); null is a pop.
    const op = fc.oneof(fc.integer({ min: 0, max: 20 }).map((t) => t / 4), fc.constant(null));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const queue = new EventQueue<number>();
        // The reference: every pending event, kept sorted by (time, push order).
        const pending: { timeS: number; id: number }[] = [];
        let id = 0;
        for (const timeS of ops) {
          if (timeS === null) {
            const expected = pending.shift();
            expect(queue.peekTimeS()).toBe(expected?.timeS ?? Infinity);
            expect(queue.peek()).toBe(expected?.id);
            expect(queue.pop()).toBe(expected?.id);
          } else {
            const at = pending.findIndex((e) => e.timeS > timeS);
            pending.splice(at < 0 ? pending.length : at, 0, { timeS, id });
            queue.push(timeS, id++);
          }
          expect(queue.size).toBe(pending.length);
        }
        const rest: number[] = [];
        for (let e = queue.pop(); e !== undefined; e = queue.pop()) rest.push(e);
        expect(rest).toEqual(pending.map((e) => e.id));
        expect(queue.size).toBe(0);
        expect(queue.peekTimeS()).toBe(Infinity);
      }),
      { numRuns: 300 },
    );
  });

  it('grows past its first room and keeps the order', () => {
    const queue = new EventQueue<string>();
    const n = 1000;
    // Pushed in reverse time order, every fourth time twice.
    for (let k = n - 1; k >= 0; k--) {
      queue.push(k, `a${k}`);
      if (k % 4 === 0) queue.push(k, `b${k}`);
    }
    const out: string[] = [];
    for (let e = queue.pop(); e !== undefined; e = queue.pop()) out.push(e);
    const expected: string[] = [];
    for (let k = 0; k < n; k++) {
      expected.push(`a${k}`);
      if (k % 4 === 0) expected.push(`b${k}`);
    }
    expect(out).toEqual(expected);
  });
});
