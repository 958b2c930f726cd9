import type { RandomStream, RandomStreams } from '../engine/random.js';
import { ConfigError } from '../errors.js';
import type { CheckpointSpec, ElasticSpec, JobSpec, RoleSpec, SpeedSpec } from '../model/job-spec.js';
import { drawPreprocessing } from '../model/preprocessing.js';
import { ANT_LLM_COMM_SHARE, ANT_LLM_NODE_UNIT, ANT_LLM_STEP_S } from './generators/ant.js';
import { edlTrainerJob } from './generators/edl-trainers.js';
import { optimusPsJob } from './generators/optimus-ps.js';
import { zipfWeights } from './generators/sampling.js';

/** One entry of the synthetic GPU-count mix. */
export interface GpuMixEntry {
  /** GPUs the whole job asks for (0 = CPU-only). */
  readonly gpus: number;
  /** Relative weight (> 0); weights need not sum to 1. */
  readonly weight: number;
}

/**
 * Kinds of synthetic jobs: `batch` (rigid, runs its duration), `allreduce` (rigid synchronous
 * training), `elastic` (all-reduce training that may run from half to twice its workers), `ps`
 * (elastic parameter-server training with a loss curve, ending on convergence), `llm` (a large
 * elastic all-reduce job of whole nodes that checkpoints) and `edl` (elastic trainers with a wide
 * range, as PaddlePaddle EDL schedules them).
 */
export type SyntheticKind = 'batch' | 'allreduce' | 'elastic' | 'ps' | 'llm' | 'edl';

/** Names of the synthetic kinds, in the order above. */
export const SYNTHETIC_KINDS: readonly SyntheticKind[] = ['batch', 'allreduce', 'elastic', 'ps', 'llm', 'edl'];

/** One entry of the synthetic kind mix. */
export interface KindMixEntry {
  readonly kind: SyntheticKind;
  /** Relative weight (> 0); weights need not sum to 1. */
  readonly weight: number;
}

/** Parameters of the synthetic workload generator (the scenario's `workload.synthetic`, in base units). */
export interface SyntheticSpec {
  /** Number of jobs to generate. */
  readonly jobs: number;
  /** Mean time between arrivals in seconds (arrivals are Poisson). */
  readonly meanInterarrivalS: number;
  /** Arrivals start here: the first job after the backlog arrives at startS + one interarrival. */
  readonly startS: number;
  /** The first `backlog` jobs are all submitted at startS (a queue already waiting when the window opens). */
  readonly backlog: number;
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
  /** Kinds of the generated jobs and their weights. */
  readonly kinds: readonly KindMixEntry[];
  /** Allowed GPU models for every job; empty = any. */
  readonly gpuTypes: readonly string[];
  /** Submitting user of every job when `users` is 0. */
  readonly user: string;
  /** Number of users "user-1" … "user-N", user k submitting in proportion to 1/k (Zipf); 0 = every job is `user`'s. */
  readonly users: number;
  /**
   * Input preprocessing of the GPU jobs (`batch`, `allreduce`, `elastic`), drawn per job from the
   * model families (model/preprocessing.ts, keyed by the seed and the job's id): absent, none. With
   * `request: 'need'` a replica asks for the CPU its input needs (its users raise the CPU:GPU ratio
   * to avoid starving, as the seed says they do), at most `maxCpuMilliPerReplica`; with `'given'`,
   * for `cpuCoresPerGpu`.
   */
  readonly preprocessing?: { readonly request: 'need' | 'given'; readonly maxCpuMilliPerReplica: number };
}

/** Nominal step time of generated allreduce jobs, in seconds. */
const SYNTHETIC_STEP_TIME_S = 1;
/** Share of a generated allreduce job's step spent communicating. */
const SYNTHETIC_COMM_FRACTION = 0.1;
/**
 * Nodes of an `llm` job: two of DLRover's node units of 8 (ANT_LLM_NODE_UNIT), the smallest size
 * whose half (DLRover's min_nodes = max_nodes / 2) is still a whole unit.
 */
export const SYNTHETIC_LLM_NODES = 2 * ANT_LLM_NODE_UNIT;
/**
 * Checkpoint costs of an `llm` job: 10 min to save, 8 min to load, at the Young/Daly interval
 * (REFERENCE §1, the seed's table without fault tolerance; DLRover's stack brings its own costs).
 */
