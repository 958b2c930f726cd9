import type { TaskPlacement } from '../../model/allocation.js';
import { copyFree, fitCountIn, type CapacityScratch, type NodeFree } from '../../model/capacity.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';
import { identicalDemand } from './gang-key.js';
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
  /**
   * Nodes with tasks given back: their free capacity with those tasks back, and the replicas it
   * takes; null for a node that cannot take the gang's replicas at all.
   */
  private readonly potential = new Map<number, Potential | null>();
  /** Replicas the nodes with given-back tasks take more than in the scratch. */
  private gained = 0;
  /** Marks the nodes a `fitsWithout` call has counted. */
  private stamp = 0;

  /** Null unless counting is exact here: identical replicas, a complete placement, whole GPUs or a share of one. */
  static of(scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest): GangCount | null {
    if (placement.completeForIdentical !== true || request.replicas.length === 0) return null;
    const demand = request.replicas[0]!.demand;
    if (demand.gpus > 1 && demand.gpuMilli < GPU_MILLI) return null;
    return identicalDemand(request) !== null ? new GangCount(scratch, demand, request) : null;
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
    if (this.replicas > 1) for (let i = 0; i < scratch.nodes.length; i++) if (this.counts(i)) count += scratch.fitCount(i, demand);
    // One replica that did not fit fits on no node: nothing to count.
    this.baseCount = count;
  }

  /** True when the gang fits with everything given back so far. */
  fits(): boolean {
    return this.baseCount + this.gained >= this.replicas;
  }

  /** Gives tasks back (a victim's). */
  give(tasks: readonly TaskPlacement[]): void {
    this.change(tasks, 1);
  }

  /** Takes back tasks given earlier. */
  take(tasks: readonly TaskPlacement[]): void {
    this.change(tasks, -1);
  }

  /** True when the gang would still fit with these tasks (given back earlier) taken again. */
  fitsWithout(tasks: readonly TaskPlacement[]): boolean {
    // Taken out of the nodes' potential in place, counted, then given back in reverse: the counters are integers, so this restores them exactly.
    for (const task of tasks) {
      const entry = this.potential.get(task.nodeIndex);
      if (entry) applyTask(entry.free, task, -1);
    }
    let gained = this.gained;
    const stamp = ++this.stamp;
    for (const task of tasks) {
      const entry = this.potential.get(task.nodeIndex);
      // Each node once: its count with all the tasks taken out.
      if (!entry || entry.stamp === stamp) continue;
      entry.stamp = stamp;
      gained += fitCountIn(entry.free, this.demand) - entry.count;
    }
    for (let k = tasks.length - 1; k >= 0; k--) {
      const task = tasks[k]!;
      const entry = this.potential.get(task.nodeIndex);
      if (entry) applyTask(entry.free, task, 1);
    }
    return this.baseCount + gained >= this.replicas;
  }

  private change(tasks: readonly TaskPlacement[], sign: 1 | -1): void {
    for (const task of tasks) {
      const node = task.nodeIndex;
      let entry = this.potential.get(node);
      if (entry === undefined) {
        entry = this.counts(node) ? { free: copyFree(this.scratch.free(node)), count: this.scratch.fitCount(node, this.demand), stamp: 0 } : null;
        this.potential.set(node, entry);
      }
      if (entry === null) continue;
      applyTask(entry.free, task, sign);
      // Counted after each task: the changes add up to the change over all of them.
      const count = fitCountIn(entry.free, this.demand);
      this.gained += count - entry.count;
      entry.count = count;
    }
  }

  /** True when the node can take the gang's replicas at all (schedulable, of an allowed GPU model). */
  private counts(node: number): boolean {
    return this.scratch.schedulable(node) && nodeAllows(this.scratch.nodes[node]!, this.demand, this.gpuTypes);
  }
}

/** A node's free capacity with the tasks given back so far, and the replicas it takes. */
interface Potential {
  readonly free: NodeFree;
  count: number;
  /** The last `fitsWithout` call that counted the node. */
  stamp: number;
}

/** Adds a task's resources to free capacity (sign 1, as the scratch's `unreserve` does) or takes them again (-1). */
function applyTask(free: NodeFree, task: TaskPlacement, sign: 1 | -1): void {
  for (const g of task.gpuIndices) {
    if (sign < 0 && free.gpuFreeMilli[g] === GPU_MILLI) free.wholeGpus--;
    free.gpuFreeMilli[g]! += sign * task.demand.gpuMilli;
    if (sign > 0 && free.gpuFreeMilli[g] === GPU_MILLI) free.wholeGpus++;
  }
  free.cpuMilli += sign * task.demand.cpuMilli;
  free.memMiB += sign * task.demand.memMiB;
}
