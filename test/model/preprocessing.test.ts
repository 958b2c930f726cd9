import { describe, expect, it } from 'vitest';
import {
  drawPreprocessing,
  inputQueueLevelAfter,
  inputQueueLevelPerS,
  preprocessingSpeedFactor,
  PREPROCESSING_FAMILIES,
  supplyShare,
} from '../../src/model/preprocessing.js';

const video = { cpuMilliPerGpu: 64_000 };

describe('speed = min(compute, preprocessing supply)', () => {
  it('is the supply share below the need, full speed at and above it', () => {
    expect(supplyShare(video, 0)).toBe(0);
    expect(supplyShare(video, 8_000)).toBe(0.125);
    expect(supplyShare(video, 63_999)).toBeLessThan(1);
    expect(supplyShare(video, 64_000)).toBe(1);
    expect(supplyShare(video, 640_000)).toBe(1);
  });

  it('is relative to the supply a trace job was recorded at', () => {
    const traced = { ...video, observedAtCpuMilliPerGpu: 8_000 };
    expect(preprocessingSpeedFactor(traced, 8_000)).toBe(1);
    expect(preprocessingSpeedFactor(traced, 64_000)).toBe(8);
    expect(preprocessingSpeedFactor(traced, 2_000)).toBe(0.25);
    expect(preprocessingSpeedFactor(video, 32_000)).toBe(0.5);
    // A record taken at full speed: more CPU brings nothing.
    expect(preprocessingSpeedFactor({ cpuMilliPerGpu: 4_000, observedAtCpuMilliPerGpu: 8_000 }, 64_000)).toBe(1);
  });

  it('keeps a job without CPU in its record at its recorded speed', () => {
    expect(preprocessingSpeedFactor({ ...video, observedAtCpuMilliPerGpu: 0 }, 64_000)).toBe(1);
  });
});

describe('input queue', () => {
  it('fills while supply exceeds consumption, drains while it falls short, within [0, 1]', () => {
    expect(inputQueueLevelPerS(video, 128_000, 1)).toBeGreaterThan(0);
    expect(inputQueueLevelPerS(video, 64_000, 1)).toBe(0);
    expect(inputQueueLevelPerS(video, 8_000, 1)).toBeLessThan(0);
    expect(inputQueueLevelPerS(video, 8_000, 0.125)).toBe(0);
    expect(inputQueueLevelPerS(video, 8_000, 0)).toBeGreaterThan(0);
    expect(inputQueueLevelAfter(0.5, 0.1, 100)).toBe(1);
    expect(inputQueueLevelAfter(0.5, -0.1, 100)).toBe(0);
    expect(inputQueueLevelAfter(0.5, 0.01, 10)).toBeCloseTo(0.6, 12);
  });
});

describe('drawn preprocessing', () => {
  it('is fixed by its key', () => {
    expect(drawPreprocessing('1|job-7')).toEqual(drawPreprocessing('1|job-7'));
  });

  it('follows the families: 85% need more than 8 vCPU per GPU, 15% need 64 (20,000 keys)', () => {
    const n = 20_000;
    let above8 = 0;
    let whole = 0;
    for (let i = 0; i < n; i++) {
      const { cpuMilliPerGpu } = drawPreprocessing(`7|job-${i}`);
      if (cpuMilliPerGpu > 8_000) above8++;
      if (cpuMilliPerGpu === 64_000) whole++;
    }
    // Binomial standard errors are ~0.0025: four of them either side.
    expect(above8 / n).toBeGreaterThan(0.85 - 0.01);
    expect(above8 / n).toBeLessThan(0.85 + 0.01);
    expect(whole / n).toBeGreaterThan(0.15 - 0.01);
    expect(whole / n).toBeLessThan(0.15 + 0.01);
    expect(PREPROCESSING_FAMILIES.reduce((sum, f) => sum + f.weight, 0)).toBe(100);
  });
});
