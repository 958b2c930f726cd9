import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';
import { nodeAllows } from './node-filter.js';
import { packPlacement, packWithin } from './pack.js';

/** The nodes of one rack, in node order. */
interface Rack {
  readonly nodes: ReadonlySet<number>;
  /** Lowest node index in the rack (the rack's order in the cluster). */
  readonly first: number;
}

/**
 * `topology`: rack-aware placement for all-reduce jobs (whose step slows down by the simulation's
 * `crossRackSlowdown` when their workers span racks). An all-reduce gang goes into ONE rack when
 * any rack can take it: the rack with the least free GPU capacity that fits (best fit at rack
 * level), packed within the rack by `pack`. If no rack takes the whole gang, the workers go into one
 * rack and the other roles (a CPU chief) anywhere. Otherwise the gang uses the fewest racks: the
 * racks that take the most workers, packed by `pack`. Other job kinds (and requests without a kind)
 * are placed exactly as `pack` places them.
 */
export const topologyPlacement: PlacementPolicy = {
  name: 'topology',
  place(scratch: CapacityScratch, request: PlacementRequest): TaskPlacement[] | null {
    if (request.jobKind !== 'allreduce') return packPlacement.place(scratch, request);
    const racks = racksOf(scratch);
    const freeGpuMilli = new Map(racks.map((rack) => [rack, rackFreeGpuMilli(scratch, rack)] as const));
    const bestFit = [...racks].sort((a, b) => freeGpuMilli.get(a)! - freeGpuMilli.get(b)! || a.first - b.first);

    for (const rack of bestFit) {
      const tasks = packWithin(scratch, request, rack.nodes);
      if (tasks !== null) return tasks;
    }

    const workers = request.replicas.filter((r) => r.role === 'worker');
    const others = request.replicas.filter((r) => r.role !== 'worker');
    if (workers.length > 0 && others.length > 0) {
      for (const rack of bestFit) {
        const placedWorkers = packWithin(scratch, { ...request, replicas: workers }, rack.nodes);
        if (placedWorkers === null) continue;
        const placedOthers = packPlacement.place(scratch, { ...request, replicas: others });
        if (placedOthers !== null) return [...placedWorkers, ...placedOthers];
        scratch.unreserve(placedWorkers);
      }
    }

    return fewestRacks(scratch, request, racks, workers[0]?.demand ?? request.replicas[0]?.demand, workers.length);
  },
};

/**
 * Places the gang within the k racks that take the most workers, for k = 2, 3, … (the smallest
 * k whose racks could hold the workers first); null when even every rack together does not fit.
 */
function fewestRacks(
  scratch: CapacityScratch,
  request: PlacementRequest,
  racks: readonly Rack[],
  workerDemand: ReplicaDemand | undefined,
  workerCount: number,
): TaskPlacement[] | null {
  if (workerDemand === undefined) return null;
  const capacity = new Map(racks.map((rack) => [rack, rackFitCount(scratch, rack, workerDemand, request.gpuTypes)] as const));
  const byCapacity = racks.filter((rack) => capacity.get(rack)! > 0).sort((a, b) => capacity.get(b)! - capacity.get(a)! || a.first - b.first);
  const nodes = new Set<number>();
  let fits = 0;
  for (let k = 0; k < byCapacity.length; k++) {
    const rack = byCapacity[k]!;
    for (const i of rack.nodes) nodes.add(i);
    fits += capacity.get(rack)!;
    if (k === 0 || fits < workerCount) continue;
    const tasks = packWithin(scratch, request, nodes);
    if (tasks !== null) return tasks;
  }
  return null;
}

/** The cluster's racks in order of their first node. */
function racksOf(scratch: CapacityScratch): Rack[] {
  const byName = new Map<string, { nodes: Set<number>; first: number }>();
  scratch.nodes.forEach((node, i) => {
    const rack = byName.get(node.rack);
    if (rack) rack.nodes.add(i);
    else byName.set(node.rack, { nodes: new Set([i]), first: i });
  });
  return [...byName.values()];
}

function rackFreeGpuMilli(scratch: CapacityScratch, rack: Rack): number {
  let sum = 0;
  for (const i of rack.nodes) if (scratch.schedulable(i)) sum += scratch.freeGpuMilli(i);
  return sum;
}

function rackFitCount(scratch: CapacityScratch, rack: Rack, demand: ReplicaDemand, gpuTypes: readonly string[]): number {
  let count = 0;
  for (const i of rack.nodes) if (nodeAllows(scratch.nodes[i]!, demand, gpuTypes)) count += scratch.fitCount(i, demand);
  return count;
}
