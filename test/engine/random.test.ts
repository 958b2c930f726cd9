import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';

function draws(streams: RandomStreams, name: string, n: number): number[] {
  const stream = streams.stream(name);
  return Array.from({ length: n }, () => stream.uniform());
}

describe('RandomStreams', () => {
  it('gives the same sequence for the same seed and name', () => {
    expect(draws(new RandomStreams(7), 'arrivals', 5)).toEqual(draws(new RandomStreams(7), 'arrivals', 5));
  });

  it('gives different sequences for different seeds or names', () => {
    const base = draws(new RandomStreams(7), 'arrivals', 5);
    expect(draws(new RandomStreams(8), 'arrivals', 5)).not.toEqual(base);
    expect(draws(new RandomStreams(7), 'faults', 5)).not.toEqual(base);
  });

  it('keeps streams independent: drawing from one does not shift another', () => {
    const quiet = new RandomStreams(3);
    const busy = new RandomStreams(3);
    draws(busy, 'faults', 1000);
    expect(draws(busy, 'arrivals', 10)).toEqual(draws(quiet, 'arrivals', 10));
  });

  it('draws exponentials with the requested mean', () => {
    const stream = new RandomStreams(11).stream('x');
    const n = 20_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += stream.exponential(0.5);
    // Mean 2, standard error 2/sqrt(n) ~ 0.014: a 5-sigma band.
    expect(Math.abs(sum / n - 2)).toBeLessThan(0.07);
  });

  it('draws log-normals whose median is the requested one', () => {
    const stream = new RandomStreams(5).stream('y');
    const values = Array.from({ length: 10_001 }, () => stream.logNormal(3600, 1.2)).sort((a, b) => a - b);
    const median = values[5000]!;
    expect(median / 3600).toBeGreaterThan(0.93);
    expect(median / 3600).toBeLessThan(1.07);
  });

  it('picks weighted indices in proportion to their weights', () => {
    const stream = new RandomStreams(9).stream('z');
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[stream.weightedIndex([1, 2, 7])]!++;
    expect(counts[0]! / 30_000).toBeCloseTo(0.1, 1);
    expect(counts[1]! / 30_000).toBeCloseTo(0.2, 1);
    expect(counts[2]! / 30_000).toBeCloseTo(0.7, 1);
  });
});
