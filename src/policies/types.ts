import type { TaskPlacement } from '../model/allocation.js';
import type { CapacityScratch } from '../model/capacity.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { JobKind, JobRequest, JobTruth, ReplicaDemand, Role, RoleSpec } from '../model/job-spec.js';
import type { LossSample, SpeedSample } from '../model/observations.js';
import type { RuntimeShape } from '../model/shape.js';
import type { UsageSample } from '../model/usage.js';
import type { Decision } from './decision.js';
import type { CapacityReason, WaitReason } from './wait-reason.js';

/** Lifecycle of a job in the simulation ('waiting': not submitted yet, or crashed and not yet resubmitted). */
export type JobPhase = 'waiting' | 'queued' | 'running' | 'completed' | 'failed';

/** What a policy may read about a job: what was requested and what has been observed, never the ground truth. */
export interface JobView {
  /** What the submitter declared. */
  readonly request: JobRequest;
  readonly phase: JobPhase;
  /** First time the job started running, or null. */
  readonly firstStartS: number | null;
  /**
   * While queued, its place in the queue: a smaller number comes first in `SchedulingContext.queued`.
   * Fixed while it stays queued (a job reported again in `changes.queued` may have a new one).
   */
  readonly queuePosition: number;
  /**
   * Its place in the run's submission order, from 0: unique and fixed for the run, so that a policy
   * may keep per-job state in arrays indexed by it.
   */
  readonly arrivalIndex: number;
  /** Steps done so far, as of the current simulated time when read. */
  readonly progressSteps: number;
  /** Worker replicas it currently runs with (0 when not running). */
  readonly workers: number;
  /** Parameter servers it currently runs with (0 when not running). */
  readonly ps: number;
  /** Role by role, the replicas it runs with now and what each holds (empty when not running). */
  readonly shape: RuntimeShape;
  /** GPUs it holds now (shared GPUs fractionally). */
  readonly gpus: number;
  /** Service received so far, as of the current simulated time when read: GPUs held times seconds (Tiresias's attained service). */
  readonly attainedGpuS: number;
  /** True while a resize or restart pauses its training. */
  readonly paused: boolean;
  /** Speeds measured at the shapes it has run with, oldest first. */
  readonly speedSamples: readonly SpeedSample[];
  /** Its parameter-server pods in rank order, for a job whose PS ranks are tracked (a PS job with a modelled truth); empty otherwise. */
  readonly psRanked: readonly TaskPlacement[];
  /** Loss values it has reported so far (empty for jobs without a loss curve). */
  lossSamples(): LossSample[];
}

/** What an oracle baseline may read about a job: its view plus the ground truth. */
export interface OracleJobView extends JobView {
  readonly truth: JobTruth;
}

/** One replica to place: its role and what it needs. */
export interface ReplicaRequest {
  readonly role: Role;
  readonly demand: ReplicaDemand;
}

/** A set of replicas of one job to place together (a gang). */
export interface PlacementRequest {
  readonly jobId: string;
  /** Kind of the job the replicas belong to (topology-aware placement keeps all-reduce jobs in a rack); absent: unknown. */
  readonly jobKind?: JobKind;
  /** Allowed GPU models for GPU replicas; empty means any. */
  readonly gpuTypes: readonly string[];
  readonly replicas: readonly ReplicaRequest[];
}

/** Chooses nodes (and GPUs) for a gang of replicas. */
export interface PlacementPolicy {
  readonly name: string;
  /**
   * True when a gang of identical replicas fails only if the free capacity cannot hold it at all
   * (every replica goes to some node that takes it): such a gang that fails keeps failing while the
   * free capacity only shrinks, which lets schedulers skip its likes.
   */
  readonly completeForIdentical?: boolean;
  /**
   * True when a gang fails only if, at some step, no node takes one more of its remaining replicas
   * (each step puts at least one replica on a node that takes it): then a gang of R replicas fits
   * wherever R untouched nodes could each take any one of its replicas on their own.
   */
  readonly failsOnlyWhenNoNodeTakesOne?: boolean;
  /** Reserves all replicas in `scratch` and returns their tasks, or returns null and reserves nothing. */
  place(scratch: CapacityScratch, request: PlacementRequest): TaskPlacement[] | null;
}

