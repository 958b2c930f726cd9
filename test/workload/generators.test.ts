import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from 'd3-array';
import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { requestedGpus, type JobSpec } from '../../src/model/job-spec.js';
import { nominalStepsPerS, stepsPerS } from '../../src/model/speed.js';
import { nativeLine, parseNativeLine } from '../../src/workload/formats/native.js';
import {
  PAI_ARRIVAL_WEIGHT_BY_HOUR,
  PAI_ARRIVALS_PER_HOUR,
  PAI_DURATION_MEDIAN_S,
  PAI_DURATION_QUANTILES,
  PAI_PS_JOB_SHARE,
  PAI_REQUESTS_CPU_ONLY,
  PAI_REQUESTS_PER_WHOLE_GPU,
  PAI_REQUESTS_SHARED,
  PAI_SHAPES,
  PAI_SHARED_GPU_MILLI,
  PAI_SHARED_SHARE_OF_GPU_JOBS,
  type PaiShape,
} from '../../src/workload/generators/alibaba-pai.js';
import {
  ANT_LLM_JOB_SHARE,
  ANT_LLM_WORKERS,
  ANT_PS_DURATION_MAX_S,
  ANT_PS_DURATION_MEDIAN_S,
  ANT_PS_DURATION_MIN_S,
  ANT_PS_SPEED_BASE,
} from '../../src/workload/generators/ant.js';
import {
  PHILLY_ARRIVAL_WEIGHT_BY_HOUR,
  PHILLY_ARRIVALS_PER_HOUR,
  PHILLY_DURATION_CLASSES,
  PHILLY_DURATION_MEDIAN_S,
  PHILLY_GPU_MIX,
  PHILLY_VIRTUAL_CLUSTERS,
  phillyDurationClass,
} from '../../src/workload/generators/philly.js';
import { diurnalArrivalsS, quantileAt, splitGpus, weightShare } from '../../src/workload/generators/sampling.js';
import { generatorStyleIds, generatorStyles } from '../../src/workload/generators/styles.js';
import { inspectJobs } from '../../src/workload/inspect.js';
import { sharedTrace } from '../shared-traces.js';

const N = 20_000;

/** Jobs of a style, generated once per seed for the whole file (20,000 jobs take a moment). */
const cache = new Map<string, JobSpec[]>();
function jobsOf(style: string, seed = 1): JobSpec[] {
  const key = `${style}:${seed}`;
  let jobs = cache.get(key);
  if (!jobs) {
    jobs = generatorStyles[style]!.generate(N, new RandomStreams(seed));
    cache.set(key, jobs);
  }
  return jobs;
}

/** Allowed deviation of an observed share from p over n draws: 5 standard errors (a false alarm is ~1e-6). */
function shareTolerance(p: number, n: number): number {
  return 5 * Math.sqrt((p * (1 - p)) / n) + 1e-9;
}

function durationS(job: JobSpec): number {
  return job.totalSteps / nominalStepsPerS(job);
}

function shareOf<T>(items: readonly T[], test: (item: T) => boolean): number {
  let n = 0;
  for (const item of items) if (test(item)) n++;
  return n / items.length;
}

describe('sampling helpers', () => {
  it('interpolates quantile tables log-linearly and hits the points exactly', () => {
    const table = [[0, 10], [0.5, 100], [1, 1000]] as const;
    expect(quantileAt(table, 0)).toBeCloseTo(10);
    expect(quantileAt(table, 0.5)).toBeCloseTo(100);
    expect(quantileAt(table, 0.25)).toBeCloseTo(Math.sqrt(10 * 100));
    expect(quantileAt(table, 0.999999)).toBeLessThanOrEqual(1000);
  });

  it('splits jobs over 8 GPUs into equal workers of at most one node', () => {
    expect(splitGpus(4, 8)).toEqual({ replicas: 1, gpusPerReplica: 4 });
    expect(splitGpus(32, 8)).toEqual({ replicas: 4, gpusPerReplica: 8 });
    expect(splitGpus(12, 8)).toEqual({ replicas: 2, gpusPerReplica: 6 });
    expect(splitGpus(24, 8)).toEqual({ replicas: 3, gpusPerReplica: 8 });
  });

  it('gives diurnal arrivals at the mean rate, more of them in heavier hours', () => {
    const weights = Array.from({ length: 24 }, (_, h) => (h < 12 ? 3 : 1));
    const times = diurnalArrivalsS(N, 100, weights, new RandomStreams(3).stream('arrivals'));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const hours = times[times.length - 1]! / 3600;
    expect(N / hours).toBeGreaterThan(95);
    expect(N / hours).toBeLessThan(105);
    const morning = shareOf(times, (t) => t % 86400 < 43200);
    expect(Math.abs(morning - 0.75)).toBeLessThan(shareTolerance(0.75, N));
  });

  it('rejects a weight table that is not 24 non-negative hours', () => {
    const stream = new RandomStreams(1).stream('arrivals');
    expect(() => diurnalArrivalsS(1, 1, [1, 2], stream)).toThrow(/24 hourly weights/);
    expect(() => diurnalArrivalsS(1, 1, new Array(24).fill(0), stream)).toThrow(/positive sum/);
  });
});

