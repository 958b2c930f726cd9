import type { NodeFree } from '../../model/capacity.js';
import { GPU_MILLI, type NodeSpec } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';

/**
 * Tetris's alignment of a replica with a node: the sum over GPU, CPU and memory of
 * demand x free, both as shares of the node's capacity (a node without GPUs has no GPU term).
 */
export function alignment(node: NodeSpec, free: Readonly<NodeFree>, demand: ReplicaDemand): number {
  let score = 0;
  if (node.gpus > 0) {
    let freeGpuMilli = 0;
    for (const milli of free.gpuFreeMilli) freeGpuMilli += milli;
    const capacityMilli = node.gpus * GPU_MILLI;
    score += ((demand.gpus * demand.gpuMilli) / capacityMilli) * (freeGpuMilli / capacityMilli);
  }
  score += (demand.cpuMilli / node.cpuMilli) * (free.cpuMilli / node.cpuMilli);
  score += (demand.memMiB / node.memMiB) * (free.memMiB / node.memMiB);
  return score;
}
