import type { NodeSpec } from './cluster-spec.js';

/** Calls back with a node's place: its free GPU capacity and CPU (thousandths) and its index; returns true to stop. */
export type FitVisit = (freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number) => boolean;

/** The group a node's GPUs belong to: its GPU model, or '' for a node without GPUs. */
export function fitGroupOf(node: NodeSpec): string {
  return node.gpus > 0 && node.gpuType !== null ? node.gpuType : '';
}

/**
 * What a scan may pass over without calling back: each a condition the caller would reject the node
 * on anyway, checked in the scan's own loop (a best-fit scan meets many such nodes in a busy cluster).
 */
export interface ScanFilter {
  /** Nodes whose entry here equals `stamp` are passed over (the nodes a scratch changed); null: none. */
  stamps: Uint32Array | null;
  stamp: number;
  /** Nodes whose most free share of one GPU (thousandths; -1 without GPUs) is below this are passed over; only an index given those shares reads it. */
  minMostFreeGpuMilli: number;
  /** The scan ends past this free GPU capacity (thousandths): the caller wants nothing above it. */
  untilGpuMilli: number;
}

/** Read-only access to a fit index. */
export interface FitIndexView {
  /** Groups (GPU models, '' for nodes without GPUs) that have at least one node in the index (the same array until that changes). */
  groups(): readonly string[];
  /**
   * Calls `visit` for the group's nodes with at least `minGpuMilli` free GPU capacity and
   * `minCpuMilli` free CPU, in fit-key order, until it returns true. Where the scan starts, nodes
   * with less CPU are passed over by binary search; allocates nothing per node. Nodes the filter
   * excludes are passed over (an index without GPU shares ignores its share bound).
   */
  scan(group: string, minGpuMilli: number, minCpuMilli: number, visit: FitVisit, filter?: ScanFilter): void;
  /** A cursor over the group's nodes from the largest key down. */
  descending(group: string): FitCursor;
  /** True when the node is in the index. */
  has(nodeIndex: number): boolean;
  /** Nodes in the index. */
  readonly size: number;
}

/** A cursor over a fit index in descending key order: `next()` moves to the next node (false at the end) and sets its fields. */
export interface FitCursor {
  next(): boolean;
  readonly freeGpuMilli: number;
  readonly freeCpuMilli: number;
  readonly nodeIndex: number;
}

/**
 * Nodes kept in fit-key order (free GPU capacity, then free CPU, then index) per GPU group, so that
 * best fit and worst fit find their node without scanning the cluster: placement of one task costs
 * the nodes it passes over, not the nodes that exist. A group is a bucket per free-GPU level
 * (LEVEL_MILLI thousandths; an array of node indices in key order) with a bitmap of the non-empty levels: a
 * change costs two binary searches and the moves of one small array, a scan jumps from level to
 * level a machine word at a time. Written here rather than taken from an ordered-map library
 * because the levels are small integers: a general ordered map of tuple keys spent most of the
 * placement time comparing and allocating keys.
 */
export class FitIndex implements FitIndexView {
  private readonly byGroup = new Map<string, FitGroup>();
  /** Each indexed node's key: free GPU capacity and CPU (undefined: not indexed). */
  private readonly gpuAt: (number | undefined)[] = [];
  private readonly cpuAt: (number | undefined)[] = [];
  private count = 0;
  /** What `groups` returns, until a group gains its first node or loses its last (null: to be listed). */
  private groupList: readonly string[] | null = null;

