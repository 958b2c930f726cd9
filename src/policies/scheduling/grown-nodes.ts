import type { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';

/**
 * True when some schedulable node of `grown` (nodes whose free capacity grew) could take one
 * replica of some demand in `demands` now (a scratch of the current state tells): a dead class of
 * such a gang may fit again. Costs the grown nodes times the demands and allocates nothing (queues
 * ask it in most passes).
 */
export function fitsSomeGrown(
  cluster: ClusterView,
  scratch: CapacityScratch,
  grown: readonly number[],
  gpuTypes: readonly string[],
  demands: readonly { readonly demand: ReplicaDemand }[],
): boolean {
  for (let r = 0; r < demands.length; r++) {
    const demand = demands[r]!.demand;
    for (let k = 0; k < grown.length; k++) {
      const i = grown[k]!;
      if (cluster.schedulable(i) && nodeAllows(cluster.nodes[i]!, demand, gpuTypes) && scratch.fitsOne(i, demand)) return true;
    }
  }
  return false;
}
