import type { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';

/**
 * True when some schedulable node of `grown` (nodes whose free capacity grew; repeats allowed) could
 * take one replica of some demand in `demands` now, as `scratch` sees it: a dead class of such a gang
 * may fit again. Costs the grown nodes times the distinct demands in a row (a gang's replicas share
 * one) and allocates nothing (queues ask it in most passes).
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
    if (r > 0 && demand === demands[r - 1]!.demand) continue;
    for (let k = 0; k < grown.length; k++) {
      const i = grown[k]!;
      if (cluster.schedulable(i) && nodeAllows(cluster.nodes[i]!, demand, gpuTypes) && scratch.fitsOne(i, demand)) return true;
    }
  }
  return false;
}
