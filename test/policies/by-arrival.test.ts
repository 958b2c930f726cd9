import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import { compareNumberLists } from '../../src/model/btree.js';
import { arrivalIndexOf, ByArrival, JobKeys } from '../../src/policies/scheduling/by-arrival.js';

describe('JobKeys: queued jobs ordered by keys kept in one array by arrival index', () => {
  it('orders jobs as their key lists order, keys written in any order and rewritten', () => {
    const key = fc.tuple(fc.integer({ min: -3, max: 3 }), fc.double({ min: -5, max: 5, noNaN: true }), fc.nat(4));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(300), key), { minLength: 1, maxLength: 60 }), (writes) => {
        const keys = new JobKeys();
        const last = new Map<number, readonly number[]>();
        for (const [index, k] of writes) {
          keys.write(index, k);
          last.set(index, k);
        }
        // Growth kept every key written before it, and a rewrite replaced the job's key.
        for (const [a, keyA] of last) {
          for (const [b, keyB] of last) expect(Math.sign(keys.compare(a, b))).toBe(Math.sign(compareNumberLists(keyA, keyB)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('takes no reference to the list it is given', () => {
    const keys = new JobKeys();
    const key = [2, 1];
    keys.write(0, key);
    keys.write(1, [2, 0]);
    key[1] = -1;
    expect(keys.compare(0, 1)).toBeGreaterThan(0);
  });

  it('refuses a key of another length than the first', () => {
    const keys = new JobKeys();
    keys.write(0, [1, 2]);
    expect(() => keys.write(1, [1, 2, 3])).toThrow(InvariantError);
    expect(() => keys.write(1, [1, 2, 3])).toThrow('an order key of 3 numbers where the queue\'s keys have 2');
  });
});

describe('arrivalIndexOf', () => {
  const job = (arrivalIndex: number) => ({ arrivalIndex, request: { id: 'j1' } });

  it('returns a whole number from 0', () => {
    expect(arrivalIndexOf(job(0))).toBe(0);
    expect(arrivalIndexOf(job(41))).toBe(41);
  });

  it('refuses a job without one, naming it', () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => arrivalIndexOf(job(bad))).toThrow(InvariantError);
    expect(() => arrivalIndexOf(job(-1))).toThrow('job j1: arrival index -1 is not a whole number from 0');
  });
});

describe('ByArrival: values per job by arrival index', () => {
  const job = (arrivalIndex: number) => ({ arrivalIndex, request: { id: `j${arrivalIndex}` } });

  it('keeps what a map by job would, through sets, overwrites and takes in any order', () => {
    const op = fc.tuple(fc.constantFrom('set', 'take'), fc.nat(200), fc.integer());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const values = new ByArrival<number>();
        const expected = new Map<number, number>();
        for (const [kind, index, value] of ops) {
          if (kind === 'set') {
            values.set(job(index), value);
            expected.set(index, value);
          } else {
            expect(values.take(job(index))).toBe(expected.get(index));
            expected.delete(index);
          }
          expect(values.size).toBe(expected.size);
        }
        for (let index = 0; index <= 200; index++) expect(values.get(job(index))).toBe(expected.get(index));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses to set a value for a job without an arrival index, naming it', () => {
    const values = new ByArrival<number>();
    expect(() => values.set(job(-1), 1)).toThrow('job j-1: arrival index -1 is not a whole number from 0');
    expect(values.size).toBe(0);
    expect(values.get(job(-1))).toBeUndefined();
    expect(values.take(job(-1))).toBeUndefined();
  });
});
