import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { etaS, fitWidth, formatEta, formatRate, formatSimTime, runDetail, runFraction } from '../../src/cli/progress-format.js';
import type { SimProgress } from '../../src/sim/simulation.js';

const at = (over: Partial<SimProgress>): SimProgress => ({ simS: 0, startS: 0, horizonS: Infinity, jobsDone: 0, jobsTotal: 100, events: 0, done: false, ...over });

describe('runFraction', () => {
  it('is the share of jobs ended when the run has no horizon', () => {
    expect(runFraction(at({ jobsDone: 25, simS: 1e9 }))).toBe(0.25);
  });

  it('is the share of simulated time from the first submission to a finite horizon when that is further along', () => {
    expect(runFraction(at({ startS: 100, horizonS: 1100, simS: 600, jobsDone: 10 }))).toBe(0.5);
    expect(runFraction(at({ startS: 100, horizonS: 1100, simS: 200, jobsDone: 80 }))).toBe(0.8);
  });

  it('is 1 once the run is done, whatever its jobs, and 0 for a run of no jobs before its end', () => {
    expect(runFraction(at({ done: true, jobsDone: 3 }))).toBe(1);
    expect(runFraction(at({ jobsTotal: 0 }))).toBe(0);
  });

  it('stays within [0, 1] and grows with the jobs ended', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.double({ min: -1e6, max: 1e7, noNaN: true }), fc.option(fc.double({ min: 1, max: 1e7, noNaN: true })), (a, b, simS, horizon) => {
        const total = Math.max(a, b, 1);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const base = { simS, startS: 0, horizonS: horizon ?? Infinity, jobsTotal: total };
        const f = runFraction(at({ ...base, jobsDone: lo }));
        const g = runFraction(at({ ...base, jobsDone: hi }));
        expect(f).toBeGreaterThanOrEqual(0);
        expect(g).toBeLessThanOrEqual(1);
        expect(g).toBeGreaterThanOrEqual(f);
      }),
    );
  });
});

describe('etaS', () => {
  it('is the time left at the pace so far', () => {
    expect(etaS(0.25, 30)).toBe(90);
    expect(etaS(1, 30)).toBe(0);
  });

  it('is unknown while nothing is done', () => {
    expect(etaS(0, 30)).toBeNull();
  });
});

describe('formatting', () => {
  it('reads simulated time in the largest unit it reaches', () => {
    expect(formatSimTime(42)).toBe('42 s');
    expect(formatSimTime(750)).toBe('12.5 min');
    expect(formatSimTime(5 * 3600 + 720)).toBe('5.2 h');
    expect(formatSimTime(108.9 * 86_400)).toBe('108.9 d');
    expect(formatSimTime(-5)).toBe('0 s');
  });

  it('reads event rates in k and M', () => {
    expect(formatRate(812.4)).toBe('812 ev/s');
    expect(formatRate(12_345)).toBe('12.3k ev/s');
    expect(formatRate(1_204_000)).toBe('1.20M ev/s');
    expect(formatRate(Infinity)).toBe('0 ev/s');
  });

  it('reads an ETA in seconds, minutes or hours, and "--" when unknown', () => {
    expect(formatEta(null)).toBe('--');
    expect(formatEta(Infinity)).toBe('--');
    expect(formatEta(12.4)).toBe('12s');
    expect(formatEta(185)).toBe('3m05s');
    expect(formatEta(2 * 3600 + 7 * 60 + 9)).toBe('2h07m');
  });

  it('gives every ETA one of its three shapes', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e7, noNaN: true }), (s) => {
        expect(formatEta(s)).toMatch(/^(\d{1,2}s|\d{1,2}m\d\ds|\d+h\d\dm)$/);
      }),
    );
  });

  it('says simulated time (of a finite horizon) and jobs ended', () => {
    expect(runDetail(at({ simS: 7200, startS: 0, horizonS: 86_400, jobsDone: 3, jobsTotal: 9 }))).toBe('sim 2.0 h of 1.0 d | jobs 3/9');
    expect(runDetail(at({ simS: 90, jobsDone: 3, jobsTotal: 9 }))).toBe('sim 1.5 min | jobs 3/9');
  });

  it('cuts a line to the width and leaves a short one', () => {
    expect(fitWidth('abcdef', 4)).toBe('abcd');
    expect(fitWidth('abc', 4)).toBe('abc');
    expect(fitWidth('abc', 0)).toBe('abc');
  });
});
