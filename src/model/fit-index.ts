import { BTree, type BTreeOf } from './btree.js';
import type { NodeSpec } from './cluster-spec.js';

/** Where a node stands in best-fit order: its free GPU capacity (thousandths), then its free CPU (thousandths of a core), then its index. */
export type FitKey = readonly [freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number];

/** Orders fit keys by free GPU capacity, then free CPU, then node index. */
export function compareFitKeys(a: FitKey, b: FitKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Calls `visit` for every node of the group at or after `from` in fit-key order that has at least
 * `minCpuMilli` free CPU, until it returns true; nodes with less CPU are jumped over a GPU level at
 * a time (O(log n) a jump) rather than visited.
 */
export function visitFrom(index: FitIndexView, group: string, from: FitKey, minCpuMilli: number, visit: (key: FitKey, nodeIndex: number) => boolean): void {
  // The rest of a GPU level with too little CPU up to `minCpuMilli` is jumped over.
  index.scanFrom(group, from, (found, i) => (found[1] < minCpuMilli ? [found[0], minCpuMilli, -Infinity] : visit(found, i)));
}

/** What a scan step says: go on (false), stop (true), or go on from this key (a jump forward). */
export type ScanStep = boolean | FitKey;

/** The largest fit key: a scan's upper end. */
const LAST_KEY: FitKey = [Infinity, Infinity, Infinity];
/** What a B-tree range callback returns to stop. */
const STOP = { break: true };

/** The group a node's GPUs belong to: its GPU model, or '' for a node without GPUs. */
export function fitGroupOf(node: NodeSpec): string {
  return node.gpus > 0 && node.gpuType !== null ? node.gpuType : '';
}

/** Read-only access to a fit index. */
export interface FitIndexView {
  /** Groups (GPU models, '' for nodes without GPUs) that have at least one node in the index (the same array until that changes). */
  groups(): readonly string[];
  /**
   * Calls `step` for the group's nodes from `from` up, in fit-key order, until it returns true;
   * when it returns a key, goes on from that key (which must come after the node it was called for).
   * Allocates nothing per node.
   */
  scanFrom(group: string, from: FitKey, step: (key: FitKey, nodeIndex: number) => ScanStep): void;
  /** Indexed nodes of a group from the largest key down. */
  descending(group: string): Iterable<[FitKey, number]>;
  /** True when the node is in the index. */
  has(nodeIndex: number): boolean;
}

/**
 * Nodes kept in fit-key order per GPU group (B-trees, O(log n) per change), so that best fit and
 * worst fit find their node without scanning the cluster: placement of one task costs the nodes it
 * passes over, not the nodes that exist.
 */
export class FitIndex implements FitIndexView {
  private readonly trees = new Map<string, BTreeOf<FitKey, number>>();
  private readonly keys = new Map<number, FitKey>();
  /** What `groups` returns, until a group gains its first node or loses its last (null: to be listed). */
  private groupList: readonly string[] | null = null;

  constructor(private readonly groupOf: (nodeIndex: number) => string) {}

  /** Puts the node at its new key (or adds it). */
  set(nodeIndex: number, freeGpuMilli: number, freeCpuMilli: number): void {
    const old = this.keys.get(nodeIndex);
    if (old !== undefined && old[0] === freeGpuMilli && old[1] === freeCpuMilli) return;
    const group = this.groupOf(nodeIndex);
    let tree = this.trees.get(group);
    if (!tree) {
      tree = new BTree<FitKey, number>(undefined, compareFitKeys);
      this.trees.set(group, tree);
    }
    if (old !== undefined) tree.delete(old);
    else if (tree.size === 0) this.groupList = null;
    const key: FitKey = [freeGpuMilli, freeCpuMilli, nodeIndex];
    tree.set(key, nodeIndex);
    this.keys.set(nodeIndex, key);
  }

  /** Takes the node out (not schedulable). */
  remove(nodeIndex: number): void {
    const old = this.keys.get(nodeIndex);
    if (old === undefined) return;
    const tree = this.trees.get(this.groupOf(nodeIndex))!;
    tree.delete(old);
    if (tree.size === 0) this.groupList = null;
    this.keys.delete(nodeIndex);
  }

  has(nodeIndex: number): boolean {
    return this.keys.has(nodeIndex);
  }

  groups(): readonly string[] {
    if (this.groupList === null) {
      const list: string[] = [];
      for (const [group, tree] of this.trees) if (tree.size > 0) list.push(group);
      this.groupList = list;
    }
    return this.groupList;
  }

  scanFrom(group: string, from: FitKey, step: (key: FitKey, nodeIndex: number) => ScanStep): void {
    const tree = this.trees.get(group);
    if (tree === undefined) return;
    let low: FitKey | null = from;
    const onFound = (key: FitKey, i: number): typeof STOP | undefined => {
      const next = step(key, i);
      if (next === false) return undefined;
      if (next !== true) low = next;
      return STOP;
    };
    while (low !== null) {
      const start: FitKey = low;
      low = null;
      // forRange stops at a callback's `{break}` (its typings leave that out).
      tree.forRange(start, LAST_KEY, true, onFound as (key: FitKey, i: number) => void);
    }
  }

  descending(group: string): Iterable<[FitKey, number]> {
    return this.trees.get(group)?.entriesReversed() ?? [];
  }
}
