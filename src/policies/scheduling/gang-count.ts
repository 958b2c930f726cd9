import type { TaskPlacement } from '../../model/allocation.js';
import { copyFree, fitCountIn, type CapacityScratch } from '../../model/capacity.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';

/**
 * Whether a gang of identical replicas that does not fit a scratch would fit once some tasks are
 * given back, answered by counting replicas node by node instead of placing: a placement complete
 * for identical replicas places such a gang exactly when the nodes can hold it at all, that is when
 * the replicas each node could take add up to the gang. Only the nodes the given-back tasks are on
 * change their count. Trying victims one by one costs their tasks, not a copy of the plan each.
 */
export class GangCount {
  private readonly demand: ReplicaDemand;
  private readonly replicas: number;
  private readonly gpuTypes: readonly string[];
  /** Replicas the scratch's nodes take as they are. */
  private readonly baseCount: number;
  /** Tasks given back, by node. */
  private readonly given = new Map<number, TaskPlacement[]>();
  /** Replicas the nodes with given-back tasks take more than in the scratch. */
  private gained = 0;

  /** Null unless counting is exact here: identical replicas, a complete placement, whole GPUs or a share of one. */
  static of(scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest): GangCount | null {
    if (placement.completeForIdentical !== true || request.replicas.length === 0) return null;
    const demand = request.replicas[0]!.demand;
    if (demand.gpus > 1 && demand.gpuMilli < GPU_MILLI) return null;
    const same = request.replicas.every(
      (r) => r.demand.gpus === demand.gpus && r.demand.gpuMilli === demand.gpuMilli && r.demand.cpuMilli === demand.cpuMilli && r.demand.memMiB === demand.memMiB,
    );
    return same ? new GangCount(scratch, demand, request) : null;
  }

  private constructor(
    private readonly scratch: CapacityScratch,
    demand: ReplicaDemand,
    request: PlacementRequest,
  ) {
    this.demand = demand;
    this.replicas = request.replicas.length;
    this.gpuTypes = request.gpuTypes;
    let count = 0;
    if (this.replicas > 1) for (let i = 0; i < scratch.nodes.length; i++) count += this.countOn(i, []);
    // One replica that did not fit fits on no node: nothing to count.
    this.baseCount = count;
  }

  /** True when the gang fits with everything given back so far. */
  fits(): boolean {
    return this.baseCount + this.gained >= this.replicas;
  }

  /** Gives tasks back (a victim's). */
  give(tasks: readonly TaskPlacement[]): void {
    for (const [node, onNode] of byNode(tasks)) {
      const before = this.given.get(node) ?? [];
      const after = [...before, ...onNode];
      this.gained += this.countOn(node, after) - this.countOn(node, before);
      this.given.set(node, after);
    }
  }

  /** True when the gang would still fit with these tasks (given back earlier) taken again. */
  fitsWithout(tasks: readonly TaskPlacement[]): boolean {
    let gained = this.gained;
    for (const [node, onNode] of byNode(tasks)) {
      const before = this.given.get(node) ?? [];
      const after = before.filter((t) => !onNode.includes(t));
      gained += this.countOn(node, after) - this.countOn(node, before);
    }
    return this.baseCount + gained >= this.replicas;
  }

  /** Takes back tasks given earlier. */
  take(tasks: readonly TaskPlacement[]): void {
    for (const [node, onNode] of byNode(tasks)) {
      const before = this.given.get(node) ?? [];
      const after = before.filter((t) => !onNode.includes(t));
      this.gained += this.countOn(node, after) - this.countOn(node, before);
      this.given.set(node, after);
    }
  }

  /** Replicas the node takes with `tasks` given back (as the scratch's `unreserve` adds them). */
  private countOn(node: number, tasks: readonly TaskPlacement[]): number {
    const { scratch } = this;
    if (!scratch.schedulable(node) || !nodeAllows(scratch.nodes[node]!, this.demand, this.gpuTypes)) return 0;
    if (tasks.length === 0) return scratch.fitCount(node, this.demand);
    const free = copyFree(scratch.free(node));
    for (const task of tasks) {
      for (const g of task.gpuIndices) {
        free.gpuFreeMilli[g]! += task.demand.gpuMilli;
        if (free.gpuFreeMilli[g] === GPU_MILLI) free.wholeGpus++;
      }
      free.cpuMilli += task.demand.cpuMilli;
      free.memMiB += task.demand.memMiB;
    }
    return fitCountIn(free, this.demand);
  }
}

function byNode(tasks: readonly TaskPlacement[]): Map<number, TaskPlacement[]> {
  const nodes = new Map<number, TaskPlacement[]>();
  for (const task of tasks) {
    const list = nodes.get(task.nodeIndex);
    if (list) list.push(task);
    else nodes.set(task.nodeIndex, [task]);
  }
  return nodes;
}
