/** One node of the cluster as configured (static; runtime state lives in ClusterState). */
export interface NodeSpec {
  /** Stable node name, e.g. "a100-0003". */
  readonly name: string;
  /** Node group it came from (scenario `cluster.nodes[i].group`). */
  readonly group: string;
  /** GPU model, e.g. "A100"; null for CPU-only nodes. */
  readonly gpuType: string | null;
  /** Number of GPUs on the node (0 for CPU nodes). */
  readonly gpus: number;
  /** CPU capacity in thousandths of a core. */
  readonly cpuMilli: number;
  /** Memory capacity in MiB. */
  readonly memMiB: number;
  /** Rack (top-of-rack switch) the node sits in. */
  readonly rack: string;
}

/** The whole cluster as configured: nodes in a fixed order (their index is their id). */
export interface ClusterSpec {
  readonly nodes: readonly NodeSpec[];
}

/** GPU capacity of one GPU in thousandths (GPU sharing gives a task part of one GPU). */
export const GPU_MILLI = 1000;
