import type { RandomStream, RandomStreams } from '../../engine/random.js';
import type { JobSpec, SpeedSpec } from '../../model/job-spec.js';
import { nominalStepsPerS } from '../../model/speed.js';
import { diurnalArrivalsS, generatedJobId, generatedSource, pickWeighted, zipfWeights, type Weighted } from './sampling.js';

// DLRover's world (the DLRover articles, restated in the project's REFERENCE.md §1-§2): mostly CPU parameter-server recommendation jobs, plus a
// few large elastic LLM all-reduce jobs. No public Ant trace exists, so apart from the figures
// marked "seed" (from those articles) every number here is dlsim's
// choice, made to be plausible and documented in traces/README.md.
//
// PS memory grows with sparse embeddings in these jobs (REFERENCE §2, "growthRatePerStep"); JobSpec
// has no field for it yet, so it is not represented: that belongs to the auto-scaling feature.

/** dlsim's choice: share of jobs that are large LLM all-reduce jobs (the rest are CPU PS jobs). */
export const ANT_LLM_JOB_SHARE = 0.01;

/** Seed (REFERENCE §2, caps 15 PS): PS replicas of a PS job, 1-15, mostly few. */
export const ANT_PS_REPLICAS: readonly Weighted<number>[] = [
  { value: 1, weight: 40 },
  { value: 2, weight: 25 },
  { value: 3, weight: 10 },
  { value: 4, weight: 10 },
  { value: 6, weight: 5 },
  { value: 8, weight: 5 },
  { value: 10, weight: 2 },
  { value: 12, weight: 2 },
  { value: 15, weight: 1 },
];

/** An inclusive integer range, drawn uniformly. */
export interface IntRange {
  readonly min: number;
  readonly max: number;
}

/** Seed (REFERENCE §2, cap 60 workers): worker replicas of a PS job, by range (uniform inside), mostly small. */
export const ANT_WORKER_RANGES: readonly Weighted<IntRange>[] = [
  { value: { min: 1, max: 4 }, weight: 30 },
  { value: { min: 5, max: 10 }, weight: 30 },
  { value: { min: 11, max: 20 }, weight: 22 },
  { value: { min: 21, max: 40 }, weight: 12 },
  { value: { min: 41, max: 60 }, weight: 6 },
];

/** Seed: cores per PS (the no-history default is 8 cores; cap 32 per PS). */
export const ANT_PS_CORES: readonly Weighted<number>[] = [
  { value: 4, weight: 15 },
  { value: 8, weight: 60 },
  { value: 16, weight: 20 },
  { value: 32, weight: 5 },
];
/** Seed: PS memory in GiB is log-uniform in this range (8 GiB is the no-history default). */
export const ANT_PS_MEM_GIB = { min: 8, max: 64 } as const;
/** dlsim's choice: cores per worker (and chief). */
export const ANT_WORKER_CORES: readonly Weighted<number>[] = [
  { value: 4, weight: 30 },
  { value: 8, weight: 45 },
  { value: 16, weight: 25 },
];
/** dlsim's choice: worker memory in GiB per core. */
export const ANT_WORKER_MEM_GIB_PER_CORE: readonly Weighted<number>[] = [
  { value: 2, weight: 50 },
  { value: 4, weight: 50 },
];

/**
 * Seed-calibrated Optimus async-PS coefficients (steps/s = w / (t0 + t1 w/p + t2 w + t3 p)): they give
 * 30.0 steps/s at 1 PS + 1 worker and 100.3 at 1 PS + 4 workers, the DeepFM-on-Criteo run of REFERENCE §2.
 */
export const ANT_PS_SPEED_BASE = { t0: 0.03, t1: 0.0015, t2: 0.0007, t3: 0.0011 } as const;
/** dlsim's choice: a job's coefficients are the base times a log-normal factor (median 1, this sigma) for model size. */
export const ANT_PS_SPEED_SIGMA = 0.5;

/** dlsim's choice: median PS-job duration at the requested shape, log-normal (1.5 h). */
export const ANT_PS_DURATION_MEDIAN_S = 5400;
/** dlsim's choice: log-space sigma of the PS-job duration. */
export const ANT_PS_DURATION_SIGMA = 1;
/** dlsim's choice: shortest PS-job duration in seconds (5 min). */
export const ANT_PS_DURATION_MIN_S = 300;
/** dlsim's choice: longest PS-job duration in seconds (24 h). */
export const ANT_PS_DURATION_MAX_S = 86400;

