import type { Eviction, TaskPlacement } from '../model/allocation.js';
import type { CapacityScratch } from '../model/capacity.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { JobKind, JobRequest, JobTruth, ReplicaDemand, Role } from '../model/job-spec.js';
import type { LossSample, SpeedSample } from '../model/observations.js';
import type { Decision } from './decision.js';

/** Lifecycle of a job in the simulation ('waiting': not submitted yet, or crashed and not yet resubmitted). */
export type JobPhase = 'waiting' | 'queued' | 'running' | 'completed' | 'failed';

/** What a policy may read about a job: what was requested and what has been observed, never the ground truth. */
export interface JobView {
  /** What the submitter declared. */
  readonly request: JobRequest;
  readonly phase: JobPhase;
  /** First time the job started running, or null. */
  readonly firstStartS: number | null;
  /** Steps done so far, as of the current simulated time when read. */
  readonly progressSteps: number;
  /** Worker replicas it currently runs with (0 when not running). */
  readonly workers: number;
  /** Parameter servers it currently runs with (0 when not running). */
  readonly ps: number;
  /** GPUs it holds now (shared GPUs fractionally). */
  readonly gpus: number;
  /** Service received so far, as of the current simulated time when read: GPUs held times seconds (Tiresias's attained service). */
  readonly attainedGpuS: number;
  /** True while a resize or restart pauses its training. */
  readonly paused: boolean;
  /** Speeds measured at the shapes it has run with, oldest first. */
  readonly speedSamples: readonly SpeedSample[];
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
  /** Reserves all replicas in `scratch` and returns their tasks, or returns null and reserves nothing. */
  place(scratch: CapacityScratch, request: PlacementRequest): TaskPlacement[] | null;
}

/** What a scheduling policy sees at one scheduling pass (jobs as `V`: plain views, or oracle views for oracle baselines). */
export interface SchedulingContext<V extends JobView = JobView> {
  /** Current simulated time in seconds. */
  readonly nowS: number;
  readonly cluster: ClusterView;
  /** Jobs waiting to start, in submission order. */
  readonly queued: readonly V[];
  /** Jobs currently running, in start order. */
  readonly running: readonly V[];
  /** The placement policy of the stack. */
  readonly placement: PlacementPolicy;
  /** A fresh scratch copy of the current free capacity to plan in. */
  scratch(): CapacityScratch;
}

/** One action a scheduling policy asks for (see Decision). */
export type SchedulingAction = Decision;

/** What every scheduling policy has, whatever it may read about jobs. */
interface SchedulingPolicyBase {
  readonly name: string;
  /** When set, the policy is also consulted every this many seconds; it is always consulted after any change while jobs wait or run. */
  readonly tickS?: number;
  /**
   * The smallest gang the policy may ever start the job with (absent: its requested replicas); a job
   * whose smallest gang does not fit the whole, empty cluster can never start and fails at once.
   */
  smallestStart?(request: JobRequest): PlacementRequest;
  /** Told of auxiliary tasks of its jobs that the simulation took back (a training task needed their capacity, or their node went down). */
  onEvicted?(evictions: readonly Eviction[]): void;
}

/**
 * Decides which queued jobs start, and may resize or preempt running ones, from what a real
 * controller could know. Must not change anything it is given. (`schedule` is a function-typed
 * property so that a policy taking oracle views does not pass for a plain one.)
 */
export interface PlainSchedulingPolicy extends SchedulingPolicyBase {
  readonly oracle?: false;
  readonly schedule: (context: SchedulingContext) => SchedulingAction[];
}

/** A scheduling policy that reads the jobs' ground truth: an oracle baseline, marked as one. */
export interface OracleSchedulingPolicy extends SchedulingPolicyBase {
  readonly oracle: true;
  readonly schedule: (context: SchedulingContext<OracleJobView>) => SchedulingAction[];
}

/** A scheduling policy of either kind; the simulation hands every policy oracle views. */
export type SchedulingPolicy = PlainSchedulingPolicy | OracleSchedulingPolicy;

/** The parts of a job request a placement request is built from. */
export type JobShapeRequest = Pick<JobRequest, 'id' | 'kind' | 'gpuTypes' | 'roles'>;

/** The replicas of a job at its requested size (worker count overridable for elastic jobs), in role order. */
export function replicasOf(request: Pick<JobRequest, 'roles'>, workers?: number): ReplicaRequest[] {
  const replicas: ReplicaRequest[] = [];
  for (const role of request.roles) {
    const count = role.role === 'worker' && workers !== undefined ? workers : role.replicas;
    for (let r = 0; r < count; r++) replicas.push({ role: role.role, demand: role.demand });
  }
  return replicas;
}

/** A placement request for a job at its requested size. */
export function placementRequestOf(request: JobShapeRequest, workers?: number): PlacementRequest {
  return { jobId: request.id, jobKind: request.kind, gpuTypes: request.gpuTypes, replicas: replicasOf(request, workers) };
}