describe('generator styles (shared contract)', () => {
  it('registers philly, alibaba-pai and ant with a one-line description', () => {
    expect(generatorStyleIds()).toEqual(['philly', 'alibaba-pai', 'ant']);
    for (const id of generatorStyleIds()) {
      expect(generatorStyles[id]!.description).toMatch(/^[^\n]{20,160}$/);
    }
  });

  for (const style of generatorStyleIds()) {
    describe(style, () => {
      it('is a pure function of the seed, and another seed gives other jobs', () => {
        const a = generatorStyles[style]!.generate(300, new RandomStreams(42));
        const b = generatorStyles[style]!.generate(300, new RandomStreams(42));
        const c = generatorStyles[style]!.generate(300, new RandomStreams(43));
        expect(a).toEqual(b);
        expect(c.map((j) => j.submitS)).not.toEqual(a.map((j) => j.submitS));
        expect(c.map((j) => j.totalSteps)).not.toEqual(a.map((j) => j.totalSteps));
      });

      it('makes exactly the jobs asked for, sorted by submission, with unique ids', () => {
        const jobs = jobsOf(style);
        expect(jobs).toHaveLength(N);
        expect(new Set(jobs.map((j) => j.id)).size).toBe(N);
        expect(jobs.every((job, i) => i === 0 || job.submitS >= jobs[i - 1]!.submitS)).toBe(true);
      });

      it('makes valid jobs that survive the native format unchanged', () => {
        const problems: string[] = [];
        for (const job of jobsOf(style)) {
          if (!job.roles.some((r) => r.role === 'worker')) problems.push(`${job.id}: no worker role`);
          for (const role of job.roles) {
            if (!Number.isInteger(role.replicas) || role.replicas < 1) problems.push(`${job.id}: ${role.replicas} ${role.role} replicas`);
            if (role.demand.gpuMilli < 1000 && role.demand.gpus !== 1) problems.push(`${job.id}: shared GPU with ${role.demand.gpus} GPUs`);
          }
          if (!(job.totalSteps > 0) || !(nominalStepsPerS(job) > 0)) problems.push(`${job.id}: no work or no speed`);
        }
        expect(problems).toEqual([]);
        for (const job of jobsOf(style).slice(0, 2000)) {
          expect(parseNativeLine(nativeLine(job), 'test.jsonl', 1)).toEqual(job);
        }
      });

      it('draws its arrival times from the "arrivals" stream only', () => {
        const jobs = generatorStyles[style]!.generate(200, new RandomStreams(9));
        const streams = new RandomStreams(9);
        // Drawing from other streams first must not change the arrivals.
        streams.stream('job-shapes').uniform();
        streams.stream('durations').uniform();
        const again = generatorStyles[style]!.generate(200, streams);
        expect(again.map((j) => j.submitS)).toEqual(jobs.map((j) => j.submitS));
      });
    });
  }
});

/** Runs a measurement script of scripts/ on a real trace and returns its JSON. */
function measure(script: string, trace: string): any {
  const path = join(import.meta.dirname, '../../scripts', script);
  return JSON.parse(execFileSync(process.execPath, [path, trace], { encoding: 'utf8' }));
}

