import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';
import { nodeAllows } from './node-filter.js';

/**
 * `spread`: worst fit, the opposite of `pack`. Each replica in turn goes to the schedulable,
 * allowed node that takes it with the most free GPU capacity, then the most free CPU, then the
 * lowest index; replicas of one gang therefore spread over nodes.
 */
export const spreadPlacement: PlacementPolicy = {
  name: 'spread',
  completeForIdentical: true,
  failsOnlyWhenNoNodeTakesOne: true,
  place(scratch: CapacityScratch, request: PlacementRequest): TaskPlacement[] | null {
    let wholeGpusNeeded = 0;
    for (const replica of request.replicas) {
      if (replica.demand.gpuMilli >= GPU_MILLI) wholeGpusNeeded += replica.demand.gpus;
    }
    if (wholeGpusNeeded > scratch.freeWholeGpusTotal) return null;

    const placed: TaskPlacement[] = [];
    for (const replica of request.replicas) {
      const node = emptiestNode(scratch, replica.demand, request.gpuTypes);
      const task = node === null ? null : scratch.reserve(node, replica.role, replica.demand);
      if (task === null) {
        scratch.unreserve(placed);
        return null;
      }
      placed.push(task);
    }
    return placed;
  },
};

/** The node that takes the replica with the most free GPU capacity (then CPU, then lowest index), or null. */
function emptiestNode(scratch: CapacityScratch, demand: ReplicaDemand, gpuTypes: readonly string[]): number | null {
  if (scratch.indexed) {
    const accepts = (i: number): boolean => nodeAllows(scratch.nodes[i]!, demand, gpuTypes) && scratch.fitsOne(i, demand);
    return scratch.worstFit(scratch.fitGroups(demand.gpus > 0, gpuTypes), accepts);
  }
  let best: number | null = null;
  let bestGpuMilli = -1;
  let bestCpuMilli = -1;
  for (let i = 0; i < scratch.nodes.length; i++) {
    if (!nodeAllows(scratch.nodes[i]!, demand, gpuTypes) || !scratch.fitsOne(i, demand)) continue;
    const gpuMilli = scratch.freeGpuMilli(i);
    const cpuMilli = scratch.freeCpuMilli(i);
    if (gpuMilli > bestGpuMilli || (gpuMilli === bestGpuMilli && cpuMilli > bestCpuMilli)) {
      best = i;
      bestGpuMilli = gpuMilli;
      bestCpuMilli = cpuMilli;
    }
  }
  return best;
}
