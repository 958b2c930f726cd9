import type { TaskPlacement } from './allocation.js';
import { GPU_MILLI, type NodeSpec } from './cluster-spec.js';
import type { ClusterView } from './cluster-state.js';
import type { ReplicaDemand } from './job-spec.js';

/** Free resources of one node inside a scratch copy. */
export interface NodeFree {
  cpuMilli: number;
  memMiB: number;
  /** Free share (thousandths) of each GPU; 0 for a down GPU. */
  gpuFreeMilli: number[];
  wholeGpus: number;
}

/** Where a scratch starts: the cluster's current free capacity, or every installed node empty. */
export type ScratchBase = 'current' | 'empty';

/**
 * A copy-on-write copy of the cluster's free capacity that a policy reserves into while it plans
 * one decision; the real cluster changes only when the simulation applies the decision.
 */
export class CapacityScratch {
  readonly nodes: readonly NodeSpec[];
  private readonly overlay = new Map<number, NodeFree>();
  /** Every node's copy by index, once copyAll ran (the overlay map is then empty and unused). */
  private dense: NodeFree[] | null = null;
  /** Nodes this scratch opened or closed to new tasks (a change a plan foresees), by whether they are open. */
  private readonly opened = new Map<number, boolean>();
  private wholeGpusTotal: number;

  constructor(
    private readonly view: ClusterView,
    private readonly base: ScratchBase = 'current',
  ) {
    this.nodes = view.nodes;
    this.wholeGpusTotal = base === 'current' ? view.schedulableFreeWholeGpus : view.totalGpus;
  }

  /** True when the node takes new tasks (in an 'empty' scratch: every node). */
  schedulable(nodeIndex: number): boolean {
    if (this.base === 'empty') return true;
    return (this.opened.size === 0 ? undefined : this.opened.get(nodeIndex)) ?? this.view.schedulable(nodeIndex);
  }

  /** Opens or closes the node to new tasks in this scratch only (a cordon, outage or repair a plan foresees). */
  setSchedulable(nodeIndex: number, open: boolean): void {
    if (this.schedulable(nodeIndex) === open) return;
    this.wholeGpusTotal += (open ? 1 : -1) * this.free(nodeIndex).wholeGpus;
    this.opened.set(nodeIndex, open);
  }

  /** Takes one GPU out of this scratch only (a failure a plan foresees): nothing more can be placed on it. */
  takeGpuDown(nodeIndex: number, gpuIndex: number): void {
    const free = this.writable(nodeIndex);
    if (free.gpuFreeMilli[gpuIndex] === GPU_MILLI) {
      free.wholeGpus--;
      if (this.schedulable(nodeIndex)) this.wholeGpusTotal--;
    }
    free.gpuFreeMilli[gpuIndex] = 0;
  }

  /** Free whole GPUs over schedulable nodes: an upper bound on any whole-GPU request that can fit. */
  get freeWholeGpusTotal(): number {
    return this.wholeGpusTotal;
  }

  /** Free resources of a node as this scratch sees them (read-only copy for scoring). */
  free(nodeIndex: number): Readonly<NodeFree> {
    return this.copied(nodeIndex) ?? this.baseFree(nodeIndex);
  }

  /** How many replicas of `demand` the node could take now (0 when not schedulable). */
  fitCount(nodeIndex: number, demand: ReplicaDemand): number {
    if (!this.schedulable(nodeIndex)) return 0;
    const copied = this.copied(nodeIndex);
    if (copied || (demand.gpus > 0 && demand.gpuMilli < GPU_MILLI)) return fitCountIn(copied ?? this.free(nodeIndex), demand);
    // Whole GPUs, CPU and memory need no per-GPU copy: read the counters directly.
    const node = this.nodes[nodeIndex]!;
    const empty = this.base === 'empty';
    return fitCountOf(
      empty ? node.cpuMilli : this.view.freeCpuMilli(nodeIndex),
      empty ? node.memMiB : this.view.freeMemMiB(nodeIndex),
      empty ? node.gpus : this.view.freeWholeGpus(nodeIndex),
      demand,
    );
  }

  /** Free GPU capacity of the node in thousandths, summed over its GPUs. */
  freeGpuMilli(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    let sum = 0;
    if (copied) {
      for (const milli of copied.gpuFreeMilli) sum += milli;
      return sum;
    }
    const node = this.nodes[nodeIndex]!;
    if (this.base === 'empty') return node.gpus * GPU_MILLI;
    for (let g = 0; g < node.gpus; g++) sum += this.view.gpuFreeMilli(nodeIndex, g);
    return sum;
  }

  /** Free CPU of the node in thousandths of a core. */
  freeCpuMilli(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    if (copied) return copied.cpuMilli;
    return this.base === 'empty' ? this.nodes[nodeIndex]!.cpuMilli : this.view.freeCpuMilli(nodeIndex);
  }

  /** Reserves one replica of `role` on the node, choosing its GPUs; returns the task, or null when it does not fit. */
  reserve(nodeIndex: number, role: TaskPlacement['role'], demand: ReplicaDemand): TaskPlacement | null {
    if (this.fitCount(nodeIndex, demand) < 1) return null;
    const free = this.writable(nodeIndex);
    const wholeBefore = free.wholeGpus;
    const gpuIndices = takeReplica(free, demand);
    if (gpuIndices === null) return null;
    this.wholeGpusTotal -= wholeBefore - free.wholeGpus;
    return { role, nodeIndex, gpuIndices, demand };
  }