describe('measured constants', () => {
  const philly = sharedTrace('philly-pollux/philly.csv');
  it.skipIf(philly === null)('philly.ts holds what scripts/measure-philly.mjs measures', () => {
    const m = measure('measure-philly.mjs', philly!);
    expect(m.gpuMix.map((g: { gpus: number; count: number }) => ({ value: g.gpus, weight: g.count }))).toEqual(PHILLY_GPU_MIX);
    expect(m.durationS.bySizeClass.map((c: { quantiles: unknown }) => c.quantiles)).toEqual(PHILLY_DURATION_CLASSES.map((c) => c.quantiles));
    expect(m.durationS.quantiles.find((q: { p: number }) => q.p === 0.5).durationS).toBe(PHILLY_DURATION_MEDIAN_S);
    expect(m.meanArrivalsPerHour).toBe(PHILLY_ARRIVALS_PER_HOUR);
    expect(m.arrivalWeightByHour).toEqual(PHILLY_ARRIVAL_WEIGHT_BY_HOUR);
    expect(m.virtualClusters.map((v: { cluster: string; count: number }) => ({ value: `vc-${v.cluster}`, weight: v.count }))).toEqual(
      PHILLY_VIRTUAL_CLUSTERS,
    );
  });

  const pods = sharedTrace('alibaba-gpu-v2023/openb_pod_list_default.csv');
  it.skipIf(pods === null)('alibaba-pai.ts holds what scripts/measure-alibaba-pods.mjs measures', () => {
    const m = measure('measure-alibaba-pods.mjs', pods!);
    const count = (shape: string): number => m.shapes.find((s: { shape: string }) => s.shape === shape).count;
    expect(PAI_SHAPES.map((e) => e.weight)).toEqual([count('cpu-only'), count('shared'), count('1'), count('2'), count('4'), count('8')]);
    expect(PAI_SHARED_SHARE_OF_GPU_JOBS).toBeCloseTo(m.sharedShareOfGpuPods, 4);
    expect(m.sharedGpuMilli.map((e: { gpuMilli: number; count: number }) => ({ value: e.gpuMilli, weight: e.count }))).toEqual(
      PAI_SHARED_GPU_MILLI,
    );
    const table = (requests: { cpuMilli: number; memMiB: number; count: number }[]) =>
      requests.map(({ cpuMilli, memMiB, count: weight }) => ({ value: { cpuMilli, memMiB }, weight }));
    expect(table(m.requestsPerGpuWhole.requests)).toEqual(PAI_REQUESTS_PER_WHOLE_GPU);
    expect(table(m.requestsShared.requests)).toEqual(PAI_REQUESTS_SHARED);
    expect(table(m.requestsCpuOnly.requests)).toEqual(PAI_REQUESTS_CPU_ONLY);
    expect(m.creation.meanCreationsPerHour).toBe(PAI_ARRIVALS_PER_HOUR);
    expect(m.creation.weightByHour).toEqual(PAI_ARRIVAL_WEIGHT_BY_HOUR);
  });

  it('places the PAI duration quantiles on the cited mean of 5,039 s (within 1%)', () => {
    let meanS = 0;
    for (let i = 1; i < PAI_DURATION_QUANTILES.length; i++) {
      const [p0, v0] = PAI_DURATION_QUANTILES[i - 1]!;
      const [p1, v1] = PAI_DURATION_QUANTILES[i]!;
      meanS += (p1 - p0) * ((v1 - v0) / Math.log(v1 / v0)); // mean of a log-uniform segment
    }
    expect(Math.abs(meanS / 5039 - 1)).toBeLessThan(0.01);
    expect(quantileAt(PAI_DURATION_QUANTILES, 0.5)).toBe(PAI_DURATION_MEDIAN_S);
  });
});

describe('philly', () => {
  it('reproduces the measured GPU-count mix', () => {
    const jobs = jobsOf('philly');
    for (const { value: gpus } of PHILLY_GPU_MIX) {
      const expected = weightShare(PHILLY_GPU_MIX, gpus);
      const observed = shareOf(jobs, (j) => requestedGpus(j) === gpus);
      expect(Math.abs(observed - expected), `${gpus} GPUs`).toBeLessThan(shareTolerance(expected, N));
    }
  });

  it('reproduces the measured duration median overall and per size class', () => {
    const jobs = jobsOf('philly');
    const durations = jobs.map(durationS);
    expect(Math.abs(shareOf(durations, (d) => d <= PHILLY_DURATION_MEDIAN_S) - 0.5)).toBeLessThan(0.03);
    expect(median(durations)! / PHILLY_DURATION_MEDIAN_S).toBeGreaterThan(0.85);
    expect(median(durations)! / PHILLY_DURATION_MEDIAN_S).toBeLessThan(1.15);
    const oneGpu = jobs.filter((j) => requestedGpus(j) === 1).map(durationS);
    const oneGpuMedianS = quantileAt(phillyDurationClass(1).quantiles, 0.5);
    expect(Math.abs(shareOf(oneGpu, (d) => d <= oneGpuMedianS) - 0.5)).toBeLessThan(shareTolerance(0.5, oneGpu.length));
    const eightGpu = jobs.filter((j) => requestedGpus(j) === 8).map(durationS);
    expect(median(eightGpu)!).toBeGreaterThan(5 * oneGpuMedianS);
  });

  it('splits jobs over 8 GPUs into workers of 8 at most, all whole GPUs', () => {
    const problems: string[] = [];
    for (const job of jobsOf('philly')) {
      const worker = job.roles[0]!;
      if (worker.demand.gpus > 8 || worker.demand.gpuMilli !== 1000 || job.kind !== 'batch') problems.push(`${job.id}: ${JSON.stringify(worker)}`);
      if (requestedGpus(job) > 8 && worker.replicas < 2) problems.push(`${job.id}: ${requestedGpus(job)} GPUs in one worker`);
    }
    expect(problems).toEqual([]);
  });

  it('follows the measured daily arrival pattern and mean rate', async () => {
    const stats = await inspectJobs(jobsOf('philly'));
    expect(stats.arrivals.meanPerHour / PHILLY_ARRIVALS_PER_HOUR).toBeGreaterThan(0.95);
    expect(stats.arrivals.meanPerHour / PHILLY_ARRIVALS_PER_HOUR).toBeLessThan(1.05);
    const weightSum = PHILLY_ARRIVAL_WEIGHT_BY_HOUR.reduce((a, b) => a + b, 0);
    stats.arrivals.byHourOfDay.forEach((count, hour) => {
      const expected = PHILLY_ARRIVAL_WEIGHT_BY_HOUR[hour]! / weightSum;
      expect(Math.abs(count / N - expected), `hour ${hour}`).toBeLessThan(shareTolerance(expected, N) + 0.004);
    });
  });
});

