import { describe, expect, it } from 'vitest';
import { NodeStamps } from '../../src/model/node-stamps.js';

describe('node stamps', () => {
  it('gives each use a new stamp over an array long enough for its nodes', () => {
    const stamps = new NodeStamps();
    const a = stamps.next(4);
    const b = stamps.next(4);
    expect(b).not.toBe(a);
    expect(stamps.values.length).toBeGreaterThanOrEqual(4);
    const before = stamps.values;
    stamps.next(10);
    // Too short for 10 nodes: a new array, so a user holding the old one can tell.
    expect(stamps.values).not.toBe(before);
    expect(stamps.values.length).toBeGreaterThanOrEqual(10);
  });

  it('starts afresh, with a new array of unmarked nodes, when the stamps run out', () => {
    const stamps = new NodeStamps();
    stamps.next(3);
    stamps.values[1] = 7;
    stamps.last = 0xffffffff;
    const before = stamps.values;
    expect(stamps.next(3)).toBe(1);
    expect(stamps.values).not.toBe(before);
    expect([...stamps.values]).toEqual([0, 0, 0]);
  });
});