  /**
   * `mostFreeGpuMilliAt`: each node's most free share of one GPU, read live when a scan filters on
   * it (the cluster's own counters); without it a scan ignores that bound.
   */
  constructor(
    private readonly groupOf: (nodeIndex: number) => string,
    private readonly mostFreeGpuMilliAt: readonly number[] | null = null,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Puts the node at its new key (or adds it). */
  set(nodeIndex: number, freeGpuMilli: number, freeCpuMilli: number): void {
    const oldGpu = this.gpuAt[nodeIndex];
    if (oldGpu === freeGpuMilli && this.cpuAt[nodeIndex] === freeCpuMilli) return;
    const group = this.groupOf(nodeIndex);
    let levels = this.byGroup.get(group);
    if (levels === undefined) this.byGroup.set(group, (levels = new FitGroup(this.gpuAt, this.cpuAt)));
    if (oldGpu !== undefined) levels.remove(nodeIndex);
    else {
      if (levels.size === 0) this.groupList = null;
      this.count++;
    }
    this.gpuAt[nodeIndex] = freeGpuMilli;
    this.cpuAt[nodeIndex] = freeCpuMilli;
    levels.insert(nodeIndex);
  }

  /** Takes the node out (not schedulable). */
  remove(nodeIndex: number): void {
    if (this.gpuAt[nodeIndex] === undefined) return;
    const levels = this.byGroup.get(this.groupOf(nodeIndex))!;
    levels.remove(nodeIndex);
    if (levels.size === 0) this.groupList = null;
    this.gpuAt[nodeIndex] = undefined;
    this.cpuAt[nodeIndex] = undefined;
    this.count--;
  }

  has(nodeIndex: number): boolean {
    return this.gpuAt[nodeIndex] !== undefined;
  }

  groups(): readonly string[] {
    if (this.groupList === null) {
      const list: string[] = [];
      for (const [group, levels] of this.byGroup) if (levels.size > 0) list.push(group);
      this.groupList = list;
    }
    return this.groupList;
  }

  scan(group: string, minGpuMilli: number, minCpuMilli: number, visit: FitVisit, filter?: ScanFilter): void {
    const levels = this.byGroup.get(group);
    if (levels === undefined || levels.size === 0) return;
    const { gpuAt, cpuAt } = this;
    const stamps = filter?.stamps ?? null;
    const stamp = filter?.stamp ?? 0;
    const mostFree = filter !== undefined && filter.minMostFreeGpuMilli > -1 ? this.mostFreeGpuMilliAt : null;
    const minMostFree = filter?.minMostFreeGpuMilli ?? -1;
    for (let level = levels.nextLevel(Math.max(0, Math.floor(minGpuMilli / LEVEL_MILLI))); level >= 0; level = levels.nextLevel(level + 1)) {
      // Every key of this level and above has more free GPU capacity than the caller wants.
      if (filter !== undefined && level * LEVEL_MILLI > filter.untilGpuMilli) return;
      const bucket = levels.at(level);
      const nodes = bucket.nodes;
      // Past the first level every key has more GPU than asked: the bound is the level's start, at the CPU asked for.
      for (let k = levels.lowerBound(bucket, Math.max(level * LEVEL_MILLI, minGpuMilli), minCpuMilli, -1); k < bucket.count; k++) {
        const i = nodes[k]!;
        const cpuMilli = cpuAt[i]!;
        // A level holds keys of several GPU capacities: after the bound, more GPU and less CPU.
        if (cpuMilli < minCpuMilli || (stamps !== null && stamps[i] === stamp) || (mostFree !== null && mostFree[i]! < minMostFree)) continue;
        if (visit(gpuAt[i]!, cpuMilli, i)) return;
      }
    }
  }

  descending(group: string): FitCursor {
    return new DescendingCursor(this.byGroup.get(group), this.gpuAt, this.cpuAt);
  }
}

/**
 * Free GPU capacity (thousandths) one level of a fit group spans. A level per thousandth left most
 * levels holding one node of a large cluster, and a scan paid a level's lookups for each node it
 * passed over; a level of a tenth of a GPU holds a few nodes of like capacity, kept in key order.
 */
const LEVEL_MILLI = 100;

/** One group's nodes: per free-GPU level (LEVEL_MILLI thousandths each) its node indices in key order, and a bitmap of the levels that hold any. */
class FitGroup {
  private levels: (Bucket | undefined)[] = [];
  private words = new Uint32Array(4);
  size = 0;

  constructor(
    private readonly gpuAt: readonly (number | undefined)[],
    private readonly cpuAt: readonly (number | undefined)[],
  ) {}

  /** The nodes of a level (empty when none). */
  at(level: number): Bucket {
    return this.levels[level] ?? EMPTY_BUCKET;
  }

  /** Adds a node at its key (already in gpuAt and cpuAt). */
  insert(nodeIndex: number): void {
    const gpuMilli = this.gpuAt[nodeIndex]!;
    const level = Math.floor(gpuMilli / LEVEL_MILLI);
    let bucket = this.levels[level];
    if (bucket === undefined) {
      // Levels are filled up to the highest one used (a dense array: a sparse one is a slow hash
      // table), grown at once to that level or twice its length (pushing level by level grows it
      // many times over).
      if (level >= this.levels.length) {
        const grown = new Array<Bucket | undefined>(Math.max(level + 1, 2 * this.levels.length)).fill(undefined);
        for (let k = 0; k < this.levels.length; k++) grown[k] = this.levels[k];
        this.levels = grown;
      }
      this.levels[level] = bucket = { nodes: [], count: 0 };
    }
    if (bucket.count === 0) this.mark(level, true);
    const k = this.lowerBound(bucket, gpuMilli, this.cpuAt[nodeIndex]!, nodeIndex);
    const nodes = bucket.nodes;
    for (let j = bucket.count; j > k; j--) nodes[j] = nodes[j - 1]!;
    nodes[k] = nodeIndex;
    bucket.count++;
    this.size++;
  }