describe('alibaba-pai', () => {
  const label = (shape: PaiShape): string => (shape.kind === 'whole' ? `whole-${shape.gpus}` : shape.kind);
  const shapeOf = (job: JobSpec): string => {
    const d = job.roles[0]!.demand;
    if (d.gpus === 0) return 'cpu-only';
    if (d.gpuMilli < 1000) return 'shared';
    return `whole-${d.gpus}`;
  };

  it('has the configured share of PS-structured jobs (worker + ps roles)', () => {
    const jobs = jobsOf('alibaba-pai');
    const ps = jobs.filter((j) => j.roles.some((r) => r.role === 'ps'));
    expect(Math.abs(ps.length / N - PAI_PS_JOB_SHARE)).toBeLessThan(shareTolerance(PAI_PS_JOB_SHARE, N));
    for (const job of ps) {
      expect(job.kind).toBe('batch');
      expect(job.speed.kind).toBe('fixed');
      expect(job.roles.find((r) => r.role === 'ps')!.demand.gpus).toBe(0);
      expect(job.roles.find((r) => r.role === 'worker')!.demand.gpus).toBe(1);
    }
  });

  it('reproduces the measured shapes and GPU sharing of single-worker jobs', () => {
    const single = jobsOf('alibaba-pai').filter((j) => j.roles.length === 1);
    for (const { value } of PAI_SHAPES) {
      const expected = weightShare(PAI_SHAPES, value);
      const observed = shareOf(single, (j) => shapeOf(j) === label(value));
      expect(Math.abs(observed - expected), label(value)).toBeLessThan(shareTolerance(expected, single.length));
    }
    const milliValues = new Set(PAI_SHARED_GPU_MILLI.map((e) => e.value));
    for (const job of single) if (shapeOf(job) === 'shared') expect(milliValues.has(job.roles[0]!.demand.gpuMilli)).toBe(true);
    const share810 = weightShare(PAI_SHARED_GPU_MILLI, 810);
    const shared = single.filter((j) => shapeOf(j) === 'shared');
    const observed810 = shareOf(shared, (j) => j.roles[0]!.demand.gpuMilli === 810);
    expect(Math.abs(observed810 - share810)).toBeLessThan(shareTolerance(share810, shared.length));
  });

  it('gives jobs asking for the same demand one object for it, and jobs asking for the same roles one list of them', () => {
    const jobs = jobsOf('alibaba-pai');
    const demands = new Map<string, object>();
    const singleRoles = new Map<object, object>();
    const roleLists = new Map<string, object>();
    for (const job of jobs) {
      const rolesKey = JSON.stringify(job.roles);
      expect(roleLists.get(rolesKey) ?? job.roles).toBe(job.roles);
      roleLists.set(rolesKey, job.roles);
      for (const role of job.roles) {
        const d = role.demand;
        const key = `${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB}`;
        expect(demands.get(key) ?? d).toBe(d);
        demands.set(key, d);
      }
      if (job.roles.length === 1) {
        expect(singleRoles.get(job.roles[0]!.demand) ?? job.roles).toBe(job.roles);
        singleRoles.set(job.roles[0]!.demand, job.roles);
      }
    }
    // A few hundred distinct demands and lists of roles among the jobs, not one each.
    expect(demands.size).toBeLessThan(N / 10);
    expect(roleLists.size).toBeLessThan(N / 10);
    expect(jobs.some((job) => job.roles.length === 2)).toBe(true);
  });

  it('has a heavy-tailed duration with the cited median and a mean near 5,040 s', async () => {
    const stats = await inspectJobs(jobsOf('alibaba-pai'));
    expect(stats.durationS.p50 / PAI_DURATION_MEDIAN_S).toBeGreaterThan(0.9);
    expect(stats.durationS.p50 / PAI_DURATION_MEDIAN_S).toBeLessThan(1.1);
    expect(stats.durationS.mean).toBeGreaterThan(4000);
    expect(stats.durationS.mean).toBeLessThan(6300);
    expect(stats.durationS.p99).toBeGreaterThan(20 * stats.durationS.p50);
    expect(stats.gpuDemand.find((b) => b.bucket === '<1')!.share).toBeGreaterThan(0.3);
  });
});

