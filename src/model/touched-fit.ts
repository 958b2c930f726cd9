import { FitIndex, insertAt, removeAt, type FitCursor, type FitIndexView, type FitVisit } from './fit-index.js';

/** Nodes a scratch keeps in one sorted list before it builds a full fit index. */
const SMALL_NODES = 128;

/**
 * The fit index of the nodes one capacity scratch changed: a plan usually touches a few nodes, so
 * they are kept in one list in fit-key order (a change moves at most that many entries, and a
 * scratch made for every pass allocates next to nothing); past SMALL_NODES they move into a full
 * FitIndex, so a plan touching thousands of nodes still costs O(log n) a change.
 */
export class TouchedFit implements FitIndexView {
  private readonly nodes: number[] = [];
  private readonly gpus: number[] = [];
  private readonly cpus: number[] = [];
  private full: FitIndex | null = null;
  private groupList: readonly string[] | null = null;

  constructor(readonly groupOf: (nodeIndex: number) => string) {}

  get size(): number {
    return this.full !== null ? this.full.size : this.nodes.length;
  }

  /** Puts the node at its new key (or adds it). */
  set(nodeIndex: number, freeGpuMilli: number, freeCpuMilli: number): void {
    if (this.full !== null) return this.full.set(nodeIndex, freeGpuMilli, freeCpuMilli);
    this.remove(nodeIndex);
    if (this.nodes.length >= SMALL_NODES) {
      const full = new FitIndex(this.groupOf);
      for (let k = 0; k < this.nodes.length; k++) full.set(this.nodes[k]!, this.gpus[k]!, this.cpus[k]!);
      full.set(nodeIndex, freeGpuMilli, freeCpuMilli);
      this.full = full;
      return;
    }
    let k = this.nodes.length;
    while (k > 0 && after(this.gpus[k - 1]!, this.cpus[k - 1]!, this.nodes[k - 1]!, freeGpuMilli, freeCpuMilli, nodeIndex)) k--;
    insertAt(this.nodes, k, nodeIndex);
    insertAt(this.gpus, k, freeGpuMilli);
    insertAt(this.cpus, k, freeCpuMilli);
    this.groupList = null;
  }

  /** Takes the node out. */
  remove(nodeIndex: number): void {
    if (this.full !== null) return this.full.remove(nodeIndex);
    const k = this.nodes.indexOf(nodeIndex);
    if (k < 0) return;
    removeAt(this.nodes, k);
    removeAt(this.gpus, k);
    removeAt(this.cpus, k);
    this.groupList = null;
  }

  has(nodeIndex: number): boolean {
    return this.full !== null ? this.full.has(nodeIndex) : this.nodes.includes(nodeIndex);
  }

  groups(): readonly string[] {
    if (this.full !== null) return this.full.groups();
    if (this.groupList === null) this.groupList = [...new Set(this.nodes.map(this.groupOf))];
    return this.groupList;
  }

  scan(group: string, minGpuMilli: number, minCpuMilli: number, visit: FitVisit): void {
    if (this.full !== null) return this.full.scan(group, minGpuMilli, minCpuMilli, visit);
    for (let k = this.firstWithGpu(minGpuMilli); k < this.nodes.length; k++) {
      const i = this.nodes[k]!;
      const cpuMilli = this.cpus[k]!;
      if (cpuMilli >= minCpuMilli && this.groupOf(i) === group && visit(this.gpus[k]!, cpuMilli, i)) return;
    }
  }

  /**
   * Scans the nodes of all the groups as `scan` does each, for a visitor that returns true only
   * when it wants no node with a larger key (of any group): the small list is read once, in key
   * order across the groups, and ends at that node.
   */
  scanGroups(groups: readonly string[], minGpuMilli: number, minCpuMilli: number, visit: FitVisit): void {
    if (this.full !== null || groups.length === 1) {
      for (const group of groups) this.scan(group, minGpuMilli, minCpuMilli, visit);
      return;
    }
    for (let k = this.firstWithGpu(minGpuMilli); k < this.nodes.length; k++) {
      const i = this.nodes[k]!;
      const cpuMilli = this.cpus[k]!;
      if (cpuMilli >= minCpuMilli && groups.includes(this.groupOf(i)) && visit(this.gpus[k]!, cpuMilli, i)) return;
    }
  }

  /** The first place in the small list (in key order) with at least `minGpuMilli` free GPU capacity, by binary search. */
  private firstWithGpu(minGpuMilli: number): number {
    let low = 0;
    let high = this.gpus.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.gpus[mid]! < minGpuMilli) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  descending(group: string, minCpuMilli = 0): FitCursor {
    if (this.full !== null) return this.full.descending(group, minCpuMilli);
    return new SmallCursor(this, group, minCpuMilli);
  }

  /** The k-th node of the small list in key order, and its key. */
  nodeAt(k: number): number {
    return this.nodes[k]!;
  }

  gpuAt(k: number): number {
    return this.gpus[k]!;
  }

  cpuAt(k: number): number {
    return this.cpus[k]!;
  }

  /** Nodes in the small list. */
  get listed(): number {
    return this.nodes.length;
  }
}

/** True when key (g1, c1, i1) comes after key (g2, c2, i2). */
function after(g1: number, c1: number, i1: number, g2: number, c2: number, i2: number): boolean {
  return g1 > g2 || (g1 === g2 && (c1 > c2 || (c1 === c2 && i1 > i2)));
}

/** Walks the small list of one group from the largest key down, passing over nodes with less than `minCpuMilli` free CPU. */
class SmallCursor implements FitCursor {
  freeGpuMilli = 0;
  freeCpuMilli = 0;
  nodeIndex = -1;
  private k: number;

  constructor(
    private readonly touched: TouchedFit,
    private readonly group: string,
    private readonly minCpuMilli: number,
  ) {
    this.k = touched.listed;
  }

  next(): boolean {
    while (this.k > 0) {
      const k = --this.k;
      const i = this.touched.nodeAt(k);
      if (this.touched.groupOf(i) !== this.group || this.touched.cpuAt(k) < this.minCpuMilli) continue;
      this.nodeIndex = i;
      this.freeGpuMilli = this.touched.gpuAt(k);
      this.freeCpuMilli = this.touched.cpuAt(k);
      return true;
    }
    return false;
  }
}
