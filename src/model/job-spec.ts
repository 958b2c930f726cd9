import type { PreprocessingSpec } from './preprocessing.js';

/** Job kinds: fixed-size trace replay, synchronous all-reduce training, asynchronous parameter-server training. */
export type JobKind = 'batch' | 'allreduce' | 'ps';

/** Roles a replica can play inside a job. */
export type Role = 'worker' | 'ps' | 'chief';

/** Resources one replica of a role asks for. */
export interface ReplicaDemand {
  /** Whole GPUs per replica (0 for CPU-only roles). */
  readonly gpus: number;
  /** Share of each of those GPUs in thousandths (1000 = whole GPU; < 1000 only with gpus = 1). */
  readonly gpuMilli: number;
  /** CPU per replica in thousandths of a core. */
  readonly cpuMilli: number;
  /** Memory per replica in MiB. */
  readonly memMiB: number;
}

/** A role of a job: how many replicas and what each needs. */
export interface RoleSpec {
  readonly role: Role;
  /** Requested replica count (for elastic workers: the count the nominal speed refers to). */
  readonly replicas: number;
  readonly demand: ReplicaDemand;
  /** Memory a replica really needs, in MiB, when more than it asks for (its pod is OOM-killed). */
  readonly memUseMiB?: number;
}

/** Elastic bounds on the worker count; absent means rigid. */
export interface ElasticSpec {
  readonly minReplicas: number;
  readonly maxReplicas: number;
  /** The worker count must be a multiple of this (DLRover's node_unit). */
  readonly unit: number;
}

/** How a job turns its allocation into training speed (steps per second). */
export type SpeedSpec =
  /** Trace replay: runs `durationS` at its requested allocation; one unit of work per second. */
  | { readonly kind: 'fixed' }
  /**
   * Synchronous data parallel with a fixed global batch: step time at n workers is
   * computeS * n0 / n + commS * ring(n) / ring(max(n0, 2)), ring(n) = 2(n-1)/n, n0 = requested workers.
   */
  | { readonly kind: 'allreduce'; readonly computeS: number; readonly commS: number }
  /** Optimus asynchronous PS model: steps/s = w / (t0 + t1*w/p + t2*w + t3*p). */
  | {
      readonly kind: 'ps-async';
      readonly t0: number;
      readonly t1: number;
      readonly t2: number;
      readonly t3: number;
    };

/**
 * Ground truth of a job's training loss (Optimus's model): l(k) = 1/(b0*k + b1) + b2 at step k,
 * observed with relative noise. Schedulers only see noisy samples, never these parameters.
 */
export interface LossCurveSpec {
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  /** Relative standard deviation of each observed loss value. */
  readonly noise: number;
  /** The job converges (and ends) when the loss reaches this value: totalSteps is that step. */
  readonly targetLoss: number;
}

/** How a job checkpoints: every `intervalS` of training it blocks for `saveS` (flash: 0.5 s, persisting in the background). */
export interface CheckpointSpec {
  /** Training seconds between checkpoints; 'auto' = Young/Daly from the job's expected failure rate. */
  readonly intervalS: number | 'auto';
  /** Seconds a save blocks training (to storage). */
  readonly saveS: number;
  /** Seconds a restart spends loading the last checkpoint. */
  readonly loadS: number;
  /** Flash checkpoint: save to host memory, blocking only FLASH_SAVE_BLOCK_S. */
  readonly flash: boolean;
}

/** Seconds a flash checkpoint blocks training (save to host memory; REFERENCE §1: ~0.5 s). */
export const FLASH_SAVE_BLOCK_S = 0.5;

/**
 * A job's priority class: `high` jobs (the default) preempt running `spot` jobs when they do not
 * fit; a preempted spot job loses the work since its last checkpoint (see priority-classes.ts).
 */
export type PriorityClass = 'high' | 'spot';

/** Priority classes, in the order summaries list them. */
export const PRIORITY_CLASSES: readonly PriorityClass[] = ['high', 'spot'];

/** A job's priority class (absent = high). */
export function priorityOf(job: Pick<JobSpec, 'priority'>): PriorityClass {
  return job.priority ?? 'high';
}

/**
 * How DLRover optimises a PS job's resources (an ElasticJob's `optimizeMode`): `manual` (the user's
 * sizes, no auto-scaling), `single-job` (the job master's local optimizer), `cluster` (the brain
 * service, with history).
 */
export type OptimizeMode = 'manual' | 'single-job' | 'cluster';