describe('ant', () => {
  it('is mostly CPU parameter-server jobs within DLRover\'s caps', () => {
    const jobs = jobsOf('ant');
    const ps = jobs.filter((j) => j.kind === 'ps');
    expect(Math.abs(ps.length / N - (1 - ANT_LLM_JOB_SHARE))).toBeLessThan(shareTolerance(ANT_LLM_JOB_SHARE, N));
    const problems: string[] = [];
    const check = (job: JobSpec, ok: boolean, what: string): void => {
      if (!ok) problems.push(`${job.id}: ${what}`);
    };
    for (const job of ps) {
      const workers = job.roles.find((r) => r.role === 'worker')!;
      const pss = job.roles.find((r) => r.role === 'ps')!;
      check(job, workers.replicas >= 1 && workers.replicas <= 60, `${workers.replicas} workers`);
      check(job, pss.replicas >= 1 && pss.replicas <= 15, `${pss.replicas} PS`);
      check(job, pss.demand.cpuMilli <= 32_000, `PS cpu ${pss.demand.cpuMilli}`);
      check(job, pss.demand.memMiB >= 8 * 1024 && pss.demand.memMiB <= 64 * 1024, `PS memory ${pss.demand.memMiB}`);
      check(job, workers.demand.cpuMilli >= 4000 && workers.demand.cpuMilli <= 16_000, `worker cpu ${workers.demand.cpuMilli}`);
      check(job, requestedGpus(job) === 0, 'asks for GPUs');
      check(job, job.speed.kind === 'ps-async', `speed ${job.speed.kind}`);
      const d = durationS(job);
      check(job, d >= ANT_PS_DURATION_MIN_S - 1 && d <= ANT_PS_DURATION_MAX_S + 1, `duration ${d}`);
    }
    expect(problems).toEqual([]);
    const medianS = median(ps.map(durationS))!;
    expect(medianS / ANT_PS_DURATION_MEDIAN_S).toBeGreaterThan(0.93);
    expect(medianS / ANT_PS_DURATION_MEDIAN_S).toBeLessThan(1.07);
  });

  it('calibrates the PS speed model to the seed run: ~30 steps/s at 1+1, ~100 at 1 PS + 4 workers', () => {
    const job: JobSpec = { ...jobsOf('ant').find((j) => j.kind === 'ps')!, speed: { kind: 'ps-async', ...ANT_PS_SPEED_BASE } };
    expect(stepsPerS(job, { workers: 1, ps: 1 })).toBeCloseTo(30, 0);
    expect(stepsPerS(job, { workers: 4, ps: 1 })).toBeCloseTo(100, -1);
  });

  it('adds a few elastic LLM all-reduce jobs of 8-GPU workers that run for days', () => {
    const llm = jobsOf('ant').filter((j) => j.kind === 'allreduce');
    expect(llm.length).toBeGreaterThan(0);
    const sizes = new Set(ANT_LLM_WORKERS.map((e) => e.value));
    for (const job of llm) {
      const worker = job.roles[0]!;
      expect(sizes.has(worker.replicas)).toBe(true);
      expect(worker.demand.gpus).toBe(8);
      expect(job.elastic).toEqual({ minReplicas: worker.replicas / 2, maxReplicas: worker.replicas, unit: 8 });
      expect(job.elastic!.minReplicas % job.elastic!.unit).toBe(0);
      const stepS = 1 / nominalStepsPerS(job);
      expect(stepS).toBeGreaterThanOrEqual(1.99);
      expect(stepS).toBeLessThanOrEqual(10.01);
      expect(durationS(job)).toBeGreaterThanOrEqual(86400 - 10);
      expect(durationS(job)).toBeLessThanOrEqual(30 * 86400 + 10);
    }
  });
});
