import type { TaskPlacement } from '../../model/allocation.js';
import { blankFree, fitCountIn, type CapacityScratch, type NodeFree } from '../../model/capacity.js';
import { NodeStamps } from '../../model/node-stamps.js';
import { InvariantError } from '../../errors.js';
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
  /** Replicas the nodes with given-back tasks take more than in the scratch. */
  private gained = 0;
  /** This count's stamp in the shared per-node store: a node's entry there is this count's when it holds it. */
  private readonly stamp: number;

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
    this.stamp = POTENTIALS.begin(scratch.nodes.length);
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
    const store = this.store();
    // Taken out of the nodes' potential in place, counted, then given back in reverse: the counters are integers, so this restores them exactly.
    for (const task of tasks) if (this.holds(store, task.nodeIndex)) applyTask(store.free[task.nodeIndex]!, task, -1);
    let gained = this.gained;
    const seen = store.seen.next(this.scratch.nodes.length);
    for (const task of tasks) {
      const node = task.nodeIndex;
      // Each node once: its count with all the tasks taken out.
      if (!this.holds(store, node) || store.seen.values[node] === seen) continue;
      store.seen.values[node] = seen;
      gained += fitCountIn(store.free[node]!, this.demand) - store.count[node]!;
    }
    for (let k = tasks.length - 1; k >= 0; k--) {
      const task = tasks[k]!;
      if (this.holds(store, task.nodeIndex)) applyTask(store.free[task.nodeIndex]!, task, 1);
    }
    return this.baseCount + gained >= this.replicas;
  }

  private change(tasks: readonly TaskPlacement[], sign: 1 | -1): void {
    const store = this.store();
    for (const task of tasks) {
      const node = task.nodeIndex;
      if (store.stamps.values[node] !== this.stamp) {
        // The node's first task: its free capacity as the scratch sees it, if it can take the gang's replicas at all.
        store.stamps.values[node] = this.stamp;
        store.count[node] = NOT_COUNTED;
        if (this.counts(node)) {
          store.free[node] = this.scratch.freeInto(node, store.freeFor(node, this.scratch.nodes[node]!.gpus));
          store.count[node] = this.scratch.fitCount(node, this.demand);
        }
      }
      if (store.count[node] === NOT_COUNTED) continue;
      const free = store.free[node]!;
      applyTask(free, task, sign);
      // Counted after each task: the changes add up to the change over all of them.
      const count = fitCountIn(free, this.demand);
      this.gained += count - store.count[node]!;
      store.count[node] = count;
    }
  }

  /** The shared store, which holds this count's entries while no newer count was made. */
  private store(): NodePotentials {
    if (POTENTIALS.stamps.last !== this.stamp) throw new InvariantError('a gang count was used after a newer one was made');
    return POTENTIALS;
  }

  /** True when the store holds the node's potential for this count (given back tasks of a node that takes the gang's replicas). */
  private holds(store: NodePotentials, node: number): boolean {
    return store.stamps.values[node] === this.stamp && store.count[node] !== NOT_COUNTED;
  }

  /** True when the node can take the gang's replicas at all (schedulable, of an allowed GPU model). */
  private counts(node: number): boolean {
    return this.scratch.schedulable(node) && nodeAllows(this.scratch.nodes[node]!, this.demand, this.gpuTypes);
  }
}

/**
 * Per node, the free capacity with the tasks given back so far and the replicas it takes, for the
 * newest count (a search uses one count at a time): kept in arrays reused from count to count, so
 * that a victim's tasks cost array reads rather than a map entry and a copy of the node each.
 */
class NodePotentials {
  /** The count whose entry a node holds. */
  readonly stamps = new NodeStamps();
  /** The `fitsWithout` call that counted a node last. */
  readonly seen = new NodeStamps();
  /** Its free capacity with the given-back tasks, and the replicas that takes (NOT_COUNTED for a node that cannot take the gang's replicas at all). */
  readonly free: NodeFree[] = [];
  count = new Int32Array(0);

  /** A stamp for a new count over `nodes` nodes. */
  begin(nodes: number): number {
    if (this.count.length < nodes) this.count = new Int32Array(nodes);
    return this.stamps.next(nodes);
  }

  /** The node's reused free capacity record, with one entry per GPU of a node with `gpus` GPUs. */
  freeFor(node: number, gpus: number): NodeFree {
    const kept = this.free[node];
    if (kept !== undefined && kept.gpuFreeMilli.length === gpus) return kept;
    return (this.free[node] = blankFree(gpus));
  }
}

/** A node's count in NodePotentials when it cannot take the gang's replicas at all. */
const NOT_COUNTED = -1;

const POTENTIALS = new NodePotentials();

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
