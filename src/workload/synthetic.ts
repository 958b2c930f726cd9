import type { RandomStreams } from '../engine/random.js';
import { ConfigError } from '../errors.js';
import type { JobSpec, RoleSpec, SpeedSpec } from '../model/job-spec.js';

/** One entry of the synthetic GPU-count mix. */
export interface GpuMixEntry {
  /** GPUs the whole job asks for (0 = CPU-only). */
  readonly gpus: number;
  /** Relative weight (> 0); weights need not sum to 1. */
  readonly weight: number;
}

/** Parameters of the synthetic workload generator (the scenario's `workload.synthetic`, in base units). */
export interface SyntheticSpec {
  /** Number of jobs to generate. */
  readonly jobs: number;
  /** Mean time between arrivals in seconds (arrivals are Poisson). */
  readonly meanInterarrivalS: number;
  /** Arrivals start here: the first job arrives at startS + one interarrival. */
  readonly startS: number;
  /** Median of the log-normal job duration, in seconds. */
  readonly durationMedianS: number;
  /** Log-space standard deviation of the job duration (0 = every job takes the median). */
  readonly durationSigma: number;
  /** Durations are clamped to [durationMinS, durationMaxS]. */
  readonly durationMinS: number;
  readonly durationMaxS: number;
  /** GPU counts and their weights. */
  readonly gpuMix: readonly GpuMixEntry[];
  /** A job with more GPUs than this becomes gpus/gpusPerNode workers of gpusPerNode GPUs each. */
  readonly gpusPerNode: number;
  /** CPU cores per GPU of a replica (a replica gets at least one core). */
  readonly cpuCoresPerGpu: number;
  /** Memory in GiB per GPU of a replica (a replica gets at least 1 GiB). */
  readonly memGiBPerGpu: number;
  /** Kind of the generated jobs. */
  readonly kind: 'batch' | 'allreduce';
  /** Allowed GPU models for every job; empty = any. */
  readonly gpuTypes: readonly string[];
  /** Submitting user of every job. */
  readonly user: string;
}

/** Nominal step time of generated allreduce jobs, in seconds. */
const SYNTHETIC_STEP_TIME_S = 1;
/** Share of a generated allreduce job's step spent communicating. */
const SYNTHETIC_COMM_FRACTION = 0.1;

/** Worker layout of a job of `gpus` GPUs: one replica, or whole nodes of `gpusPerNode` GPUs. */
function workerShape(gpus: number, gpusPerNode: number, source: string): { replicas: number; gpusPerReplica: number } {
  if (gpus <= gpusPerNode) return { replicas: 1, gpusPerReplica: gpus };
  if (gpus % gpusPerNode !== 0) {
    throw new ConfigError(source, `a ${gpus}-GPU job spans whole nodes: expected a multiple of gpusPerNode (${gpusPerNode})`);
  }
  return { replicas: gpus / gpusPerNode, gpusPerReplica: gpusPerNode };
}

/**
 * Generates the synthetic jobs: Poisson arrivals (stream "arrivals"), clamped log-normal durations
 * (stream "durations") and GPU counts from the weighted mix (stream "job-shapes"), one stream per
 * purpose so that changing one parameter does not shift the others. Ids are "syn-00001", ...;
 * `source` is recorded on every job. Throws ConfigError for a GPU count that does not split into
 * whole nodes.
 */
export function generateSyntheticJobs(spec: SyntheticSpec, streams: RandomStreams, source: string): JobSpec[] {
  if (spec.gpuMix.length === 0) throw new ConfigError(source, 'the GPU mix is empty');
  const arrivals = streams.stream('arrivals');
  const durations = streams.stream('durations');
  const shapes = streams.stream('job-shapes');
  const weights = spec.gpuMix.map((entry) => entry.weight);
  const arrivalRatePerS = 1 / spec.meanInterarrivalS;
  const jobs: JobSpec[] = [];
  let submitS = spec.startS;
  for (let i = 0; i < spec.jobs; i++) {
    submitS += arrivals.exponential(arrivalRatePerS);
    const drawnS = durations.logNormal(spec.durationMedianS, spec.durationSigma);
    const durationS = Math.min(spec.durationMaxS, Math.max(spec.durationMinS, drawnS));
    const gpus = spec.gpuMix[shapes.weightedIndex(weights)]!.gpus;
    const { replicas, gpusPerReplica } = workerShape(gpus, spec.gpusPerNode, source);
    const worker: RoleSpec = {
      role: 'worker',
      replicas,
      demand: {
        gpus: gpusPerReplica,
        gpuMilli: 1000,
        cpuMilli: Math.max(1000, Math.round(spec.cpuCoresPerGpu * gpusPerReplica * 1000)),
        memMiB: Math.max(1024, Math.round(spec.memGiBPerGpu * gpusPerReplica * 1024)),
      },
    };
    const speed: SpeedSpec =
      spec.kind === 'batch'
        ? { kind: 'fixed' }
        : {
            kind: 'allreduce',
            computeS: SYNTHETIC_STEP_TIME_S * (1 - SYNTHETIC_COMM_FRACTION),
            commS: SYNTHETIC_STEP_TIME_S * SYNTHETIC_COMM_FRACTION,
          };
    jobs.push({
      id: `syn-${String(i + 1).padStart(5, '0')}`,
      kind: spec.kind,
      submitS,
      user: spec.user,
      gpuTypes: spec.gpuTypes,
      roles: [worker],
      elastic: null,
      totalSteps: spec.kind === 'batch' ? durationS : durationS / SYNTHETIC_STEP_TIME_S,
      speed,
      source,
    });
  }
  return jobs;
}