export const SYNTHETIC_LLM_CHECKPOINT: CheckpointSpec = { intervalS: 'auto', saveS: 600, loadS: 480, flash: false };
/**
 * Exponent of the Zipf law of user activity (user k submits in proportion to 1/k), as in the Ant
 * and Alibaba PAI generators.
 */
export const SYNTHETIC_USER_ZIPF_EXPONENT = 1;

/** Worker layout of a job of `gpus` GPUs: one replica, or whole nodes of `gpusPerNode` GPUs. */
function workerShape(gpus: number, gpusPerNode: number, source: string): { replicas: number; gpusPerReplica: number } {
  if (gpus <= gpusPerNode) return { replicas: 1, gpusPerReplica: gpus };
  if (gpus % gpusPerNode !== 0) {
    throw new ConfigError(source, `a ${gpus}-GPU job spans whole nodes: expected a multiple of gpusPerNode (${gpusPerNode})`);
  }
  return { replicas: gpus / gpusPerNode, gpusPerReplica: gpusPerNode };
}

/** What a job of any kind draws from the shared streams (drawn for every job, so the streams stay aligned). */
interface CommonDraws {
  readonly id: string;
  readonly submitS: number;
  readonly durationS: number;
  readonly gpus: number;
  readonly user: string;
}

/**
 * Generates the synthetic jobs: Poisson arrivals (stream "arrivals"), clamped log-normal durations
 * (stream "durations"), GPU counts from the weighted mix (stream "job-shapes"), kinds from the kind
 * mix (stream "job-kinds", only with more than one kind), users (stream "users", only with
 * `users` > 0), and each kind's own parameters (streams "ps-jobs", "llm-jobs", "edl-jobs"); every job draws its
 * duration and GPU count even when its kind does not use them, so that changing one parameter does
 * not shift the others. Ids are "syn-00001", ...; `source` is recorded on every job. Throws
 * ConfigError for a GPU count that does not split into whole nodes.
 */
export function generateSyntheticJobs(spec: SyntheticSpec, streams: RandomStreams, source: string): JobSpec[] {
  if (spec.gpuMix.length === 0) throw new ConfigError(source, 'the GPU mix is empty');
  if (spec.kinds.length === 0) throw new ConfigError(source, 'the kind mix is empty');
  const arrivals = streams.stream('arrivals');
  const durations = streams.stream('durations');
  const shapes = streams.stream('job-shapes');
  const kindStream = spec.kinds.length > 1 ? streams.stream('job-kinds') : null;
  const userStream = spec.users > 0 ? streams.stream('users') : null;
  const psStream = streams.stream('ps-jobs');
  const llmStream = streams.stream('llm-jobs');
  const edlStream = streams.stream('edl-jobs');
  const weights = spec.gpuMix.map((entry) => entry.weight);
  const kindWeights = spec.kinds.map((entry) => entry.weight);
  const userWeights = zipfWeights(spec.users, SYNTHETIC_USER_ZIPF_EXPONENT);
  const arrivalRatePerS = 1 / spec.meanInterarrivalS;
  const jobs: JobSpec[] = [];
  let submitS = spec.startS;
  for (let i = 0; i < spec.jobs; i++) {
    // Backlog jobs draw their gap too, so that the backlog's size does not shift later arrivals' draws.
    const gapS = arrivals.exponential(arrivalRatePerS);
    if (i >= spec.backlog) submitS += gapS;
    const drawnS = durations.logNormal(spec.durationMedianS, spec.durationSigma);
    const draws: CommonDraws = {
      id: `syn-${String(i + 1).padStart(5, '0')}`,
      submitS,
      durationS: Math.min(spec.durationMaxS, Math.max(spec.durationMinS, drawnS)),
      gpus: spec.gpuMix[shapes.weightedIndex(weights)]!.gpus,
      user: userStream === null ? spec.user : `user-${userStream.weightedIndex(userWeights) + 1}`,
    };
    const kind = spec.kinds[kindStream === null ? 0 : kindStream.weightedIndex(kindWeights)]!.kind;
    const base = { id: draws.id, submitS, user: draws.user, gpuTypes: spec.gpuTypes, source };
    switch (kind) {
      case 'ps':
        jobs.push(optimusPsJob(base, psStream));
        break;
      case 'llm':
        jobs.push(llmJob(spec, draws, base, llmStream));
        break;
      case 'edl':
        jobs.push(edlTrainerJob(base, draws.durationS, edlStream, (gpus) => demandOf(spec, gpus)));
        break;
      default:
        jobs.push(withPreprocessing(spec, gpuMixJob(spec, kind, draws, base), streams.seed));
    }
  }
  return jobs;
}