/** dlsim's choice: workers of an LLM job, each one 8-GPU node: 512 to 8,192 GPUs, larger ones rarer. */
export const ANT_LLM_WORKERS: readonly Weighted<number>[] = [
  { value: 64, weight: 40 },
  { value: 128, weight: 30 },
  { value: 256, weight: 15 },
  { value: 512, weight: 10 },
  { value: 1024, weight: 5 },
];
/** GPUs per LLM worker (one whole node). */
export const ANT_LLM_GPUS_PER_WORKER = 8;
/** dlsim's choice: CPU cores per LLM worker (an 8-GPU node keeps headroom for the system). */
export const ANT_LLM_WORKER_CORES = 64;
/** dlsim's choice: memory in GiB per LLM worker. */
export const ANT_LLM_WORKER_MEM_GIB = 512;
/**
 * dlsim's choice: LLM jobs are elastic from half to all of their workers (DLRover's min_nodes =
 * max_nodes / 2) in units of 8 nodes (node_unit: one pipeline-parallel group of 8 nodes, so every
 * allowed size keeps whole data-parallel replicas). All worker counts above are multiples of 16.
 */
export const ANT_LLM_NODE_UNIT = 8;
/** dlsim's choice: LLM step time in seconds, uniform in this range ("several seconds") … */
export const ANT_LLM_STEP_S = { min: 2, max: 10 } as const;
/** … of which this share (uniform in the range) is the all-reduce communication. */
export const ANT_LLM_COMM_SHARE = { min: 0.1, max: 0.3 } as const;
/** dlsim's choice: median LLM job duration, log-normal (5 days). */
export const ANT_LLM_DURATION_MEDIAN_S = 5 * 86400;
/** dlsim's choice: log-space sigma of the LLM job duration. */
export const ANT_LLM_DURATION_SIGMA = 0.5;
/** dlsim's choice: shortest LLM job duration in seconds (1 day). */
export const ANT_LLM_DURATION_MIN_S = 86400;
/** dlsim's choice: longest LLM job duration in seconds (30 days). */
export const ANT_LLM_DURATION_MAX_S = 30 * 86400;

/** dlsim's choice: mean job submissions per hour. */
export const ANT_ARRIVALS_PER_HOUR = 30;
/** dlsim's choice: relative submission rate by hour of day (office hours, UTC+8 clock): quiet nights, busy 10:00-18:00. */
export const ANT_ARRIVAL_WEIGHT_BY_HOUR: readonly number[] = [
  0.5, 0.4, 0.3, 0.3, 0.3, 0.3, 0.4, 0.6, 0.9, 1.3, 1.6, 1.6, 1.2, 1.4, 1.7, 1.7, 1.6, 1.5, 1.3, 1.1, 1.1, 1.0, 0.9, 0.7,
];
/** dlsim's choice: users, with Zipf (exponent 1) activity. */
export const ANT_USERS = 300;

const USER_WEIGHTS = zipfWeights(ANT_USERS, 1);
const GIB = 1024;

function uniformBetween(range: { readonly min: number; readonly max: number }, stream: RandomStream): number {
  return range.min + (range.max - range.min) * stream.uniform();
}

