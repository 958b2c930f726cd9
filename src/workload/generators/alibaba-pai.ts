import type { RandomStream, RandomStreams } from '../../engine/random.js';
import type { JobSpec, ReplicaDemand, RoleSpec, SpeedSpec } from '../../model/job-spec.js';
import {
  diurnalArrivalsS,
  generatedJobId,
  generatedSource,
  pickWeighted,
  quantileAt,
  zipfWeights,
  type QuantilePoint,
  type Weighted,
} from './sampling.js';

// Two kinds of numbers live here, and each constant says which it is:
// - "measured": produced by `node scripts/measure-alibaba-pods.mjs` from
//   ../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv (8,152 pods of Alibaba's
//   production GPU cluster, the ATC'23 "Beware of Fragmentation" trace). The PAI 2020 job rows are
//   not available to measure, so GPU sharing, shapes, requests and arrivals come from these pods.
// - "cited": published figures about the PAI 2020 trace (Weng et al., "MLaaS in the Wild", NSDI'22,
//   and the trace's README in alibaba/clusterdata), or "[approx]" where only a shape is published.
// Anything else is "dlsim's choice" and says so.

/** What one (non-PS) job asks for: CPU only, a share of one GPU, or whole GPUs. */
export type PaiShape = { readonly kind: 'cpu-only' } | { readonly kind: 'shared' } | { readonly kind: 'whole'; readonly gpus: number };

/** Measured: pods by shape (counts of the 8,152 pods: 13.3% CPU-only, 37.8% shared-GPU, 48.0% one whole GPU). */
export const PAI_SHAPES: readonly Weighted<PaiShape>[] = [
  { value: { kind: 'cpu-only' }, weight: 1088 },
  { value: { kind: 'shared' }, weight: 3078 },
  { value: { kind: 'whole', gpus: 1 }, weight: 3911 },
  { value: { kind: 'whole', gpus: 2 }, weight: 16 },
  { value: { kind: 'whole', gpus: 4 }, weight: 15 },
  { value: { kind: 'whole', gpus: 8 }, weight: 44 },
];

/** Measured: share of GPU pods that share one GPU (gpu_milli < 1000): 3,078 of 7,064. */
export const PAI_SHARED_SHARE_OF_GPU_JOBS = 3078 / 7064;

/** Measured: gpu_milli of GPU-sharing pods (thousandths of one GPU) with their counts; all 20 values seen. */
export const PAI_SHARED_GPU_MILLI: readonly Weighted<number>[] = [
  { value: 810, weight: 1078 }, { value: 470, weight: 750 }, { value: 320, weight: 328 }, { value: 650, weight: 253 },
  { value: 230, weight: 140 }, { value: 460, weight: 128 }, { value: 590, weight: 75 }, { value: 160, weight: 74 },
  { value: 550, weight: 72 }, { value: 220, weight: 62 }, { value: 370, weight: 47 }, { value: 110, weight: 24 },
  { value: 480, weight: 19 }, { value: 50, weight: 7 }, { value: 330, weight: 7 }, { value: 350, weight: 6 },
  { value: 270, weight: 4 }, { value: 440, weight: 2 }, { value: 140, weight: 1 }, { value: 290, weight: 1 },
];