  /** Takes a node out from its key (still in gpuAt and cpuAt). */
  remove(nodeIndex: number): void {
    const gpuMilli = this.gpuAt[nodeIndex]!;
    const level = Math.floor(gpuMilli / LEVEL_MILLI);
    const bucket = this.levels[level]!;
    const nodes = bucket.nodes;
    // The array keeps its length (a slot past `count` is unused): no shrinking and growing again.
    for (let j = this.lowerBound(bucket, gpuMilli, this.cpuAt[nodeIndex]!, nodeIndex) + 1; j < bucket.count; j++) nodes[j - 1] = nodes[j]!;
    bucket.count--;
    if (bucket.count === 0) this.mark(level, false);
    this.size--;
  }

  /** The first position in a level whose node's key is at least (gpuMilli, cpuMilli, nodeIndex). */
  lowerBound(bucket: Bucket, gpuMilli: number, cpuMilli: number, nodeIndex: number): number {
    const { gpuAt, cpuAt } = this;
    const nodes = bucket.nodes;
    let low = 0;
    let high = bucket.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const i = nodes[mid]!;
      const g = gpuAt[i]!;
      const c = cpuAt[i]!;
      if (g < gpuMilli || (g === gpuMilli && (c < cpuMilli || (c === cpuMilli && i < nodeIndex)))) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The lowest non-empty level at or above `from`, or -1. */
  nextLevel(from: number): number {
    const words = this.words;
    if (from >= words.length * 32) return -1;
    let w = from >>> 5;
    let bits = words[w]! & (~0 << (from & 31));
    for (;;) {
      if (bits !== 0) return (w << 5) + 31 - Math.clz32(bits & -bits);
      if (++w >= words.length) return -1;
      bits = words[w]!;
    }
  }

  /** The highest non-empty level at or below `from`, or -1. */
  previousLevel(from: number): number {
    if (from < 0) return -1;
    const words = this.words;
    let w = from >= words.length * 32 ? words.length : from >>> 5;
    let bits: number;
    if (w >= words.length) {
      w = words.length - 1;
      bits = words[w]!;
    } else bits = words[w]! & (0xffffffff >>> (31 - (from & 31)));
    for (;;) {
      if (bits !== 0) return (w << 5) + 31 - Math.clz32(bits);
      if (--w < 0) return -1;
      bits = words[w]!;
    }
  }

  /** The highest non-empty level, or -1. */
  get topLevel(): number {
    return this.previousLevel(this.words.length * 32 - 1);
  }

  private mark(level: number, on: boolean): void {
    const w = level >>> 5;
    if (w >= this.words.length) {
      const grown = new Uint32Array(Math.max(w + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    if (on) this.words[w]! |= 1 << (level & 31);
    else this.words[w]! &= ~(1 << (level & 31));
  }
}

/** One free-GPU level's nodes in key order: the first `count` entries of `nodes`. */
interface Bucket {
  readonly nodes: number[];
  count: number;
}

const EMPTY_BUCKET: Bucket = { nodes: [], count: 0 };

/** Inserts `value` at position `k`, moving the rest up (no array allocated, as `splice` would). */
export function insertAt(values: number[], k: number, value: number): void {
  for (let j = values.length; j > k; j--) values[j] = values[j - 1]!;
  values[k] = value;
}

/** Removes the value at position `k`, moving the rest down (no array allocated, as `splice` would). */
export function removeAt(values: number[], k: number): void {
  for (let j = k + 1; j < values.length; j++) values[j - 1] = values[j]!;
  values.length--;
}

/** Walks one group from the largest key down (the index must not change while it walks). */
class DescendingCursor implements FitCursor {
  freeGpuMilli = 0;
  freeCpuMilli = 0;
  nodeIndex = -1;
  private level: number;
  private k = 0;
  private nodes: readonly number[] = EMPTY_BUCKET.nodes;

  constructor(
    private readonly group: FitGroup | undefined,
    private readonly gpuAt: readonly (number | undefined)[],
    private readonly cpuAt: readonly (number | undefined)[],
  ) {
    this.level = group === undefined ? -1 : group.topLevel;
    if (this.level >= 0) {
      const bucket = group!.at(this.level);
      this.nodes = bucket.nodes;
      this.k = bucket.count;
    }
  }

  next(): boolean {
    while (this.k === 0) {
      if (this.level < 0) return false;
      this.level = this.group!.previousLevel(this.level - 1);
      if (this.level < 0) return false;
      const bucket = this.group!.at(this.level);
      this.nodes = bucket.nodes;
      this.k = bucket.count;
    }
    const i = this.nodes[--this.k]!;
    this.nodeIndex = i;
    this.freeGpuMilli = this.gpuAt[i]!;
    this.freeCpuMilli = this.cpuAt[i]!;
    return true;
  }
}
