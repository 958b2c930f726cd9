import type { CapacityScratch } from '../../model/capacity.js';
import { insertAt, removeAt } from '../../model/fit-index.js';

/** Where a machine stands among candidates: free GPU capacity (thousandths), free CPU (thousandths of a core), node index; higher first. */
export type FreeKey = readonly [freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number];

/** A machine's standing now, as the scratch sees it. */
export function freeKey(scratch: CapacityScratch, nodeIndex: number): FreeKey {
  return [scratch.freeGpuMilli(nodeIndex), scratch.freeCpuMilli(nodeIndex), nodeIndex];
}

/** Orders standings: more free GPU capacity, then more free CPU, then the higher index, is greater. */
export function compareFreeKeys(a: FreeKey, b: FreeKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * The schedulable machines of some GPU groups from the highest standing down (the fit index read
 * backwards), as one pass's scratch sees them: a prefix read from the fit index, kept in order as
 * starts use machines (capacity only shrinks within a pass), and read further when a walk needs
 * more. Every machine of the groups outside the prefix stands at or below `end`.
 */
export class Descending {
  private nodes: number[] = [];
  private gpuMilli: number[] = [];
  private cpuMilli: number[] = [];
  /** The standing of each listed machine, as listed. */
  private listed = new Map<number, FreeKey>();
  /** The standing of the first machine not read, or null when every machine is read. */
  private end: FreeKey | null = null;

  /** @param firstRead how many machines to read at first (the list doubles when a walk needs more) */
  constructor(
    private readonly scratch: CapacityScratch,
    private readonly groups: readonly string[],
    firstRead: number,
  ) {
    this.read(Math.max(1, firstRead));
  }

  get length(): number {
    return this.nodes.length;
  }

  /** The machine at a position. */
  node(at: number): number {
    return this.nodes[at]!;
  }

  /** The free GPU capacity of the machine at a position. */
  gpuMilliAt(at: number): number {
    return this.gpuMilli[at]!;
  }

  /** The free CPU of the machine at a position. */
  cpuMilliAt(at: number): number {
    return this.cpuMilli[at]!;
  }

  /** Reads twice as many machines; false when every machine is read already. */
  readMore(): boolean {
    if (this.end === null) return false;
    this.read(Math.max(1, this.nodes.length * 2));
    return true;
  }

  /** The standing of a listed machine (current: a machine a start used is moved at once), or undefined. */
  keyOf(nodeIndex: number): FreeKey | undefined {
    return this.listed.get(nodeIndex);
  }

  /** Position of a listed machine, or -1. */
  positionOf(nodeIndex: number): number {
    const key = this.listed.get(nodeIndex);
    if (key === undefined) return -1;
    const at = this.firstAtOrBelow(key);
    return this.nodes[at] === nodeIndex ? at : -1;
  }

  /** Puts a machine whose capacity a start used at its new place (or out of the prefix, below `end`). */
  moved(nodeIndex: number): void {
    const before = this.listed.get(nodeIndex);
    if (before === undefined) return;
    const at = this.firstAtOrBelow(before);
    // Moved in place (a splice makes an array of what it removes, at every start).
    removeAt(this.nodes, at);
    removeAt(this.gpuMilli, at);
    removeAt(this.cpuMilli, at);
    const key = freeKey(this.scratch, nodeIndex);
    if (this.end !== null && compareFreeKeys(key, this.end) < 0) {
      this.listed.delete(nodeIndex);
      return;
    }
    const to = this.firstAtOrBelow(key);
    insertAt(this.nodes, to, nodeIndex);
    insertAt(this.gpuMilli, to, key[0]);
    insertAt(this.cpuMilli, to, key[1]);
    this.listed.set(nodeIndex, key);
  }

  /** The first position whose machine stands at or below `key`. */
  private firstAtOrBelow(key: FreeKey): number {
    let lo = 0;
    let hi = this.nodes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const above = this.gpuMilli[mid]! - key[0] || this.cpuMilli[mid]! - key[1] || this.nodes[mid]! - key[2];
      if (above > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private read(count: number): void {
    const nodes: number[] = [];
    const gpuMilli: number[] = [];
    const cpuMilli: number[] = [];
    const listed = new Map<number, FreeKey>();
    let end: FreeKey | null = null;
    const take = (key: FreeKey): boolean => {
      if (nodes.length === count) {
        end = key;
        return true;
      }
      nodes.push(key[2]);
      gpuMilli.push(key[0]);
      cpuMilli.push(key[1]);
      listed.set(key[2], key);
      return false;
    };
    if (this.scratch.indexed) this.scratch.forEachDescending(this.groups, (gpuMilli, cpuMilli, i) => take([gpuMilli, cpuMilli, i]));
    else {
      // Without a fit index: every schedulable machine, sorted (a replica's fit check leaves out the other groups' machines).
      const all: FreeKey[] = [];
      for (let i = 0; i < this.scratch.nodes.length; i++) if (this.scratch.schedulable(i)) all.push(freeKey(this.scratch, i));
      all.sort((a, b) => compareFreeKeys(b, a));
      for (const key of all) if (take(key)) break;
    }
    this.nodes = nodes;
    this.gpuMilli = gpuMilli;
    this.cpuMilli = cpuMilli;
    this.listed = listed;
    this.end = end;
  }
}