/** A CPU and memory request. */
export interface CpuMemRequest {
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/** Measured: CPU and memory per GPU of whole-GPU pods, the most common pairs covering 95% of them (median 11.3 cores, 48 GiB). */
export const PAI_REQUESTS_PER_WHOLE_GPU: readonly Weighted<CpuMemRequest>[] = [
  { value: { cpuMilli: 11300, memMiB: 49152 }, weight: 857 },
  { value: { cpuMilli: 11400, memMiB: 48128 }, weight: 534 },
  { value: { cpuMilli: 3152, memMiB: 5600 }, weight: 470 },
  { value: { cpuMilli: 18708, memMiB: 64512 }, weight: 255 },
  { value: { cpuMilli: 9810, memMiB: 41560 }, weight: 195 },
  { value: { cpuMilli: 12000, memMiB: 24576 }, weight: 158 },
  { value: { cpuMilli: 15700, memMiB: 58368 }, weight: 158 },
  { value: { cpuMilli: 11908, memMiB: 47104 }, weight: 153 },
  { value: { cpuMilli: 16000, memMiB: 32768 }, weight: 108 },
  { value: { cpuMilli: 8000, memMiB: 16384 }, weight: 104 },
  { value: { cpuMilli: 4000, memMiB: 24576 }, weight: 104 },
  { value: { cpuMilli: 12000, memMiB: 16384 }, weight: 99 },
  { value: { cpuMilli: 14200, memMiB: 58368 }, weight: 93 },
  { value: { cpuMilli: 24200, memMiB: 93184 }, weight: 84 },
  { value: { cpuMilli: 11400, memMiB: 77824 }, weight: 65 },
  { value: { cpuMilli: 8000, memMiB: 32768 }, weight: 61 },
  { value: { cpuMilli: 11900, memMiB: 77824 }, weight: 51 },
  { value: { cpuMilli: 12000, memMiB: 15360 }, weight: 44 },
  { value: { cpuMilli: 8200, memMiB: 33792 }, weight: 41 },
  { value: { cpuMilli: 4000, memMiB: 31250 }, weight: 40 },
  { value: { cpuMilli: 15200, memMiB: 80896 }, weight: 36 },
  { value: { cpuMilli: 16000, memMiB: 65536 }, weight: 33 },
  { value: { cpuMilli: 16400, memMiB: 125952 }, weight: 27 },
  { value: { cpuMilli: 11000, memMiB: 40960 }, weight: 18 },
];

/** Measured: CPU and memory of GPU-sharing pods, the most common pairs covering 96% of them. */
export const PAI_REQUESTS_SHARED: readonly Weighted<CpuMemRequest>[] = [
  { value: { cpuMilli: 3152, memMiB: 5600 }, weight: 1122 },
  { value: { cpuMilli: 11908, memMiB: 47104 }, weight: 625 },
  { value: { cpuMilli: 8000, memMiB: 30517 }, weight: 486 },
  { value: { cpuMilli: 4000, memMiB: 22888 }, weight: 189 },
  { value: { cpuMilli: 4000, memMiB: 15258 }, weight: 182 },
  { value: { cpuMilli: 4152, memMiB: 10600 }, weight: 152 },
  { value: { cpuMilli: 4000, memMiB: 30517 }, weight: 136 },
  { value: { cpuMilli: 6000, memMiB: 6144 }, weight: 51 },
];

/** Measured: CPU and memory of CPU-only pods, the most common pairs covering 95% of them. */
export const PAI_REQUESTS_CPU_ONLY: readonly Weighted<CpuMemRequest>[] = [
  { value: { cpuMilli: 12500, memMiB: 57344 }, weight: 364 },
  { value: { cpuMilli: 32000, memMiB: 49152 }, weight: 284 },
  { value: { cpuMilli: 8000, memMiB: 30517 }, weight: 163 },
  { value: { cpuMilli: 15400, memMiB: 51200 }, weight: 120 },
  { value: { cpuMilli: 16500, memMiB: 51200 }, weight: 95 },
  { value: { cpuMilli: 11400, memMiB: 57344 }, weight: 11 },
];

/** Measured: mean pod creations per hour (8,070 pods from the 1st percentile of creation times to the last, 33.4 days). */
export const PAI_ARRIVALS_PER_HOUR = 10.07;

/**
 * Measured: relative pod creation rate per hour of day (mean 1) on the trace's own clock
 * (creation_time mod 86400; the origin's time zone is not published). Peak hour 18 (1.61x),
 * trough hour 14 (0.40x): a clear day/night cycle.
 */
export const PAI_ARRIVAL_WEIGHT_BY_HOUR: readonly number[] = [
  1.52, 1.347, 1.077, 1.291, 1.264, 0.937, 0.862, 0.978, 0.708, 0.431, 0.651, 0.601, 0.449, 0.437, 0.399, 0.788, 0.886,
  1.246, 1.609, 1.377, 1.02, 1.258, 1.267, 1.597,
];

/**
 * Cited [approx]: job duration quantiles (p, seconds). "MLaaS in the Wild" (NSDI'22) shows
 * heavy-tailed task run times, most of them short, but not as quantiles we can cite; the points
 * are dlsim's choice of that shape (median 12 min), placed so that their mean (5,054 s with
 * log-linear interpolation) matches the one published number: the mean duration 5,039 s
 * (avg_jct 5,988.61 s minus wait_time 949.91 s, the same for every policy) of the 20,000 PAI jobs
 * in the example output of alibaba/clusterdata cluster-trace-gpu-v2020/simulator/README.md.
 */
export const PAI_DURATION_QUANTILES: readonly QuantilePoint[] = [
  [0, 10], [0.1, 45], [0.25, 180], [0.5, 720], [0.75, 2700], [0.9, 9000], [0.95, 18000], [0.99, 64800],
  [0.999, 259200], [1, 604800],
];

/** The median of PAI_DURATION_QUANTILES in seconds (12 minutes). */
export const PAI_DURATION_MEDIAN_S = 720;

/** Cited: PAI's trace covers over 1,300 users (NSDI'22; the trace's project page); activity per user is dlsim's choice (Zipf, exponent 1). */
export const PAI_USERS = 1300;

/** dlsim's choice (PAI publishes PS/worker jobs but no share we can cite): share of jobs with ps + worker roles. */
export const PAI_PS_JOB_SHARE = 0.1;
/** dlsim's choice: PS replicas of a PS-structured job. */
export const PAI_PS_REPLICAS: readonly Weighted<number>[] = [
  { value: 1, weight: 50 },
  { value: 2, weight: 25 },
  { value: 4, weight: 15 },
  { value: 8, weight: 10 },
];
/** dlsim's choice: worker replicas of a PS-structured job. */
export const PAI_PS_WORKER_REPLICAS: readonly Weighted<number>[] = [
  { value: 2, weight: 35 },
  { value: 4, weight: 30 },
  { value: 8, weight: 20 },
  { value: 16, weight: 10 },
  { value: 32, weight: 5 },
];
/** Cited: a PS instance asks for 6 vCPU and no GPU in the PAI trace README's example job; its memory is dlsim's choice. */
export const PAI_PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 16 * 1024 };

