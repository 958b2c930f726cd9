import { describe, expect, it } from 'vitest';
import { applyHeapPolicy, HEAP_GROWING_PERCENT } from '../../src/cli/heap-policy.js';

describe('heap policy', () => {
  it('sets the heap growth unless node was started with its own', () => {
    expect(applyHeapPolicy([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(applyHeapPolicy(['--heap-growing-percent=30'])).toBeNull();
    expect(applyHeapPolicy(['--heap_growing_percent=30'])).toBeNull();
    expect(applyHeapPolicy(['--max-old-space-size=4096'])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });
});
