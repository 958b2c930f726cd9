import type { FaultType } from '../../faults/catalog.js';
import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { Role } from '../../model/job-spec.js';
import type { CheckpointCosts } from '../../model/checkpoint.js';
import type { PauseStep } from '../../model/pause.js';
import type { JobView, PlacementPolicy } from '../types.js';

/** Why a job's training processes died, and what of its hardware is gone. */
export interface CrashCause {
  /** The fault, or null when a hang's watchdog fired. */
  readonly fault: FaultType | null;
  /** True when the job lost a GPU, node or network (not only its processes). */
  readonly hardwareLost: boolean;
  /** Nodes of the job that are down now (lost GPUs count their node). */
  readonly lostNodeIndices: readonly number[];
  /** Node of the job's first worker (rank 0), where a TCP rendezvous store would live. */
  readonly rankZeroNodeIndex: number | null;
  /** Node the fault hit (null for a hang's watchdog). */
  readonly faultNodeIndex: number | null;
  /** Set when a pod was OOM-killed: its role and memory (the fault is null then). */
  readonly oom: { readonly role: Role; readonly memMiB: number } | null;
}

/** What the node check's test measures on one node (see runNodeCheck). */
export interface NodeTest {
  readonly nodeIndex: number;
  /** True when the node fails every test it takes part in (its hardware is lost). */
  readonly faulty: boolean;
  /** Seconds its GEMM + allgather test takes when its group passes. */
  readonly testS: number;
}

/**
 * What a recovery changes on the hardware before anything else, in this order: it cordons nodes,
 * releases pods of the job, then takes out of service the broken hardware the scheduler cannot see
 * yet on the nodes it found bad.
 */
export interface RecoveryCleanup {
  /** Nodes to cordon (stragglers the node check found); each is logged. */
  readonly cordon: readonly number[];
  /** Pods of the crashed job to release. */
  readonly remove: readonly TaskPlacement[];
  /** Nodes found bad, whose hidden broken hardware is taken out of service once `remove` is released. */
  readonly foundBad: readonly number[];
}

/** What a recovery policy reads when it plans growing shrunk jobs back. */
export interface GrowBackContext {
  /** Current simulated time in seconds. */
  readonly nowS: number;
  readonly cluster: ClusterView;
  /** The placement policy of the stack. */
  readonly placement: PlacementPolicy;
  /** A fresh scratch copy of the current free capacity to plan in. */
  scratch(): CapacityScratch;
  /** Tasks a job holds now (empty when none). */
  tasksOf(jobId: string): readonly TaskPlacement[];
  /** Where a running job stands in the running list (start order; smaller started earlier). */
  startOrder(jobId: string): number;
}

/** What a recovery policy reads when it plans a crashed job's recovery. */
export interface RecoveryContext extends GrowBackContext {
  /**
   * The node-check probe: what DLRover's GEMM + allgather test measures on these nodes of the
   * crashed job (a node is faulty when it is among the cause's lost nodes; its test takes 10 s over
   * the slowest speed factor of the job's GPUs there).
   */
  testNodes(nodeIndices: readonly number[]): NodeTest[];
  /** A fresh scratch of the free capacity as it will be once the simulation has carried out `cleanup`. */
  scratchAfter(cleanup: RecoveryCleanup): CapacityScratch;
}

/**
 * The job keeps its healthy pods and restarts in place: after `cleanup`, it takes `add` (replacement
 * pods), its new shape, and pauses `pause` (detection, node check, rescheduling, start-up, checkpoint load).
 */
export interface InPlacePlan extends RecoveryCleanup {
  readonly kind: 'in-place';
  readonly add: readonly TaskPlacement[];
  readonly pause: readonly PauseStep[];
  /** True when the job now runs with fewer workers than it asked for (it was scaled down). */
  readonly shrunk: boolean;
  /** What happened, for the timeline. */
  readonly detail: string;
}

/**
 * What happens to a crashed job. Every plan rolls the job back to its last checkpoint (one further
 * after silent data corruption); the simulation accounts the lost work and carries the plan out
 * without deciding anything.
 */
export type RecoveryPlan =
  /** The job fails for good, for the reason given (after the cleanup its recovery got to, if any). */
  | ({ readonly kind: 'fail'; readonly why: string } & Partial<RecoveryCleanup>)
  /**
   * The job is resubmitted: it releases everything, and after `detectS` it joins the queue again
   * like a new job; when it starts, pod scheduling takes `rescheduleS`, then the checkpoint loads.
   */
  | { readonly kind: 'resubmit'; readonly detectS: number; readonly rescheduleS: number }
  /** After `cleanup`, the job releases everything and waits in the queue for capacity; its start pays `restartPause`. */
  | ({ readonly kind: 'requeue'; readonly restartPause: readonly PauseStep[] } & RecoveryCleanup)
  | InPlacePlan;

/** One step of a shrunk job back towards its requested workers: the workers to add and the pause it costs. */
export interface GrowPlan {
  readonly jobId: string;
  /** Worker pods to add (empty when the job is already back at its size by other means). */
  readonly add: readonly TaskPlacement[];
  readonly pause: readonly PauseStep[];
  /** True when the job is back at its requested workers. */
  readonly done: boolean;
}

/** Decides how a job recovers from a crash. */
export interface RecoveryPolicy {
  readonly name: string;
  /** Save and load costs that replace the jobs' own (the stack's checkpointing), when set. */
  readonly checkpointCosts?: CheckpointCosts;
  /** Seconds after which the stack itself declares a hung job failed (a heartbeat timeout), when it watches; the scenario's watchdog may fire first. */
  readonly hangTimeoutS?: number;
  /** The plan for a job that just crashed; it changes nothing it is given. */
  onCrash(job: JobView, cause: CrashCause, context: RecoveryContext): RecoveryPlan;
  /** Grow plans for the running jobs the policy shrank, in start order (absent: it never shrinks a job). */
  growBack?(context: GrowBackContext): GrowPlan[];
  /**
   * Seconds until a hardware fault the scheduler cannot see (a broken GPU or network on a node that
   * still looks healthy) is located and taken out of service, for a fault at `nowS`.
   */
  isolationDelayS(fault: FaultType, nowS: number): number;
}