const USER_WEIGHTS = zipfWeights(PAI_USERS, 1);

/** One replica's demand for a shape, with CPU and memory drawn from the measured requests (one object per distinct demand: see Interned). */
function demandOf(shape: PaiShape, stream: RandomStream, interned: Interned): ReplicaDemand {
  switch (shape.kind) {
    case 'cpu-only': {
      const request = pickWeighted(PAI_REQUESTS_CPU_ONLY, stream);
      return interned.demand(0, 1000, request.cpuMilli, request.memMiB);
    }
    case 'shared': {
      const gpuMilli = pickWeighted(PAI_SHARED_GPU_MILLI, stream);
      const request = pickWeighted(PAI_REQUESTS_SHARED, stream);
      return interned.demand(1, gpuMilli, request.cpuMilli, request.memMiB);
    }
    case 'whole': {
      const request = pickWeighted(PAI_REQUESTS_PER_WHOLE_GPU, stream);
      return interned.demand(shape.gpus, 1000, request.cpuMilli * shape.gpus, request.memMiB * shape.gpus);
    }
  }
}

/**
 * The demands and role lists of one generated trace, one object for each distinct value: the
 * shapes and requests are a few dozen measured values, so a million jobs share a few hundred
 * objects instead of holding three or more each (specs are read-only).
 */
class Interned {
  private readonly demands = new Map<string, ReplicaDemand>();
  private readonly singleWorkers = new Map<ReplicaDemand, readonly RoleSpec[]>();
  private readonly psJobs = new Map<string, readonly RoleSpec[]>();

  /** The demand with these values. */
  demand(gpus: number, gpuMilli: number, cpuMilli: number, memMiB: number): ReplicaDemand {
    const key = `${gpus}/${gpuMilli}/${cpuMilli}/${memMiB}`;
    let demand = this.demands.get(key);
    if (demand === undefined) this.demands.set(key, (demand = { gpus, gpuMilli, cpuMilli, memMiB }));
    return demand;
  }

