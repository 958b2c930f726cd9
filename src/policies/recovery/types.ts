import type { FaultType } from '../../faults/catalog.js';
import type { Role } from '../../model/job-spec.js';
import type { JobView } from '../types.js';

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

/** What an in-place recovery costs and may do, in seconds. */
export interface InPlaceRecovery {
  readonly kind: 'in-place';
  /** Until the failure is noticed. */
  readonly detectS: number;
  /** Run DLRover's node check on the job's nodes: faulty nodes and stragglers are cordoned and replaced. */
  readonly nodeCheck: boolean;
  /** Starting a replacement pod on a healthy node. */
  readonly replaceS: number;
  /**
   * Re-forming the group with fewer workers (a multiple of the job's node unit, at least its minimum)
   * when no replacement fits; null = wait in the queue for capacity. It grows back when capacity returns.
   */
  readonly scaleDownS: number | null;
  /** Restarting the training processes in place. */
  readonly restartS: number;
  /** Nodes whose pods are relaunched although their hardware is fine (their agent gave up restarting). */
  readonly relaunchNodeIndices: readonly number[];
  /** Relaunches a pod's lineage may take; a pod past it is not replaced (null = no limit). */
  readonly maxRelaunchesPerPod: number | null;
  /** Memory in MiB the relaunched pods of the OOM-killed role get (null: unchanged). */
  readonly relaunchMemMiB: number | null;
}

/**
 * What happens to a crashed job. Every plan rolls the job back to its last checkpoint (one further
 * after silent data corruption); the simulation accounts the lost work.
 */
export type RecoveryPlan =
  /** The job fails for good, for the reason given. */
  | { readonly kind: 'fail'; readonly why: string }
  /**
   * The job is resubmitted: it releases everything, and after `detectS` it joins the queue again
   * like a new job; when it starts, pod scheduling takes `rescheduleS`, then the checkpoint loads.
   */
  | { readonly kind: 'resubmit'; readonly detectS: number; readonly rescheduleS: number }
  /** The job keeps its healthy pods; lost ones are replaced, or it shrinks, or it waits; then it restarts and loads. */
  | InPlaceRecovery;

/** Checkpoint costs a recovery stack imposes (e.g. DLRover's flash checkpoint), in seconds. */
export interface CheckpointCosts {
  readonly saveS: number;
  readonly loadS: number;
}

/** Decides how a job recovers from a crash. */
export interface RecoveryPolicy {
  readonly name: string;
  /** Save and load costs that replace the jobs' own (the stack's checkpointing), when set. */
  readonly checkpointCosts?: CheckpointCosts;
  /** Seconds after which the stack itself declares a hung job failed (a heartbeat timeout), when it watches; the scenario's watchdog may fire first. */
  readonly hangTimeoutS?: number;
  /** The plan for a job that just crashed at `nowS`. */
  onCrash(job: JobView, cause: CrashCause, nowS: number): RecoveryPlan;
  /**
   * Seconds until a hardware fault the scheduler cannot see (a broken GPU or network on a node that
   * still looks healthy) is located and taken out of service, for a fault at `nowS`.
   */
  isolationDelayS(fault: FaultType, nowS: number): number;
}