/** A `batch`, `allreduce` or `elastic` job of the drawn GPU count and duration. */
function gpuMixJob(spec: SyntheticSpec, kind: 'batch' | 'allreduce' | 'elastic', draws: CommonDraws, base: JobBase): JobSpec {
  const { gpus, durationS } = draws;
  // An elastic job's workers are single GPUs up to a node (so it can shrink and grow), whole nodes above.
  const { replicas, gpusPerReplica } =
    kind === 'elastic' && gpus <= spec.gpusPerNode && gpus > 0 ? { replicas: gpus, gpusPerReplica: 1 } : workerShape(gpus, spec.gpusPerNode, base.source);
  const worker: RoleSpec = { role: 'worker', replicas, demand: demandOf(spec, gpusPerReplica) };
  const speed: SpeedSpec =
    kind === 'batch'
      ? { kind: 'fixed' }
      : { kind: 'allreduce', computeS: SYNTHETIC_STEP_TIME_S * (1 - SYNTHETIC_COMM_FRACTION), commS: SYNTHETIC_STEP_TIME_S * SYNTHETIC_COMM_FRACTION };
  // Elastic bounds: down to half the request (DLRover's min_nodes = max_nodes / 2) and up to twice it (dlsim's choice).
  const elastic: ElasticSpec | null = kind === 'elastic' ? { minReplicas: Math.ceil(replicas / 2), maxReplicas: 2 * replicas, unit: 1 } : null;
  return {
    ...base,
    kind: kind === 'batch' ? 'batch' : 'allreduce',
    roles: [worker],
    elastic,
    totalSteps: kind === 'batch' ? durationS : durationS / SYNTHETIC_STEP_TIME_S,
    speed,
  };
}

/** A GPU job with its drawn preprocessing need (and, asked for at its need, its workers' CPU) when the spec asks for it. */
function withPreprocessing(spec: SyntheticSpec, job: JobSpec, seed: number): JobSpec {
  const asked = spec.preprocessing;
  const worker = job.roles[0]!;
  if (asked === undefined || worker.demand.gpus === 0) return job;
  const preprocessing = drawPreprocessing(`${seed}|${job.id}`);
  if (asked.request === 'given') return { ...job, preprocessing };
  const cpuMilli = Math.min(asked.maxCpuMilliPerReplica, preprocessing.cpuMilliPerGpu * worker.demand.gpus);
  return { ...job, roles: [{ ...worker, demand: { ...worker.demand, cpuMilli } }, ...job.roles.slice(1)], preprocessing };
}

/** An `llm` job: SYNTHETIC_LLM_NODES workers of a whole node, Ant's LLM step times, the drawn duration, checkpoints. */
function llmJob(spec: SyntheticSpec, draws: CommonDraws, base: JobBase, stream: RandomStream): JobSpec {
  const stepS = between(ANT_LLM_STEP_S, stream);
  const commS = stepS * between(ANT_LLM_COMM_SHARE, stream);
  return {
    ...base,
    kind: 'allreduce',
    roles: [{ role: 'worker', replicas: SYNTHETIC_LLM_NODES, demand: demandOf(spec, spec.gpusPerNode) }],
    elastic: { minReplicas: SYNTHETIC_LLM_NODES / 2, maxReplicas: SYNTHETIC_LLM_NODES, unit: ANT_LLM_NODE_UNIT },
    totalSteps: draws.durationS / stepS,
    speed: { kind: 'allreduce', computeS: stepS - commS, commS },
    checkpoint: SYNTHETIC_LLM_CHECKPOINT,
  };
}

/** The fields of a job that do not depend on its kind. */
type JobBase = Pick<JobSpec, 'id' | 'submitS' | 'user' | 'gpuTypes' | 'source'>;

/** A replica's demand for `gpus` GPUs: per-GPU CPU and memory (at least one core and 1 GiB). */
function demandOf(spec: SyntheticSpec, gpus: number): RoleSpec['demand'] {
  return {
    gpus,
    gpuMilli: 1000,
    cpuMilli: Math.max(1000, Math.round(spec.cpuCoresPerGpu * gpus * 1000)),
    memMiB: Math.max(1024, Math.round(spec.memGiBPerGpu * gpus * 1024)),
  };
}

function between(range: { readonly min: number; readonly max: number }, stream: RandomStream): number {
  return range.min + (range.max - range.min) * stream.uniform();
}
