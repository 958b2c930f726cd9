import { describe, expect, it } from 'vitest';
import { formatDurationS, parseDurationS } from '../../src/io/duration.js';

describe('parseDurationS', () => {
  it.each([
    [90, 90],
    [0, 0],
    [1.5, 1.5],
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['2.5h', 9000],
    ['1d', 86400],
    ['  2h ', 7200],
    ['.5m', 30],
    ['0s', 0],
  ] as const)('reads %j as %d seconds', (input, expectedS) => {
    expect(parseDurationS(input)).toBe(expectedS);
  });

  it.each([-1, -0.5, Infinity, NaN, '-5m', '5x', '1.', '', ' ', 'h', '1 h', '1h30m', '1e3s', 'abc'] as const)(
    'rejects %j',
    (input) => {
      expect(parseDurationS(input)).toBeNull();
    },
  );
});

describe('formatDurationS', () => {
  it.each([
    [90, '90s'],
    [900, '15m'],
    [7200, '2h'],
    [86400, '1d'],
    [5400, '90m'],
    [0, '0s'],
    [0.5, '0.5s'],
    [Infinity, 'infinity'],
  ] as const)('formats %d as %s', (seconds, text) => {
    expect(formatDurationS(seconds)).toBe(text);
  });

  it('is the inverse of parseDurationS', () => {
    for (const seconds of [1, 59, 60, 61, 3600, 3660, 86400, 172800, 90000]) {
      expect(parseDurationS(formatDurationS(seconds))).toBe(seconds);
    }
  });
});
