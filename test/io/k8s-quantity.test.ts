import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cpuQuantityError, formatCpu, formatMemory, memoryQuantityError, parseCpuMilli, parseMemMiB } from '../../src/io/k8s-quantity.js';

describe('Kubernetes CPU quantities', () => {
  it.each([
    ['2', 2000],
    ['0.5', 500],
    ['500m', 500],
    ['1.5', 1500],
    ['15', 15_000],
    ['0.1', 100],
    ['1e3', 1_000_000],
    ['2k', 2_000_000],
    ['0', 0],
    [2, 2000],
    [0.25, 250],
  ] as const)('%j is %i thousandths of a core', (text, cpuMilli) => {
    expect(parseCpuMilli(text)).toBe(cpuMilli);
  });

  it('rounds a finer value up to a whole thousandth, as Kubernetes does', () => {
    expect(parseCpuMilli('1.2341')).toBe(1235);
    expect(parseCpuMilli('100u')).toBe(1);
  });

  it.each(['', ' 2', '2 cores', '-1', '1.5.2', 'm', '2x', '1Gb', 'Infinity', '1e999'])('rejects %j', (text) => {
    expect(parseCpuMilli(text)).toBeNull();
  });

  it('rejects what is not a string or a number', () => {
    expect(parseCpuMilli(null)).toBeNull();
    expect(parseCpuMilli(true)).toBeNull();
    expect(parseCpuMilli(-2)).toBeNull();
    expect(parseCpuMilli(Number.NaN)).toBeNull();
  });

  it('names the bad value in its message', () => {
    expect(cpuQuantityError('2x')).toBe('expected a CPU quantity like "2", "0.5" or "500m", got "2x"');
    expect(cpuQuantityError(true)).toContain('got true');
  });

  it.each([
    [1000, '1'],
    [500, '500m'],
    [1500, '1500m'],
    [8000, '8'],
    [0, '0'],
    [1234.2, '1235m'],
  ])('%d thousandths are written %j', (cpuMilli, text) => {
    expect(formatCpu(cpuMilli)).toBe(text);
  });

  it('reads back what it writes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 4_096_000 }), (cpuMilli) => parseCpuMilli(formatCpu(cpuMilli)) === cpuMilli));
  });
});

describe('Kubernetes memory quantities', () => {
  it.each([
    ['4Gi', 4096],
    ['4170Mi', 4170],
    ['30000Mi', 30_000],
    ['3Gi', 3072],
    ['1Ti', 1_048_576],
    ['512Ki', 1], // half a MiB, rounded up
    ['4294967296', 4096],
    [4294967296, 4096],
    ['1048576', 1],
    ['0', 0],
  ] as const)('%j is %d MiB', (text, memMiB) => {
    expect(parseMemMiB(text)).toBe(memMiB);
  });

  it('rounds decimal units up to a whole MiB (3G = 2861.02 MiB)', () => {
    expect(parseMemMiB('3G')).toBe(2862);
    expect(parseMemMiB('1M')).toBe(1);
    expect(parseMemMiB('1')).toBe(1);
  });

  it.each(['4GB', '4 Gi', 'Gi', '-4Gi', '4gi', 'lots', '1e999'])('rejects %j', (text) => {
    expect(parseMemMiB(text)).toBeNull();
  });

  it('names the bad value in its message', () => {
    expect(memoryQuantityError('4GB')).toBe('expected a memory quantity like "4Gi", "4170Mi", "3G" or a number of bytes, got "4GB"');
  });

  it.each([
    [8192, '8Gi'],
    [4170, '4170Mi'],
    [1024, '1Gi'],
    [1536, '1536Mi'],
    [4096.3, '4097Mi'],
    [0, '0'],
  ])('%d MiB are written %j', (memMiB, text) => {
    expect(formatMemory(memMiB)).toBe(text);
  });

  it('reads back what it writes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 64 * 1024 * 1024 }), (memMiB) => parseMemMiB(formatMemory(memMiB)) === memMiB));
  });
});