/** What a scheduling policy sees at one scheduling pass (jobs as `V`: plain views, or oracle views for oracle baselines). */
export interface SchedulingContext<V extends JobView = JobView> {
  /** Current simulated time in seconds. */
  readonly nowS: number;
  readonly cluster: ClusterView;
  /** Jobs waiting to start, in submission order (reading it builds the whole list: see `queuedInOrder`). */
  readonly queued: readonly V[];
  /** Jobs waiting to start, in submission order, read lazily: a policy that stops early pays for the jobs it read. */
  queuedInOrder(): Iterable<V>;
  /** Jobs currently running, in start order. */
  readonly running: readonly V[];
  /** The placement policy of the stack. */
  readonly placement: PlacementPolicy;
  /** A fresh scratch copy of the current free capacity to plan in. */
  scratch(): CapacityScratch;
  /**
   * What changed since the policy was last consulted: jobs that joined the queue (submitted,
   * preempted, resubmitted, requeued after a crash), that started, that stopped running, and that
   * kept running while their tasks changed (resized, reshaped, recovered in place). A policy may keep
   * its own index from these instead of reading the whole queue or running list; a job may appear in
   * several lists, and its phase now tells where it stands. The lists hold for this pass only (the
   * next one reuses them): a policy copies what it keeps.
   */
  readonly changes: QueueChanges<V>;
  /** Where the policy says why the jobs it keeps waiting wait (absent in hand-built contexts: then nothing is recorded). */
  readonly why?: WaitExplainer<V>;
}

/** Changes of the queue and the running list between two consultations of a scheduling policy. */
export interface QueueChanges<V extends JobView = JobView> {
  readonly queued: readonly V[];
  readonly started: readonly V[];
  readonly stopped: readonly V[];
  readonly resized: readonly V[];
}

/** One action a scheduling policy asks for (see Decision). */
export type SchedulingAction = Decision;

/** What a pass that asks for nothing returns (shared: most passes of a busy run start nothing). */
export const NO_ACTIONS: readonly SchedulingAction[] = [];

/** What every scheduling policy has, whatever it may read about jobs. */
interface SchedulingPolicyBase {
  readonly name: string;
  /** When set, the policy is also consulted every this many seconds; it is always consulted after any change while jobs wait or run. */
  readonly tickS?: number;
  /**
   * The smallest gang the policy may ever start the job with (absent, or null for the job: its
   * requested replicas); a job whose smallest gang does not fit the whole, empty cluster can never
   * start and fails at once. Asked at every arrival: null for a job started only at its requested
   * size makes no request.
   */
  smallestStart?(request: JobRequest): PlacementRequest | null;
  /**
   * True when the policy reads the cluster's machines one GPU model at a time (which machines it
   * weighs depends on that grouping): the cluster's fit index then keeps them grouped by model.
   */
  readonly machinesByGpuModel?: boolean;
}

/**
 * Decides which queued jobs start, and may resize or preempt running ones, from what a real
 * controller could know. Must not change anything it is given. (`schedule` is a function-typed
 * property so that a policy taking oracle views does not pass for a plain one.)
 */
export interface PlainSchedulingPolicy extends SchedulingPolicyBase {
  readonly oracle?: false;
  readonly schedule: (context: SchedulingContext) => readonly SchedulingAction[];
}

/** A scheduling policy that reads the jobs' ground truth: an oracle baseline, marked as one. */
export interface OracleSchedulingPolicy extends SchedulingPolicyBase {
  readonly oracle: true;
  readonly schedule: (context: SchedulingContext<OracleJobView>) => readonly SchedulingAction[];
}

/** A scheduling policy of either kind; the simulation hands every policy oracle views. */
export type SchedulingPolicy = PlainSchedulingPolicy | OracleSchedulingPolicy;

