import type { CapacityScratch, NodeFree } from '../../model/capacity.js';
import { GPU_MILLI, type NodeSpec } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';

/**
 * Tetris's alignment of a replica with a node: the sum over GPU, CPU and memory of
 * demand x free, both as shares of the node's capacity (a node without GPUs has no GPU term).
 */
export function alignment(node: NodeSpec, free: Readonly<NodeFree>, demand: ReplicaDemand): number {
  let freeGpuMilli = 0;
  for (const milli of free.gpuFreeMilli) freeGpuMilli += milli;
  return alignmentOfFree(node, freeGpuMilli, free.cpuMilli, free.memMiB, demand);
}

/** The alignment of a replica with a machine as the scratch sees it now, read from its free counters (no copy of the machine). */
export function alignmentOn(scratch: CapacityScratch, nodeIndex: number, demand: ReplicaDemand): number {
  return alignmentOfFree(scratch.nodes[nodeIndex]!, scratch.freeGpuMilli(nodeIndex), scratch.freeCpuMilli(nodeIndex), scratch.freeMemMiB(nodeIndex), demand);
}

/** The alignment of a replica with a machine that has the given free capacity. */
export function alignmentOfFree(node: NodeSpec, freeGpuMilli: number, freeCpuMilli: number, freeMemMiB: number, demand: ReplicaDemand): number {
  let score = 0;
  if (node.gpus > 0) {
    const capacityMilli = node.gpus * GPU_MILLI;
    score += ((demand.gpus * demand.gpuMilli) / capacityMilli) * (freeGpuMilli / capacityMilli);
  }
  score += (demand.cpuMilli / node.cpuMilli) * (freeCpuMilli / node.cpuMilli);
  score += (demand.memMiB / node.memMiB) * (freeMemMiB / node.memMiB);
  return score;
}
