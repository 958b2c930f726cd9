import { describe, expect, it } from 'vitest';
import { quantiles } from '../../src/metrics/summary.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** The summary contract of DESIGN.md, key by key. */
const CONTRACT_KEYS = [
  'scenario',
  'policy',
  'seed',
  'jobs',
  'makespanS',
  'jctS',
  'queueDelayS',
  'waitS',
  'ettr',
  'runtimeRatio',
  'gpuAllocationRate',
  'gpuUtilization',
  'cpuAllocationRate',
  'faults',
  'restarts',
  'oomKills',
  'scalePlans',
  'lostGpuHours',
  'downtimeGpuHours',
  'events',
  'perf',
];

describe('run summary', () => {
  const jobs = [batchJob('a', 0, 8, 100), batchJob('b', 0, 8, 300), batchJob('c', 50, 8, 100)];
  const summary = simulate(scenarioOf(gpuCluster(2, 8), jobs)).summary;

  it('has every contract key, nested ones included', () => {
    expect(Object.keys(summary)).toEqual(CONTRACT_KEYS);
    expect(Object.keys(summary.jobs)).toEqual(['submitted', 'completed', 'failed', 'unfinished']);
    for (const key of ['jctS', 'queueDelayS', 'waitS'] as const) expect(Object.keys(summary[key])).toEqual(['mean', 'p50', 'p90', 'p99']);
    expect(Object.keys(summary.faults)).toEqual(['total', 'byType', 'daysWithFault']);
    expect(Object.keys(summary.perf)).toEqual(['wallS', 'eventsPerS']);
  });

  it('computes makespan, JCT, queueing and allocation from the schedule', () => {
    // a: 0-100, b: 0-300, c waits for a: 100-200.
    expect(summary.makespanS).toBe(300);
    expect(summary.jctS.mean).toBeCloseTo((100 + 300 + 150) / 3, 3);
    expect(summary.queueDelayS.mean).toBeCloseTo(50 / 3, 3);
    expect(summary.queueDelayS.p50).toBe(0);
    expect(summary.gpuAllocationRate).toBeCloseTo((8 * 100 + 8 * 300 + 8 * 100) / (16 * 300), 6);
    expect(summary.ettr).toBe(1);
  });

  it('gives zero quantiles for an empty set and d3 type-7 quantiles otherwise', () => {
    expect(quantiles([])).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0 });
    expect(quantiles([10, 0, 20, 30, 40])).toEqual({ mean: 20, p50: 20, p90: 36, p99: 39.6 });
  });

  it('counts jobs cut by the horizon as unfinished and ends the makespan there', () => {
    const cut = simulate(scenarioOf(gpuCluster(2, 8), jobs, { horizonS: 150 })).summary;
    expect(cut.jobs).toEqual({ submitted: 3, completed: 1, failed: 0, unfinished: 2 });
    expect(cut.makespanS).toBe(150);
  });
});