  /** Gives back tasks (reserved here, or held by a job the policy plans to stop). */
  unreserve(tasks: readonly TaskPlacement[]): void {
    for (const task of tasks) {
      const free = this.writable(task.nodeIndex);
      for (const g of task.gpuIndices) {
        free.gpuFreeMilli[g]! += task.demand.gpuMilli;
        if (free.gpuFreeMilli[g] === GPU_MILLI) {
          free.wholeGpus++;
          if (this.schedulable(task.nodeIndex)) this.wholeGpusTotal++;
        }
      }
      free.cpuMilli += task.demand.cpuMilli;
      free.memMiB += task.demand.memMiB;
    }
  }

  /**
   * Copies every node's free resources into this scratch now, so that a scratch kept for many
   * placements in a row reads only its own copies (a GPU share's fit then builds nothing per node).
   */
  copyAll(): void {
    if (this.dense !== null) return;
    this.dense = this.nodes.map((_, i) => this.overlay.get(i) ?? this.baseFree(i));
    this.overlay.clear();
  }

  /** The node's copy in this scratch, if it has one. */
  private copied(nodeIndex: number): NodeFree | undefined {
    return this.dense !== null ? this.dense[nodeIndex] : this.overlay.get(nodeIndex);
  }

  private baseFree(nodeIndex: number): NodeFree {
    const node = this.nodes[nodeIndex]!;
    if (this.base === 'empty') {
      return {
        cpuMilli: node.cpuMilli,
        memMiB: node.memMiB,
        gpuFreeMilli: new Array<number>(node.gpus).fill(GPU_MILLI),
        wholeGpus: node.gpus,
      };
    }
    const gpuFreeMilli: number[] = [];
    for (let g = 0; g < node.gpus; g++) gpuFreeMilli.push(this.view.gpuFreeMilli(nodeIndex, g));
    return {
      cpuMilli: this.view.freeCpuMilli(nodeIndex),
      memMiB: this.view.freeMemMiB(nodeIndex),
      gpuFreeMilli,
      wholeGpus: this.view.freeWholeGpus(nodeIndex),
    };
  }

  private writable(nodeIndex: number): NodeFree {
    let free = this.copied(nodeIndex);
    if (!free) {
      free = this.baseFree(nodeIndex);
      this.overlay.set(nodeIndex, free);
    }
    return free;
  }
}

/** Replicas of `demand` that fit into the given free resources. */
export function fitCountIn(free: Readonly<NodeFree>, demand: ReplicaDemand): number {
  if (demand.gpus > 0 && demand.gpuMilli < GPU_MILLI) {
    let slots = 0;
    for (const milli of free.gpuFreeMilli) slots += Math.floor(milli / demand.gpuMilli);
    return Math.min(slots, fitCountOf(free.cpuMilli, free.memMiB, Infinity, demand));
  }
  return fitCountOf(free.cpuMilli, free.memMiB, free.wholeGpus, demand);
}

/** Replicas that fit given free CPU, memory and whole GPUs (GPU shares are counted by the caller). */
function fitCountOf(cpuMilli: number, memMiB: number, wholeGpus: number, demand: ReplicaDemand): number {
  let count = Infinity;
  if (demand.cpuMilli > 0) count = Math.min(count, Math.floor(cpuMilli / demand.cpuMilli));
  if (demand.memMiB > 0) count = Math.min(count, Math.floor(memMiB / demand.memMiB));
  if (demand.gpus > 0 && demand.gpuMilli >= GPU_MILLI) count = Math.min(count, Math.floor(wholeGpus / demand.gpus));
  return count;
}

/** A mutable copy of a node's free resources, for scoring what-ifs. */
export function copyFree(free: Readonly<NodeFree>): NodeFree {
  return { cpuMilli: free.cpuMilli, memMiB: free.memMiB, gpuFreeMilli: [...free.gpuFreeMilli], wholeGpus: free.wholeGpus };
}

/**
 * Takes one replica out of `free` and returns the GPUs it got: the lowest-numbered whole free
 * GPUs, or for a GPU share the fullest GPU it still fits on. Returns null (taking nothing) when it does not fit.
 */
export function takeReplica(free: NodeFree, demand: ReplicaDemand): number[] | null {
  if (fitCountIn(free, demand) < 1) return null;
  const picked: number[] = [];
  if (demand.gpuMilli >= GPU_MILLI) {
    for (let g = 0; g < free.gpuFreeMilli.length && picked.length < demand.gpus; g++) {
      if (free.gpuFreeMilli[g] === GPU_MILLI) picked.push(g);
    }
  } else if (demand.gpus > 0) {
    let best = -1;
    for (let g = 0; g < free.gpuFreeMilli.length; g++) {
      const milli = free.gpuFreeMilli[g]!;
      if (milli >= demand.gpuMilli && (best < 0 || milli < free.gpuFreeMilli[best]!)) best = g;
    }
    picked.push(best);
  }
  for (const g of picked) {
    if (free.gpuFreeMilli[g] === GPU_MILLI) free.wholeGpus--;
    free.gpuFreeMilli[g]! -= demand.gpuMilli;
  }
  free.cpuMilli -= demand.cpuMilli;
  free.memMiB -= demand.memMiB;
  return picked;
}