/** Four significant digits: keeps trace lines short without changing the model. */
function sig4(value: number): number {
  return Number(value.toPrecision(4));
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** The fields of a job that do not depend on its kind. */
type JobBase = Pick<JobSpec, 'id' | 'submitS' | 'user' | 'gpuTypes' | 'source'>;

/** A CPU parameter-server job: PS + chief + workers, async-PS speed, minutes to hours of training. */
function psJob(base: JobBase, shapes: RandomStream, durations: RandomStream, speeds: RandomStream): JobSpec {
  const psReplicas = pickWeighted(ANT_PS_REPLICAS, shapes);
  const range = pickWeighted(ANT_WORKER_RANGES, shapes);
  const workers = range.min + shapes.int(range.max - range.min + 1);
  const psCores = pickWeighted(ANT_PS_CORES, shapes);
  const psMemGiB = Math.round(ANT_PS_MEM_GIB.min * Math.pow(ANT_PS_MEM_GIB.max / ANT_PS_MEM_GIB.min, shapes.uniform()));
  const workerCores = pickWeighted(ANT_WORKER_CORES, shapes);
  const workerMemGiB = workerCores * pickWeighted(ANT_WORKER_MEM_GIB_PER_CORE, shapes);
  const workerDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: workerCores * 1000, memMiB: workerMemGiB * GIB };
  const factor = speeds.logNormal(1, ANT_PS_SPEED_SIGMA);
  const speed: SpeedSpec = {
    kind: 'ps-async',
    t0: sig4(ANT_PS_SPEED_BASE.t0 * factor),
    t1: sig4(ANT_PS_SPEED_BASE.t1 * factor),
    t2: sig4(ANT_PS_SPEED_BASE.t2 * factor),
    t3: sig4(ANT_PS_SPEED_BASE.t3 * factor),
  };
  const durationS = clamp(
    durations.logNormal(ANT_PS_DURATION_MEDIAN_S, ANT_PS_DURATION_SIGMA),
    ANT_PS_DURATION_MIN_S,
    ANT_PS_DURATION_MAX_S,
  );
  const job: JobSpec = {
    ...base,
    kind: 'ps',
    roles: [
      { role: 'worker', replicas: workers, demand: workerDemand },
      { role: 'chief', replicas: 1, demand: workerDemand },
      { role: 'ps', replicas: psReplicas, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: psCores * 1000, memMiB: psMemGiB * GIB } },
    ],
    elastic: null,
    totalSteps: 1,
    speed,
  };
  return { ...job, totalSteps: Math.max(1, Math.round(durationS * nominalStepsPerS(job))) };
}

/** A large elastic LLM all-reduce job: 8-GPU workers, step time of seconds, days of training. */
function llmJob(base: JobBase, shapes: RandomStream, durations: RandomStream, speeds: RandomStream): JobSpec {
  const workers = pickWeighted(ANT_LLM_WORKERS, shapes);
  const stepS = uniformBetween(ANT_LLM_STEP_S, speeds);
  const commS = sig4(stepS * uniformBetween(ANT_LLM_COMM_SHARE, speeds));
  const computeS = sig4(stepS - commS);
  const durationS = clamp(
    durations.logNormal(ANT_LLM_DURATION_MEDIAN_S, ANT_LLM_DURATION_SIGMA),
    ANT_LLM_DURATION_MIN_S,
    ANT_LLM_DURATION_MAX_S,
  );
  return {
    ...base,
    kind: 'allreduce',
    roles: [
      {
        role: 'worker',
        replicas: workers,
        demand: {
          gpus: ANT_LLM_GPUS_PER_WORKER,
          gpuMilli: 1000,
          cpuMilli: ANT_LLM_WORKER_CORES * 1000,
          memMiB: ANT_LLM_WORKER_MEM_GIB * GIB,
        },
      },
    ],
    elastic: { minReplicas: workers / 2, maxReplicas: workers, unit: ANT_LLM_NODE_UNIT },
    totalSteps: Math.max(1, Math.round(durationS / (computeS + commS))),
    speed: { kind: 'allreduce', computeS, commS },
  };
}

/**
 * Ant-like jobs (DLRover's world): 99% CPU parameter-server jobs (kind "ps": 1-15 PS, 1-60 workers
 * and a chief, seed-calibrated async-PS speed, 5 min to 24 h) and 1% elastic LLM all-reduce jobs
 * (64-1024 workers of 8 GPUs, steps of 2-10 s, 1-30 days). Diurnal Poisson arrivals. Streams:
 * "arrivals", "job-shapes", "durations", "speeds", "users".
 */
export function generateAntJobs(count: number, streams: RandomStreams): JobSpec[] {
  const shapes = streams.stream('job-shapes');
  const durations = streams.stream('durations');
  const speeds = streams.stream('speeds');
  const users = streams.stream('users');
  const submitTimesS = diurnalArrivalsS(count, ANT_ARRIVALS_PER_HOUR, ANT_ARRIVAL_WEIGHT_BY_HOUR, streams.stream('arrivals'));
  const jobs: JobSpec[] = [];
  for (let i = 0; i < count; i++) {
    const base: JobBase = {
      id: generatedJobId('ant', i),
      submitS: submitTimesS[i]!,
      user: `ant-u${String(users.weightedIndex(USER_WEIGHTS) + 1).padStart(3, '0')}`,
      gpuTypes: [],
      source: generatedSource('ant', streams.seed, i),
    };
    const isLlm = shapes.uniform() < ANT_LLM_JOB_SHARE;
    jobs.push(isLlm ? llmJob(base, shapes, durations, speeds) : psJob(base, shapes, durations, speeds));
  }
  return jobs;
}
