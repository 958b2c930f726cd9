import type { ReplicaDemand, Role } from './job-spec.js';

/** One replica of a job placed on one node. */
export interface TaskPlacement {
  readonly role: Role;
  /** Index of the node in the cluster spec. */
  readonly nodeIndex: number;
  /** GPUs used on that node (indices within the node); length = demand.gpus. */
  readonly gpuIndices: readonly number[];
  /** What the replica holds: GPU share per GPU, CPU and memory. */
  readonly demand: ReplicaDemand;
}

/**
 * An auxiliary task of a job: CPU and memory only (e.g. a data-preprocessing worker), on any node,
 * always preemptible: the simulation takes it back in the instant a job's training task needs its
 * capacity. Training placement does not see it; it uses only capacity no training task holds.
 */
export interface AuxTask {
  /** Index of the node in the cluster spec. */
  readonly nodeIndex: number;
  /** CPU it holds, in thousandths of a core. */
  readonly cpuMilli: number;
  /** Memory it holds, in MiB. */
  readonly memMiB: number;
}

/** No tasks: what a job holds before it starts and after it stops (one list shared by every such reader). */
export const NO_TASKS: readonly TaskPlacement[] = [];

/** No auxiliary tasks: what a job without data workers holds. */
export const NO_AUX_TASKS: readonly AuxTask[] = [];

/** An auxiliary task the simulation took back, and the job that held it. */
export interface Eviction {
  readonly jobId: string;
  readonly task: AuxTask;
}
