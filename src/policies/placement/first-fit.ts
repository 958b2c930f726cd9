import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';
import { nodeAllows } from './node-filter.js';

/**
 * `first-fit`: the classic bin-packing baseline. Each replica in turn goes to the lowest-index
 * schedulable, allowed node that takes it, with no scoring; a gang that does not fit reserves nothing.
 */
export const firstFitPlacement: PlacementPolicy = {
  name: 'first-fit',
  completeForIdentical: true,
  failsOnlyWhenNoNodeTakesOne: true,
  place(scratch: CapacityScratch, request: PlacementRequest): TaskPlacement[] | null {
    const placed: TaskPlacement[] = [];
    for (const replica of request.replicas) {
      let task: TaskPlacement | null = null;
      for (let i = 0; i < scratch.nodes.length && task === null; i++) {
        if (nodeAllows(scratch.nodes[i]!, replica.demand, request.gpuTypes) && scratch.fitsOne(i, replica.demand)) {
          task = scratch.reserve(i, replica.role, replica.demand);
        }
      }
      if (task === null) {
        scratch.unreserve(placed);
        return null;
      }
      placed.push(task);
    }
    return placed;
  },
};