/** The parts of a job request a placement request is built from. */
export type JobShapeRequest = Pick<JobRequest, 'id' | 'kind' | 'gpuTypes' | 'roles'>;

/** The replicas of a job at its requested size (worker count overridable for elastic jobs), in role order. */
export function replicasOf(request: Pick<JobRequest, 'roles'>, workers?: number): ReplicaRequest[] {
  const countOf = (role: RoleSpec): number => {
    const count = role.role === 'worker' && workers !== undefined ? workers : role.replicas;
    return count > 0 ? Math.ceil(count) : 0;
  };
  let total = 0;
  for (const role of request.roles) total += countOf(role);
  // Made at its final length (pushing into an empty array reserves room for 16), one read-only entry shared by a role's replicas.
  const replicas = new Array<ReplicaRequest>(total);
  let k = 0;
  for (const role of request.roles) {
    const replica: ReplicaRequest = { role: role.role, demand: role.demand };
    for (let r = countOf(role); r > 0; r--) replicas[k++] = replica;
  }
  return replicas;
}

/** A placement request for a job at its requested size. */
export function placementRequestOf(request: JobShapeRequest, workers?: number): PlacementRequest {
  return { jobId: request.id, jobKind: request.kind, gpuTypes: request.gpuTypes, replicas: replicasOf(request, workers) };
}

/**
 * What a policy that watches running jobs sees at one pass (auto-scaling, data workers): the
 * running jobs, the cluster, and the sampled usage of the jobs it listens to. Sampling costs only
 * the jobs listened to.
 */
export interface ObservingContext {
  /** Current simulated time in seconds. */
  readonly nowS: number;
  readonly cluster: ClusterView;
  /** Jobs running now, in start order. */
  readonly running: readonly JobView[];
  /** The placement policy of the stack. */
  readonly placement: PlacementPolicy;
  /** A fresh scratch copy of the current free capacity to plan in. */
  scratch(): CapacityScratch;
  /** A job as a controller knows it (its phase tells whether it still runs, waits or ended); undefined for an unknown id. */
  job(jobId: string): JobView | undefined;
  /** A listened job's samples, oldest first (the last 50; empty before its first sample or when not listened). */
  samples(jobId: string): readonly UsageSample[];
  /** Samples the job every `sim.samplePeriod` from now on (while it runs). */
  listen(jobId: string): void;
  /** Stops sampling the job. */
  unlisten(jobId: string): void;
  /** Samples the job as `listen` does, its samples carrying its input queue's fill (`inputQueueLevel`) too. */
  listenInput(jobId: string): void;
}

/**
 * Where a scheduling policy says why jobs wait. A reason holds until the policy gives the job
 * another one or the job leaves the queue; every call costs O(1) (a diagnosis: a few placements).
 * A policy that says nothing leaves its jobs `not-chosen`.
 */
export interface WaitExplainer<V extends JobView = JobView> {
  /** `job` waits for `reason` (kept by `blocker`, when another job keeps it). */
  job(job: V, reason: WaitReason, blocker?: V): void;
  /**
   * `job`, whose gang (`request`, by default its requested replicas) the policy could not place on
   * `scratch`, waits for the capacity reason a diagnosis on that scratch finds (see `diagnose`).
   * Returns the reason.
   */
  unplaced(job: V, scratch: CapacityScratch, request?: PlacementRequest): CapacityReason;
  /** The capacity reason a gang that could not be placed on `scratch` waits for (nothing recorded). */
  diagnose(scratch: CapacityScratch, request: PlacementRequest): CapacityReason;
  /**
   * Every queued job this pass did not name (by `job` or `unplaced`) and that is not in a group
   * waits for `reason`; jobs named in earlier passes but not in this one take it too (a preempted
   * job keeps `preempted`).
   */
  others(reason: WaitReason, blocker?: V): void;
  /** `job` waits for whatever its group (a policy's own number, 0 or more) waits for, from now on. */
  joinGroup(job: V, group: number): void;
  /** Every job in the group waits for `reason` (kept by `blocker`), from now on. */
  group(group: number, reason: WaitReason, blocker?: V): void;
}
