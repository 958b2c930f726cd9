import type { TaskPlacement } from '../../model/allocation.js';
import { copyFree, takeReplica, type CapacityScratch, type NodeFree } from '../../model/capacity.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { ReplicaDemand, Role } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';

/** What to place for one PS job: how many workers and parameter servers, and what each needs. */
export interface PsGangRequest {
  readonly jobId: string;
  /** Allowed GPU models for GPU replicas; empty means any. */
  readonly gpuTypes: readonly string[];
  readonly workerDemand: ReplicaDemand;
  readonly psDemand: ReplicaDemand;
  readonly workers: number;
  readonly ps: number;
}

/** Nodes whose free resources (and GPU model) are identical: they can take exactly the same replicas. */
interface NodeClass {
  readonly key: string;
  /** A copy of the free resources every node of the class has. */
  readonly free: NodeFree;
  readonly gpuType: string | null;
  readonly gpus: number;
  /** Node indices, in insertion order (iteration order is deterministic). */
  readonly nodes: Set<number>;
}

/**
 * Optimus placement (REFERENCE §5) over a scratch: a gang of p PS and w workers goes on the fewest
 * servers k such that every server gets the same share of each role (p/k and w/k, rounded up on
 * the first p mod k and w mod k servers: "as even as the counts allow"), trying k = 1, 2, … in turn.
 *
 * Schedulable nodes are grouped into classes of identical free resources, so one try of k looks
 * at each class once instead of at every node; placing moves the touched nodes to their new class.
 * Among classes that can take the share, the tightest fit (least GPU, then CPU, left) goes first,
 * which keeps large holes for large jobs. Reservations go through the scratch, so the index and
 * the scratch agree as long as all reservations of the pass go through this index.
 */
export class EvenSpreadIndex {
  private readonly classes = new Map<string, NodeClass>();
  private readonly classOf = new Map<number, NodeClass>();

  constructor(private readonly scratch: CapacityScratch) {
    for (let i = 0; i < scratch.nodes.length; i++) if (scratch.schedulable(i)) this.insert(i);
  }

  /** Number of distinct free-resource classes (for benchmarks and tests). */
  get classCount(): number {
    return this.classes.size;
  }

  /**
   * Places the gang evenly on the fewest servers; when no k gives an even spread, packs it greedily
   * (most replicas per node first). Returns the tasks (reserved in the scratch) or null, reserving nothing.
   */
  place(request: PsGangRequest): TaskPlacement[] | null {
    if (request.workers === 0 && request.ps === 0) return [];
    return this.placeEvenly(request) ?? this.placeGreedily(request);
  }

  /** Reserves one replica on a given node (keeping the index current); null when it does not fit there. */
  reserveOn(nodeIndex: number, role: Role, demand: ReplicaDemand, gpuTypes: readonly string[]): TaskPlacement | null {
    if (!nodeAllows(this.scratch.nodes[nodeIndex]!, demand, gpuTypes)) return null;
    const task = this.scratch.reserve(nodeIndex, role, demand);
    if (task !== null) this.refresh(nodeIndex);
    return task;
  }

  /** Gives tasks back to the scratch (keeping the index current). */
  unreserve(tasks: readonly TaskPlacement[]): void {
    this.scratch.unreserve(tasks);
    const touched = new Set<number>();
    for (const task of tasks) touched.add(task.nodeIndex);
    for (const nodeIndex of touched) this.refresh(nodeIndex);
  }

  private placeEvenly(request: PsGangRequest): TaskPlacement[] | null {
    const { workers, ps } = request;
    const kMax = Math.max(workers, ps);
    for (let k = 1; k <= kMax; k++) {
      const shareWorkers = Math.ceil(workers / k);
      const sharePs = Math.ceil(ps / k);
      const fitting: NodeClass[] = [];
      let available = 0;
      for (const cls of this.classes.values()) {
        if (!this.classTakes(cls, request, shareWorkers, sharePs)) continue;
        fitting.push(cls);
        available += cls.nodes.size;
      }
      if (available < k) continue;
      fitting.sort((a, b) => tightness(a, request, shareWorkers, sharePs) - tightness(b, request, shareWorkers, sharePs) || (a.key < b.key ? -1 : 1));
      const chosen: number[] = [];
      for (const cls of fitting) {
        for (const nodeIndex of cls.nodes) {
          chosen.push(nodeIndex);
          if (chosen.length === k) break;
        }
        if (chosen.length === k) break;
      }
      const tasks: TaskPlacement[] = [];
      chosen.forEach((nodeIndex, j) => {
        const w = Math.floor(workers / k) + (j < workers % k ? 1 : 0);
        const p = Math.floor(ps / k) + (j < ps % k ? 1 : 0);
        for (let r = 0; r < w; r++) tasks.push(this.scratch.reserve(nodeIndex, 'worker', request.workerDemand)!);
        for (let r = 0; r < p; r++) tasks.push(this.scratch.reserve(nodeIndex, 'ps', request.psDemand)!);
        this.refresh(nodeIndex);
      });
      return tasks;
    }
    return null;
  }

