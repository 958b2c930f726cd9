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