/** A job's total resource budget (an ElasticJob's `resourceLimits`): what auto-scaling may give all its replicas together. */
export interface ResourceLimits {
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/**
 * The training data of a job whose workers read it through dynamic sharding (DLRover's master,
 * REFERENCE §2): `epochs` passes over `samplesPerEpoch` samples, `batchSize` samples a step, a
 * shard being `batchSize` x `minibatchesPerShard` samples.
 */
export interface DataSpec {
  readonly samplesPerEpoch: number;
  readonly epochs: number;
  readonly batchSize: number;
  /** Minibatches (steps) per shard; DLRover's default 10. */
  readonly minibatchesPerShard: number;
}

/**
 * Ground truth of a parameter-server job beyond its speed model, hidden from policies (see
 * model/ps-truth.ts): how its variables spread over the PS, how PS memory grows with new embedding
 * ids, and what a worker's memory really is.
 */
export interface PsTruth {
  /**
   * Relative sizes of the model's variables, assigned to the PS round robin in this order (as
   * TensorFlow places variables); a PS's share of the update work and of the memory is its
   * variables' share of the total. Uneven sizes make one PS hot.
   */
  readonly variableSizes: readonly number[];
  /** PS memory in use at step 0, summed over all PS, MiB. */
  readonly psMemBaseMiB: number;
  /** PS memory added per training step by new embedding ids, summed over all PS, MiB (0: a dense model). */
  readonly psMemGrowthMiBPerStep: number;
  /** Memory a worker (or the chief) uses, MiB. */
  readonly workerMemMiB: number;
  /** CPU the speed model's t0 is measured at, thousandths of a core: a worker's compute keeps at most this busy. */
  readonly workerCpuMilli: number;
  /** CPU of a PS the speed model's t1 is measured at, thousandths of a core. */
  readonly psCpuMilli: number;
}

/** A job as submitted: everything the workload knows about it (static). */
export interface JobSpec {
  /** Unique job id. */
  readonly id: string;
  readonly kind: JobKind;
  /** Submission time in seconds from the start of the simulation. */
  readonly submitS: number;
  /** Submitting user (for fairness policies and history); "" when unknown. */
  readonly user: string;
  /** Allowed GPU models; empty means any. */
  readonly gpuTypes: readonly string[];
  /** Roles in a fixed order; the worker role is always present. */
  readonly roles: readonly RoleSpec[];
  /** Elastic worker bounds, when the job can change its worker count. */
  readonly elastic: ElasticSpec | null;
  /** Work to do, in steps (for `fixed` speed: seconds of runtime at the requested allocation). */
  readonly totalSteps: number;
  readonly speed: SpeedSpec;
  /** Where the job came from, for error messages: "file:line" or a YAML path. */
  readonly source: string;
  /** The job's final status in the trace it was imported from ("Succeeded", "Failed", …), when known. */
  readonly traceStatus?: string;
  /**
   * True when the job's source gives no times (a pod list without creation and deletion times): it
   * is submitted at 0 and has no run time of its own, so only a fill run (placement only) replays it.
   */
  readonly untimed?: true;
  /** Attempts the job made in its source trace beyond the first (retries), when known. */
  readonly traceRetries?: number;
  /** The job's loss curve, for jobs that end on convergence. */
  readonly loss?: LossCurveSpec;
  /** How the job checkpoints; absent = never (a crash loses all its progress). */
  readonly checkpoint?: CheckpointSpec;
  /**
   * Seconds from the training processes starting to their first step (model build, collective
   * group set-up, warm-up), paid at every start and restart; absent = 0.
   */
  readonly startupS?: number;
  /** Priority class; absent = high (see PriorityClass). */
  readonly priority?: PriorityClass;
  /** The dataset it trains on (the auto-scaler's history matches jobs by user and dataset); absent: unknown. */
  readonly dataset?: string;
  /** Its total resource budget for auto-scaling; absent: none given. */
  readonly resourceLimits?: ResourceLimits;
  /** How DLRover optimises its resources; absent: the auto-scaling policy's default. */
  readonly optimizeMode?: OptimizeMode;
  /** Its training data, when its workers read it through dynamic sharding. */
  readonly data?: DataSpec;
  /** Ground truth of a PS job's CPU, memory and hot PS (hidden from policies); absent: the usage model's defaults. */
  readonly psTruth?: PsTruth;
  /** Ground truth of a GPU job's input preprocessing (hidden from policies); absent: its input always keeps up. */
  readonly preprocessing?: PreprocessingSpec;
}

/**
 * A job as its submitter declares it and a real controller sees it: its spec without the ground
 * truth of how it trains (speed model, loss curve, true step count).
 */
export interface JobRequest extends Omit<JobSpec, 'speed' | 'loss' | 'totalSteps' | 'psTruth' | 'preprocessing'> {
  /**
   * Steps the submitter asked for: a training job's step count when it has no loss curve; null when
   * it ends on convergence, and for a replayed trace job (its run time is the trace's record, not
   * something its submitter declared).
   */
  readonly declaredSteps: number | null;
  /** Loss the submitter declared as convergence (its loss curve's target); null without a loss curve. */
  readonly targetLoss: number | null;
}

/** A job's ground truth, which only the simulation and oracle baselines read. */
export interface JobTruth {
  readonly speed: SpeedSpec;
  readonly loss: LossCurveSpec | null;
  /** Steps the job really takes (for a job with a loss curve: where it reaches its target loss). */
  readonly totalSteps: number;
  /** A PS job's hidden CPU, memory and hot-PS model; null: the usage model's defaults. */
  readonly psTruth: PsTruth | null;
}

/** True when two replicas ask for the same resources (GPUs, GPU share, CPU and memory). */
export function sameDemand(a: ReplicaDemand, b: ReplicaDemand): boolean {
  return a === b || (a.gpus === b.gpus && a.gpuMilli === b.gpuMilli && a.cpuMilli === b.cpuMilli && a.memMiB === b.memMiB);
}

/** The request of a job: its spec without speed, loss and totalSteps, plus what the submitter declared. */
export function requestOf(spec: JobSpec): JobRequest {
  return new SpecRequest(spec);
}

/** The fields of a request, in the order JSON writes them (a record, so that the compiler checks it names each one). */
const REQUEST_FIELDS = Object.keys({
  id: true,
  kind: true,
  submitS: true,
  user: true,
  gpuTypes: true,
  roles: true,
  elastic: true,
  source: true,
  traceStatus: true,
  untimed: true,
  traceRetries: true,
  checkpoint: true,
  startupS: true,
  priority: true,
  dataset: true,
  resourceLimits: true,
  optimizeMode: true,
  data: true,
  declaredSteps: true,
  targetLoss: true,
} satisfies Record<keyof JobRequest, true>) as (keyof JobRequest)[];

/**
 * A request read through its spec, which it keeps out of reach: one small object a job instead of a
 * copy of twenty fields (a job keeps its request while queued or running, long enough for the
 * collector to copy it twice and promote it).
 */
class SpecRequest implements JobRequest {
  readonly #spec: JobSpec;

