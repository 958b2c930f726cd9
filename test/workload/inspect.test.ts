import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../src/model/job-spec.js';
import { gpuDemandBucket, inspectJobs } from '../../src/workload/inspect.js';
import { batchJob, gpuDemand } from '../helpers.js';

function sharedJob(id: string, submitS: number, gpuMilli: number, durationS: number): JobSpec {
  return { ...batchJob(id, submitS, 1, durationS), roles: [{ role: 'worker', replicas: 1, demand: { ...gpuDemand(1), gpuMilli } }] };
}

/** An async PS job on CPUs: 4 workers, 2 PS; 2 steps/s at that shape, so 7,200 steps take 3,600 s. */
function psJob(id: string, submitS: number): JobSpec {
  return {
    id,
    kind: 'ps',
    submitS,
    user: 'carol',
    gpuTypes: [],
    roles: [
      { role: 'worker', replicas: 4, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 16384 } },
      { role: 'ps', replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 32768 } },
    ],
    elastic: null,
    // w / (t0 + t1 w/p + t2 w + t3 p) = 4 / (1 + 0.25*2 + 0.0 + 0.25*2) = 2 steps/s
    totalSteps: 7200,
    speed: { kind: 'ps-async', t0: 1, t1: 0.25, t2: 0, t3: 0.25 },
    source: 'test',
  };
}

/** An all-reduce job of 2 x 8 GPUs with a 2 s step (1.5 s compute + 0.5 s communication). */
function allreduceJob(id: string, submitS: number): JobSpec {
  return {
    ...batchJob(id, submitS, 8, 0, 2),
    kind: 'allreduce',
    totalSteps: 1000,
    speed: { kind: 'allreduce', computeS: 1.5, commS: 0.5 },
    user: 'dave',
    traceStatus: 'Failed',
  };
}

const JOBS: JobSpec[] = [
  { ...batchJob('a', 100, 1, 60), user: 'alice', traceStatus: 'Succeeded' },
  { ...sharedJob('b', 3700, 500, 120), user: 'alice', traceStatus: 'Succeeded' },
  { ...batchJob('c', 86400 + 3600 * 5, 8, 600, 4), user: 'bob' },
  psJob('d', 7200),
  allreduceJob('e', 2 * 86400 + 100),
];

async function* asAsync(jobs: readonly JobSpec[]): AsyncGenerator<JobSpec> {
  for (const job of jobs) yield job;
}

describe('gpuDemandBucket', () => {
  it('buckets CPU-only, shared, single and power-of-two ranges', () => {
    expect(gpuDemandBucket(0)).toBe('0');
    expect(gpuDemandBucket(0.47)).toBe('<1');
    expect(gpuDemandBucket(1)).toBe('1');
    expect(gpuDemandBucket(2)).toBe('2');
    expect(gpuDemandBucket(3)).toBe('3-4');
    expect(gpuDemandBucket(1.88)).toBe('2');
    expect(gpuDemandBucket(8)).toBe('5-8');
    expect(gpuDemandBucket(9)).toBe('9-16');
    expect(gpuDemandBucket(1024)).toBe('513-1024');
  });
});

describe('inspectJobs', () => {
  it('counts jobs, span, users, kinds and status (unknown when absent)', async () => {
    const stats = await inspectJobs(JOBS);
    expect(stats.jobs).toBe(5);
    expect(stats.span).toEqual({ firstSubmitS: 100, lastSubmitS: 2 * 86400 + 100, spanS: 2 * 86400 });
    expect(stats.arrivals.meanPerHour).toBeCloseTo(5 / 48);
    expect(stats.users).toBe(4);
    expect(stats.kinds).toEqual({ batch: 3, allreduce: 1, ps: 1 });
    expect(stats.status).toEqual({ unknown: 2, Succeeded: 2, Failed: 1 });
  });

  it('counts arrivals by hour of day from submitS mod 86400', async () => {
    const stats = await inspectJobs(JOBS);
    const expected = new Array(24).fill(0);
    expected[0] = 2; // a at 100 s and e at 2 days + 100 s
    expected[1] = 1; // b
    expected[2] = 1; // d
    expected[5] = 1; // c, the next day
    expect(stats.arrivals.byHourOfDay).toEqual(expected);
  });

  it('histograms total GPUs per job, shared GPUs as fractions', async () => {
    const stats = await inspectJobs(JOBS);
    expect(stats.gpuDemand).toEqual([
      { bucket: '0', jobs: 1, share: 0.2 },
      { bucket: '<1', jobs: 1, share: 0.2 },
      { bucket: '1', jobs: 1, share: 0.2 },
      { bucket: '9-16', jobs: 1, share: 0.2 },
      { bucket: '17-32', jobs: 1, share: 0.2 },
    ]);
    expect(stats.multiGpuShare).toBeCloseTo(0.4);
  });

  it('measures durations as totalSteps over the nominal speed of each speed model', async () => {
    // durations: a 60, b 120, c 600, d 3600 (7,200 steps at 2/s), e 2000 (1,000 steps of 2 s)
    const stats = await inspectJobs(JOBS);
    expect(stats.durationS.p50).toBeCloseTo(600);
    expect(stats.durationS.mean).toBeCloseTo((60 + 120 + 600 + 3600 + 2000) / 5);
    expect(stats.durationS.p10).toBeCloseTo(60 + 0.4 * 60);
    expect(stats.durationS.p99).toBeLessThanOrEqual(3600);
    expect(stats.durationS.p99).toBeGreaterThan(3500);
    expect(stats.durationUnknown).toBe(0);
  });

  it('gives the same answer for an async stream as for an array', async () => {
    expect(await inspectJobs(asAsync(JOBS))).toEqual(await inspectJobs(JOBS));
  });

  it('computes quantiles like d3 on a known set', async () => {
    const jobs = Array.from({ length: 100 }, (_, i) => batchJob(`j${i}`, i, 1, i + 1));
    const stats = await inspectJobs(jobs);
    const expected = { p10: 10.9, p50: 50.5, p90: 90.1, p99: 99.01, mean: 50.5 };
    for (const [key, value] of Object.entries(expected)) expect(stats.durationS[key as keyof typeof expected], key).toBeCloseTo(value, 9);
  });

  it('reports zeros, not NaN, for an empty trace', async () => {
    const stats = await inspectJobs([]);
    expect(stats.jobs).toBe(0);
    expect(stats.span).toEqual({ firstSubmitS: 0, lastSubmitS: 0, spanS: 0 });
    expect(stats.arrivals.meanPerHour).toBe(0);
    expect(stats.multiGpuShare).toBe(0);
    expect(stats.durationS).toEqual({ p10: 0, p50: 0, p90: 0, p99: 0, mean: 0 });
    expect(stats.gpuDemand).toEqual([]);
    expect(JSON.stringify(stats)).not.toMatch(/null|NaN/);
  });
});
