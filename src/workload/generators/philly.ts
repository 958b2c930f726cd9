import type { RandomStreams } from '../../engine/random.js';
import type { JobSpec } from '../../model/job-spec.js';
import {
  diurnalArrivalsS,
  generatedJobId,
  generatedSource,
  pickWeighted,
  quantileAt,
  splitGpus,
  type QuantilePoint,
  type Weighted,
} from './sampling.js';

// Every number below marked "measured" was produced by `node scripts/measure-philly.mjs` from
// ../shared/traces/philly-pollux/philly.csv (82,247 jobs, 2017-09-04 .. 2017-12-22, 108.9 days;
// the Microsoft Philly trace as published by Pollux, OSDI'21). Re-run the script to check them.

/** Measured: jobs by total GPU count (counts of the 82,247 trace jobs). */
export const PHILLY_GPU_MIX: readonly Weighted<number>[] = [
  { value: 1, weight: 76627 },
  { value: 2, weight: 1818 },
  { value: 4, weight: 1870 },
  { value: 8, weight: 1643 },
  { value: 12, weight: 7 },
  { value: 16, weight: 199 },
  { value: 24, weight: 7 },
  { value: 32, weight: 67 },
  { value: 64, weight: 6 },
  { value: 128, weight: 3 },
];

/** Duration quantiles (p, seconds) of the jobs of one size class. */
export interface DurationClass {
  /** The class covers jobs of minGpus..maxGpus GPUs (inclusive). */
  readonly minGpus: number;
  readonly maxGpus: number;
  readonly quantiles: readonly QuantilePoint[];
}

/**
 * Measured: duration quantiles in seconds per job-size class (larger Philly jobs run far longer:
 * median 1,117 s at 1 GPU, 17,410 s at 4, 23,683 s at 8). Sampled with log-linear interpolation.
 */
export const PHILLY_DURATION_CLASSES: readonly DurationClass[] = [
  {
    minGpus: 1,
    maxGpus: 1,
    quantiles: [
      [0, 1], [0.01, 30], [0.05, 52], [0.1, 62], [0.2, 76], [0.3, 215], [0.4, 600], [0.5, 1117], [0.6, 1728],
      [0.7, 2464.2], [0.8, 3754], [0.9, 8512], [0.95, 19137], [0.975, 55518.4], [0.99, 135399.3],
      [0.995, 266914.1], [0.999, 865708.7], [1, 3256045],
    ],
  },
  {
    minGpus: 2,
    maxGpus: 2,
    quantiles: [
      [0, 2], [0.01, 5], [0.05, 9], [0.1, 11], [0.2, 15], [0.3, 17], [0.4, 19], [0.5, 21], [0.6, 25], [0.7, 33],
      [0.8, 149.2], [0.9, 72740.2], [0.95, 197062.2], [0.975, 288911.5], [0.99, 523316.1], [0.995, 808063.9],
      [0.999, 1474215.4], [1, 2582803],
    ],
  },
  {
    minGpus: 3,
    maxGpus: 4,
    quantiles: [
      [0, 3], [0.01, 35.7], [0.05, 75], [0.1, 137.8], [0.2, 404.8], [0.3, 1695.7], [0.4, 7467.8], [0.5, 17409.5],
      [0.6, 36288.2], [0.7, 78660], [0.8, 106283.8], [0.9, 184435.3], [0.95, 273968.2], [0.975, 499351.2],
      [0.99, 907375.5], [0.995, 1205989.5], [0.999, 2446300.8], [1, 2750674],
    ],
  },
  {
    minGpus: 5,
    maxGpus: 8,
    quantiles: [
      [0, 1], [0.01, 33.4], [0.05, 125], [0.1, 216.2], [0.2, 784.6], [0.3, 4011.4], [0.4, 12382.2], [0.5, 23683],
      [0.6, 65014], [0.7, 140721.4], [0.8, 203050], [0.9, 351981.6], [0.95, 525618.2], [0.975, 743402.7],
      [0.99, 1060498.2], [0.995, 2000448.1], [0.999, 2656479.2], [1, 4628226],
    ],
  },
  {
    minGpus: 9,
    maxGpus: Infinity,
    quantiles: [
      [0, 1], [0.01, 3.8], [0.05, 35.4], [0.1, 72.2], [0.2, 345], [0.3, 889.6], [0.4, 3166.6], [0.5, 21137],
      [0.6, 53749.8], [0.7, 73310.8], [0.8, 158991.4], [0.9, 247972], [0.95, 443240.4], [0.975, 532106.6],
      [0.99, 922628.7], [0.995, 1274180.8], [0.999, 1612502.1], [1, 1710643],
    ],
  },
];

/** Measured: median duration of all trace jobs, in seconds (mean 13,136 s; p90 11,265 s; p99 254,758 s). */
export const PHILLY_DURATION_MEDIAN_S = 1144;