  /** Fallback: fill the nodes that take the most of the remaining replicas first (workers, then PS). */
  private placeGreedily(request: PsGangRequest): TaskPlacement[] | null {
    const tasks: TaskPlacement[] = [];
    let workersLeft = request.workers;
    let psLeft = request.ps;
    while (workersLeft > 0 || psLeft > 0) {
      let best: NodeClass | null = null;
      let bestCount = 0;
      for (const cls of this.classes.values()) {
        const count = this.countTaken(cls, request, workersLeft, psLeft);
        if (count > bestCount || (count === bestCount && count > 0 && best !== null && cls.key < best.key)) {
          best = cls;
          bestCount = count;
        }
      }
      if (best === null) {
        this.unreserve(tasks);
        return null;
      }
      const nodeIndex = best.nodes.values().next().value!;
      const node = this.scratch.nodes[nodeIndex]!;
      while (workersLeft > 0 && nodeAllows(node, request.workerDemand, request.gpuTypes)) {
        const task = this.scratch.reserve(nodeIndex, 'worker', request.workerDemand);
        if (task === null) break;
        tasks.push(task);
        workersLeft--;
      }
      while (psLeft > 0 && nodeAllows(node, request.psDemand, request.gpuTypes)) {
        const task = this.scratch.reserve(nodeIndex, 'ps', request.psDemand);
        if (task === null) break;
        tasks.push(task);
        psLeft--;
      }
      this.refresh(nodeIndex);
    }
    return tasks;
  }

  /** True when a node of the class can take `workers` workers and `ps` PS of the request together. */
  private classTakes(cls: NodeClass, request: PsGangRequest, workers: number, ps: number): boolean {
    if (workers > 0 && !allows(cls, request.workerDemand, request.gpuTypes)) return false;
    if (ps > 0 && !allows(cls, request.psDemand, request.gpuTypes)) return false;
    return takesTogether(cls.free, request.workerDemand, workers, request.psDemand, ps);
  }

  /** How many of the remaining replicas one node of the class takes (workers first, then PS). */
  private countTaken(cls: NodeClass, request: PsGangRequest, workers: number, ps: number): number {
    const left = copyFree(cls.free);
    let count = 0;
    if (allows(cls, request.workerDemand, request.gpuTypes)) {
      for (let r = 0; r < workers && takeReplica(left, request.workerDemand) !== null; r++) count++;
    }
    if (allows(cls, request.psDemand, request.gpuTypes)) {
      for (let r = 0; r < ps && takeReplica(left, request.psDemand) !== null; r++) count++;
    }
    return count;
  }

  private insert(nodeIndex: number): void {
    const free = this.scratch.free(nodeIndex);
    const node = this.scratch.nodes[nodeIndex]!;
    const key = `${node.gpuType ?? '-'}|${free.gpuFreeMilli.join(',')}|${free.cpuMilli}|${free.memMiB}`;
    let cls = this.classes.get(key);
    if (!cls) {
      cls = { key, free: copyFree(free), gpuType: node.gpuType, gpus: node.gpus, nodes: new Set() };
      this.classes.set(key, cls);
    }
    cls.nodes.add(nodeIndex);
    this.classOf.set(nodeIndex, cls);
  }

  /** Moves a node to the class of its current free resources. */
  private refresh(nodeIndex: number): void {
    const old = this.classOf.get(nodeIndex);
    if (old) {
      old.nodes.delete(nodeIndex);
      if (old.nodes.size === 0) this.classes.delete(old.key);
      this.classOf.delete(nodeIndex);
    }
    if (this.scratch.schedulable(nodeIndex)) this.insert(nodeIndex);
  }
}

/** True when the class's nodes may run the replica's hardware. */
function allows(cls: NodeClass, demand: ReplicaDemand, gpuTypes: readonly string[]): boolean {
  if (demand.gpus === 0) return true;
  if (cls.gpus === 0 || cls.gpuType === null) return false;
  return gpuTypes.length === 0 || gpuTypes.includes(cls.gpuType);
}

/** True when `free` holds a workers and b PS at once; arithmetic for whole GPUs, a trial for GPU shares. */
function takesTogether(free: Readonly<NodeFree>, worker: ReplicaDemand, a: number, ps: ReplicaDemand, b: number): boolean {
  const shared = (worker.gpus > 0 && worker.gpuMilli < GPU_MILLI && a > 0) || (ps.gpus > 0 && ps.gpuMilli < GPU_MILLI && b > 0);
  if (shared) {
    const left = copyFree(free);
    for (let r = 0; r < a; r++) if (takeReplica(left, worker) === null) return false;
    for (let r = 0; r < b; r++) if (takeReplica(left, ps) === null) return false;
    return true;
  }
  return (
    a * worker.gpus + b * ps.gpus <= free.wholeGpus &&
    a * worker.cpuMilli + b * ps.cpuMilli <= free.cpuMilli &&
    a * worker.memMiB + b * ps.memMiB <= free.memMiB
  );
}

/** What a node of the class would have left after the share, GPUs first: smaller is a tighter fit. */
function tightness(cls: NodeClass, request: PsGangRequest, workers: number, ps: number): number {
  let gpuMilli = 0;
  for (const milli of cls.free.gpuFreeMilli) gpuMilli += milli;
  gpuMilli -= workers * request.workerDemand.gpus * request.workerDemand.gpuMilli + ps * request.psDemand.gpus * request.psDemand.gpuMilli;
  const cpuMilli = cls.free.cpuMilli - workers * request.workerDemand.cpuMilli - ps * request.psDemand.cpuMilli;
  // GPU left dominates; CPU left breaks ties (scaled below one GPU-thousandth per core).
  return gpuMilli * 1e7 + cpuMilli;
}
