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
  let entries = index.ascending(group, from)[Symbol.iterator]();
  for (let next = entries.next(); !next.done; next = entries.next()) {
    const [found, i] = next.value;
    if (found[1] < minCpuMilli) {
      // The rest of this GPU level has too little CPU up to `minCpuMilli`: jump there.
      entries = index.ascending(group, [found[0], minCpuMilli, -Infinity])[Symbol.iterator]();
      continue;
    }
    if (visit(found, i)) return;
  }
}

/** The group a node's GPUs belong to: its GPU model, or '' for a node without GPUs. */
export function fitGroupOf(node: NodeSpec): string {
  return node.gpus > 0 && node.gpuType !== null ? node.gpuType : '';
}

/** Read-only access to a fit index. */
export interface FitIndexView {
  /** Groups (GPU models, '' for nodes without GPUs) that have at least one node in the index. */
  groups(): Iterable<string>;
  /** Indexed nodes of a group from `from` up, in fit-key order. */
  ascending(group: string, from: FitKey): Iterable<[FitKey, number]>;
  /** The first indexed node of a group at or after `key`, or undefined. */
  atOrAfter(group: string, key: FitKey): [FitKey, number] | undefined;
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
    const key: FitKey = [freeGpuMilli, freeCpuMilli, nodeIndex];
    tree.set(key, nodeIndex);
    this.keys.set(nodeIndex, key);
  }

  /** Takes the node out (not schedulable). */
  remove(nodeIndex: number): void {
    const old = this.keys.get(nodeIndex);
    if (old === undefined) return;
    this.trees.get(this.groupOf(nodeIndex))!.delete(old);
    this.keys.delete(nodeIndex);
  }

  has(nodeIndex: number): boolean {
    return this.keys.has(nodeIndex);
  }

  *groups(): Iterable<string> {
    for (const [group, tree] of this.trees) if (tree.size > 0) yield group;
  }

  ascending(group: string, from: FitKey): Iterable<[FitKey, number]> {
    return this.trees.get(group)?.entries(from) ?? [];
  }

  atOrAfter(group: string, key: FitKey): [FitKey, number] | undefined {
    return this.trees.get(group)?.getPairOrNextHigher(key);
  }

  descending(group: string): Iterable<[FitKey, number]> {
    return this.trees.get(group)?.entriesReversed() ?? [];
  }
}