/** Measured: mean submissions per hour over the trace's span (82,247 jobs in 108.9 days). */
export const PHILLY_ARRIVALS_PER_HOUR = 31.47;

/**
 * Measured: relative submission rate per hour of day (mean 1), hour 0 = 00:00 of the trace's own
 * clock (its timestamps carry no zone). Peak 07:00 (2.09x), trough 14:00 (0.64x).
 */
export const PHILLY_ARRIVAL_WEIGHT_BY_HOUR: readonly number[] = [
  1.274, 0.985, 1.119, 1.103, 0.7, 1.153, 1.673, 2.089, 1.109, 1.006, 1.024, 0.869, 0.749, 0.705, 0.638, 0.649, 0.882,
  0.668, 0.801, 0.728, 1.016, 0.917, 1.134, 1.01,
];

/** Measured: jobs per virtual cluster (the trace has no user column; its 15 virtual clusters become the users). */
export const PHILLY_VIRTUAL_CLUSTERS: readonly Weighted<string>[] = [
  { value: 'vc-6214e9', weight: 41226 },
  { value: 'vc-11cb48', weight: 16091 },
  { value: 'vc-6c71a0', weight: 9953 },
  { value: 'vc-b436b2', weight: 7423 },
  { value: 'vc-103959', weight: 1934 },
  { value: 'vc-ee9e8c', weight: 1511 },
  { value: 'vc-0e4a51', weight: 1435 },
  { value: 'vc-ed69ec', weight: 1137 },
  { value: 'vc-7f04ca', weight: 723 },
  { value: 'vc-2869ce', weight: 422 },
  { value: 'vc-e13805', weight: 374 },
  { value: 'vc-23dbec', weight: 8 },
  { value: 'vc-51b7ef', weight: 4 },
  { value: 'vc-925e2b', weight: 3 },
  { value: 'vc-795a4c', weight: 3 },
];

/** GPUs per node: jobs above this are split into equal workers of at most a node (Philly's servers have 8 GPUs at most). */
export const PHILLY_GPUS_PER_NODE = 8;
/** dlsim's choice (the trace has no CPU or memory figures): CPU cores per GPU of a worker. */
export const PHILLY_CPU_CORES_PER_GPU = 4;
/** dlsim's choice (the trace has no CPU or memory figures): memory in GiB per GPU of a worker. */
export const PHILLY_MEM_GIB_PER_GPU = 32;

/** The duration quantile table for a job of `gpus` GPUs. */
export function phillyDurationClass(gpus: number): DurationClass {
  return PHILLY_DURATION_CLASSES.find((c) => gpus >= c.minGpus && gpus <= c.maxGpus) ?? PHILLY_DURATION_CLASSES[0]!;
}

/**
 * Philly-like batch jobs: GPU counts from the measured mix (stream "job-shapes"), durations from the
 * measured quantiles of the job's size class (stream "durations"), diurnal Poisson arrivals at the
 * measured rate (stream "arrivals"), virtual cluster as user (stream "users"). Jobs over 8 GPUs
 * are split into equal workers of at most 8 GPUs. Same seed, same jobs.
 */
export function generatePhillyJobs(count: number, streams: RandomStreams): JobSpec[] {
  const shapes = streams.stream('job-shapes');
  const durations = streams.stream('durations');
  const users = streams.stream('users');
  const submitTimesS = diurnalArrivalsS(count, PHILLY_ARRIVALS_PER_HOUR, PHILLY_ARRIVAL_WEIGHT_BY_HOUR, streams.stream('arrivals'));
  const jobs: JobSpec[] = [];
  for (let i = 0; i < count; i++) {
    const gpus = pickWeighted(PHILLY_GPU_MIX, shapes);
    const durationS = Math.max(1, Math.round(quantileAt(phillyDurationClass(gpus).quantiles, durations.uniform())));
    const { replicas, gpusPerReplica } = splitGpus(gpus, PHILLY_GPUS_PER_NODE);
    jobs.push({
      id: generatedJobId('philly', i),
      kind: 'batch',
      submitS: submitTimesS[i]!,
      user: pickWeighted(PHILLY_VIRTUAL_CLUSTERS, users),
      gpuTypes: [],
      roles: [
        {
          role: 'worker',
          replicas,
          demand: {
            gpus: gpusPerReplica,
            gpuMilli: 1000,
            cpuMilli: PHILLY_CPU_CORES_PER_GPU * gpusPerReplica * 1000,
            memMiB: PHILLY_MEM_GIB_PER_GPU * gpusPerReplica * 1024,
          },
        },
      ],
      elastic: null,
      totalSteps: durationS,
      speed: { kind: 'fixed' },
      source: generatedSource('philly', streams.seed, i),
    });
  }
  return jobs;
}