  constructor(spec: JobSpec) {
    this.#spec = spec;
  }

  get id(): string {
    return this.#spec.id;
  }

  get kind(): JobKind {
    return this.#spec.kind;
  }

  get submitS(): number {
    return this.#spec.submitS;
  }

  get user(): string {
    return this.#spec.user;
  }

  get gpuTypes(): readonly string[] {
    return this.#spec.gpuTypes;
  }

  get roles(): readonly RoleSpec[] {
    return this.#spec.roles;
  }

  get elastic(): ElasticSpec | null {
    return this.#spec.elastic;
  }

  get source(): string {
    return this.#spec.source;
  }

  get traceStatus(): string | undefined {
    return this.#spec.traceStatus;
  }

  get untimed(): true | undefined {
    return this.#spec.untimed;
  }

  get traceRetries(): number | undefined {
    return this.#spec.traceRetries;
  }

  get checkpoint(): CheckpointSpec | undefined {
    return this.#spec.checkpoint;
  }

  get startupS(): number | undefined {
    return this.#spec.startupS;
  }

  get priority(): PriorityClass | undefined {
    return this.#spec.priority;
  }

  get dataset(): string | undefined {
    return this.#spec.dataset;
  }

  get resourceLimits(): ResourceLimits | undefined {
    return this.#spec.resourceLimits;
  }

  get optimizeMode(): OptimizeMode | undefined {
    return this.#spec.optimizeMode;
  }

  get data(): DataSpec | undefined {
    return this.#spec.data;
  }

  get declaredSteps(): number | null {
    const spec = this.#spec;
    return spec.loss || spec.speed.kind === 'fixed' ? null : spec.totalSteps;
  }

  get targetLoss(): number | null {
    const loss = this.#spec.loss;
    return loss ? loss.targetLoss : null;
  }

  /** The request as a plain record (what JSON.stringify writes). */
  toJSON(): Record<keyof JobRequest, unknown> {
    const record = {} as Record<keyof JobRequest, unknown>;
    for (const field of REQUEST_FIELDS) record[field] = this[field];
    return record;
  }
}

/** The ground truth of a job. */
export function truthOf(spec: JobSpec): JobTruth {
  return { speed: spec.speed, loss: spec.loss ?? null, totalSteps: spec.totalSteps, psTruth: spec.psTruth ?? null };
}

/** Total demand of all replicas of a job at its requested size. */
export function totalDemand(job: Pick<JobSpec, 'roles'>): { gpuMilli: number; cpuMilli: number; memMiB: number } {
  let gpuMilli = 0;
  let cpuMilli = 0;
  let memMiB = 0;
  for (const role of job.roles) {
    gpuMilli += role.replicas * role.demand.gpus * role.demand.gpuMilli;
    cpuMilli += role.replicas * role.demand.cpuMilli;
    memMiB += role.replicas * role.demand.memMiB;
  }
  return { gpuMilli, cpuMilli, memMiB };
}

/** GPUs a job asks for at its requested size, counting shared GPUs fractionally. */
export function requestedGpus(job: Pick<JobSpec, 'roles'>): number {
  return totalDemand(job).gpuMilli / 1000;
}

/** True when some job names the GPU models it may use (the others take any). */
export function someNameGpuModels(jobs: readonly Pick<JobSpec, 'gpuTypes'>[]): boolean {
  // Indexed: it runs once over every job of a run, too seldom to be compiled.
  for (let k = 0; k < jobs.length; k++) if (jobs[k]!.gpuTypes.length > 0) return true;
  return false;
}
