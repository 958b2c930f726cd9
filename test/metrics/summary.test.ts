import { describe, expect, it } from 'vitest';
import { zeroJobRecord, type JobRecord } from '../../src/metrics/job-record.js';
import { buildSummary, quantiles, type SummaryInput } from '../../src/metrics/summary.js';
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
  'cpuStarvedWaitS',
  'dataWorkers',
  'waitByReason',
  'fairness',
  'perUser',
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
    expect(Object.keys(summary.cpuStarvedWaitS)).toEqual(['mean', 'total', 'share']);
    expect(Object.keys(summary.dataWorkers)).toEqual(['meanPerJob']);
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

/** A job record with the given times (seconds) and CPU-starved wait and data-worker-seconds; everything else zero. */
function record(phase: string, startS: number | null, endS: number | null, queuedS: number, cpuStarvedWaitS: number, dataWorkerS: number): JobRecord {
  return zeroJobRecord({
    phase,
    firstStartS: startS,
    endS,
    queuedS,
    cpuStarvedWaitS,
    dataWorkerS,
    queueS: (nowS) => (startS ?? endS ?? nowS),
    wallSinceStartS: (nowS) => (startS === null ? 0 : (endS ?? nowS) - startS),
  });
}

/** The summary of these job records at 1000 s on an empty 8-GPU cluster. */
function summaryOf(jobs: JobRecord[]): ReturnType<typeof buildSummary> {
  const input: SummaryInput = {
    scenario: 's',
    policy: 'p',
    seed: 1,
    jobs,
    endS: 1000,
    totalGpus: 8,
    totalCpuMilli: 96_000,
    allocatedGpuS: 0,
    busyGpuS: 0,
    allocatedCpuMilliS: 0,
    faultsByType: {},
    events: 0,
  };
  return buildSummary(input);
}

describe('CPU-starved waiting and data workers in the summary', () => {
  it('gives mean and total CPU-starved seconds per completed job and their share of the completed jobs\' waiting', () => {
    const summary = summaryOf([
      record('completed', 100, 200, 100, 60, 0),
      record('completed', 300, 400, 300, 0, 0),
      record('completed', 0, 50, 0, 0, 0),
      // Unfinished and failed jobs are left out, as for waitS.
      record('queued', null, null, 1000, 900, 0),
      record('failed', 10, 20, 10, 10, 0),
    ]);
    expect(summary.cpuStarvedWaitS).toEqual({ mean: 20, total: 60, share: 0.15 });
  });

  it('gives zeros when no completed job waited', () => {
    expect(summaryOf([record('completed', 0, 10, 0, 0, 0)]).cpuStarvedWaitS).toEqual({ mean: 0, total: 0, share: 0 });
    expect(summaryOf([]).cpuStarvedWaitS).toEqual({ mean: 0, total: 0, share: 0 });
  });

  it('rounds the way other seconds and ratios are rounded', () => {
    const summary = summaryOf([record('completed', 3, 10, 3, 1, 0), record('completed', 0, 10, 0, 0, 0), record('completed', 0, 10, 0, 0, 0)]);
    expect(summary.cpuStarvedWaitS).toEqual({ mean: 0.333, total: 1, share: 0.333333 });
  });

  it('averages data workers per completed job over its time from first start to end; a job without data workers counts 0', () => {
    const summary = summaryOf([
      // 2 workers over 100 s, and 3 workers' worth over 300 s.
      record('completed', 100, 200, 0, 0, 200),
      record('completed', 100, 400, 0, 0, 900),
      record('completed', 0, 100, 0, 0, 0),
      record('running', 0, null, 0, 0, 5000),
    ]);
    expect(summary.dataWorkers.meanPerJob).toBeCloseTo((2 + 3 + 0) / 3, 6);
    expect(summaryOf([]).dataWorkers.meanPerJob).toBe(0);
  });

  it("reads a job's data-worker-seconds from its data state (0 without one)", () => {
    const jobs = [batchJob('a', 0, 8, 100)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs));
    const job = result.jobs[0]!;
    expect(job.dataWorkerS).toBe(0);
    job.dataState = { workers: 2, workerS: 150, sinceS: 100, level: 1, levelAtS: 100, levelPerS: 0, cpuMilliPerGpu: null };
    expect(job.dataWorkerS).toBe(150);
  });
});

describe('time ratios in the summary', () => {
  /** A completed job started at 0 that ended at `wallS`, with effective seconds and the GPU- and CPU-seconds it held. */
  const trained = (wallS: number, effectiveS: number, gpuS: number, cpuMilliS: number): JobRecord =>
    zeroJobRecord({
      phase: 'completed',
      firstStartS: 0,
      endS: wallS,
      attainedGpuS: gpuS,
      attainedCpuMilliS: cpuMilliS,
      wallSinceStartS: () => wallS,
      effectiveS: () => effectiveS,
      processRuntimeS: () => wallS,
    });

  it('weights each started job by the GPU-seconds it held, leaving out jobs that held none', () => {
    // ETTR 1 at weight 300 and 0.5 at weight 100; the CPU-only job (ETTR 0.25) weighs nothing.
    const summary = summaryOf([trained(100, 100, 300, 1), trained(100, 50, 100, 1), trained(100, 25, 0, 1_000_000)]);
    expect(summary.ettr).toBeCloseTo((300 * 1 + 100 * 0.5) / 400, 6);
  });

  it('weights by CPU milli-core-seconds held when no started job held GPUs', () => {
    const summary = summaryOf([trained(100, 100, 0, 3000), trained(100, 50, 0, 1000), trained(100, 25, 0, 0)]);
    expect(summary.ettr).toBeCloseTo((3000 * 1 + 1000 * 0.5) / 4000, 6);
    expect(summary.runtimeRatio).toBe(1);
  });
});