  /** The roles of a job of one worker with this demand. */
  singleWorker(demand: ReplicaDemand): readonly RoleSpec[] {
    let roles = this.singleWorkers.get(demand);
    if (roles === undefined) this.singleWorkers.set(demand, (roles = [{ role: 'worker', replicas: 1, demand }]));
    return roles;
  }

  /** The roles of a PS-structured job: `workers` workers of this demand (an interned one), then `ps` parameter servers. */
  psJob(workers: number, demand: ReplicaDemand, ps: number): readonly RoleSpec[] {
    const key = `${workers}/${ps}/${demand.gpus}/${demand.gpuMilli}/${demand.cpuMilli}/${demand.memMiB}`;
    let roles = this.psJobs.get(key);
    if (roles === undefined) {
      roles = [
        { role: 'worker', replicas: workers, demand },
        { role: 'ps', replicas: ps, demand: PAI_PS_DEMAND },
      ];
      this.psJobs.set(key, roles);
    }
    return roles;
  }
}

/** The GPU models a generated job allows: any. */
const ANY_GPU_TYPE: readonly string[] = [];
/** The speed of a replayed batch job. */
const FIXED_SPEED: SpeedSpec = Object.freeze({ kind: 'fixed' });

/** Roles of one job: a single worker of a measured shape, or (PAI_PS_JOB_SHARE) PS + GPU workers. */
function rolesOf(stream: RandomStream, interned: Interned): readonly RoleSpec[] {
  if (stream.uniform() < PAI_PS_JOB_SHARE) {
    const workerShape: PaiShape = stream.uniform() < PAI_SHARED_SHARE_OF_GPU_JOBS ? { kind: 'shared' } : { kind: 'whole', gpus: 1 };
    // Drawn in this order: the workers, their demand, then the parameter servers.
    const workers = pickWeighted(PAI_PS_WORKER_REPLICAS, stream);
    const demand = demandOf(workerShape, stream, interned);
    return interned.psJob(workers, demand, pickWeighted(PAI_PS_REPLICAS, stream));
  }
  return interned.singleWorker(demandOf(pickWeighted(PAI_SHAPES, stream), stream, interned));
}

/**
 * Alibaba PAI-like batch jobs (fixed speed): shapes, GPU sharing, CPU/memory requests and the
 * diurnal arrival cycle measured from the 2023 pod list, durations from the PAI 2020 figures
 * (heavy tail, median 12 min, mean ~5,040 s), a 10% share of PS-structured jobs (worker + ps
 * roles), users Zipf-distributed over 1,300. Streams: "arrivals", "job-shapes", "durations", "users".
 */
export function generateAlibabaPaiJobs(count: number, streams: RandomStreams): JobSpec[] {
  const shapes = streams.stream('job-shapes');
  const durations = streams.stream('durations');
  const users = streams.stream('users');
  const submitTimesS = diurnalArrivalsS(count, PAI_ARRIVALS_PER_HOUR, PAI_ARRIVAL_WEIGHT_BY_HOUR, streams.stream('arrivals'));
  const jobs: JobSpec[] = [];
  // Users' names made once each, and one empty GPU-model list and speed shared by every job.
  const userNames: string[] = [];
  const interned = new Interned();
  for (let i = 0; i < count; i++) {
    const durationS = Math.max(1, Math.round(quantileAt(PAI_DURATION_QUANTILES, durations.uniform())));
    const user = users.weightedIndex(USER_WEIGHTS);
    jobs.push({
      id: generatedJobId('pai', i),
      kind: 'batch',
      submitS: submitTimesS[i]!,
      user: (userNames[user] ??= `pai-u${String(user + 1).padStart(4, '0')}`),
      gpuTypes: ANY_GPU_TYPE,
      roles: rolesOf(shapes, interned),
      elastic: null,
      totalSteps: durationS,
      speed: FIXED_SPEED,
      source: generatedSource('alibaba-pai', streams.seed, i),
    });
  }
  return jobs;
}
