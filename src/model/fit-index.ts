import { GPU_MILLI, type NodeSpec } from './cluster-spec.js';

/** Calls back with a node's place: its free GPU capacity and CPU (thousandths) and its index; returns true to stop. */
export type FitVisit = (freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number) => boolean;

/** The one group of every node with GPUs of a model in a fit index that does not group them by model (see fitGroupOf). */
export const ANY_GPU_MODEL = '*';

/**
 * The group a node belongs to in a fit index: '' for a node without GPUs (or without a GPU model);
 * otherwise its GPU model, or ANY_GPU_MODEL for every model alike when the index does not group
 * nodes by model (`byModel` false), so that a request naming no model reads one group, not one a model.
 */
export function fitGroupOf(node: NodeSpec, byModel = true): string {
  if (node.gpus === 0 || node.gpuType === null) return '';
  return byModel ? node.gpuType : ANY_GPU_MODEL;
}

/**
 * What a scan may pass over without calling back: each a condition the caller would reject the node
 * on anyway, checked in the scan's own loop (a best-fit scan meets many such nodes in a busy cluster).
 */
export interface ScanFilter {
  /** Nodes whose entry here equals `stamp` are passed over (the nodes a scratch changed); null: none. */
  stamps: Uint32Array | null;
  stamp: number;
  /** Nodes whose GPU room (see gpuRoomOf) is below this are passed over; only an index given rooms reads it (-1: none). */
  minGpuRoom: number;
  /** The scan ends past this free GPU capacity (thousandths): the caller wants nothing above it. Read once, when the scan starts. */
  untilGpuMilli: number;
}

/**
 * A node's room for one replica's GPUs, as one number: its free whole GPUs in thousandths when it
 * has any (2,000 for two), else the most free share of one of its GPUs (thousandths; -1 without
 * GPUs). A replica of k whole GPUs needs a room of k·1,000; one of a share s below a GPU needs s.
 */
export function gpuRoomOf(wholeFreeGpus: number, mostFreeGpuMilli: number): number {
  return wholeFreeGpus > 0 ? wholeFreeGpus * GPU_MILLI : mostFreeGpuMilli;
}

/** Read-only access to a fit index. */
export interface FitIndexView {
  /** Groups (GPU models, or ANY_GPU_MODEL; '' for nodes without GPUs) that have at least one node in the index (the same array until that changes). */
  groups(): readonly string[];
  /** The group the index keeps a node in (see fitGroupOf). */
  readonly groupOf: (nodeIndex: number) => string;
  /**
   * Calls `visit` for the group's nodes with at least `minGpuMilli` free GPU capacity and
   * `minCpuMilli` free CPU, in fit-key order, until it returns true. Where the scan starts, nodes
   * with less CPU are passed over by binary search, and a level of like free GPU capacity whose
   * nodes all lack the CPU (or the GPU room) asked for is passed over at once; allocates nothing
   * per node. Nodes the filter excludes are passed over (an index without rooms ignores that bound).
   */
  scan(group: string, minGpuMilli: number, minCpuMilli: number, visit: FitVisit, filter?: ScanFilter): void;
  /** A cursor over the group's nodes with at least `minCpuMilli` free CPU (default: all), from the largest key down. */
  descending(group: string, minCpuMilli?: number): FitCursor;
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
  /**
   * Moves on over the nodes right after the current one that have its key and whose `kindOf` is
   * `kind`, making the last of them (the lowest-numbered) current. Optional: without it, a caller
   * walks them one by one.
   */
  lastOfKind?(kindOf: (nodeIndex: number) => number, kind: number): void;
}

/**
 * Nodes kept in fit-key order (free GPU capacity, then free CPU, then index) per GPU group, so that
 * best fit and worst fit find their node without scanning the cluster: placement of one task costs
 * the nodes it passes over, not the nodes that exist. A group is a bucket per free-GPU level
 * (LEVEL_MILLI thousandths; a typed array of node indices in key order, with the largest free CPU
 * and GPU room among them) with a bitmap of the non-empty levels: a change costs two binary
 * searches and the move of one block of an array, a scan jumps from level to level a machine word
 * at a time and passes over a level none of whose nodes has the CPU or room asked for. Written
 * here rather than taken from an ordered-map library because the levels are small integers: a
 * general ordered map of tuple keys spent most of the placement time comparing and allocating keys.
 */
export class FitIndex implements FitIndexView {
  private readonly byGroup = new Map<string, FitGroup>();
  /** Each node's key and GPU room. */
  private readonly keys = new NodeKeys();
  private count = 0;
  /** Node moves (a key changed, a node added or taken out) so far: positions in a level hold while it stays. */
  private moves = 0;
  /** The filter stamps and the moves of the era of runs now (see pastStamped). */
  private runStamps: Uint32Array | null = null;
  private runStamp = 0;
  private runMoves = -1;
  /** What `groups` returns, until a group gains its first node or loses its last (null: to be listed). */
  private groupList: readonly string[] | null = null;

  /** `withRooms`: nodes are set with their GPU room and scans filter on it; without, a scan ignores that bound. */
  constructor(
    readonly groupOf: (nodeIndex: number) => string,
    private readonly withRooms = false,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Puts the node at its new key (or adds it), with its GPU room (see gpuRoomOf) in an index with rooms. */
  set(nodeIndex: number, freeGpuMilli: number, freeCpuMilli: number, gpuRoom = -1): void {
    const keys = this.keys;
    keys.hold(nodeIndex);
    const oldGpu = keys.gpu[nodeIndex]!;
    const room = this.withRooms ? gpuRoom : -1;
    if (oldGpu === freeGpuMilli && keys.cpu[nodeIndex] === freeCpuMilli) {
      // The same key: the node stays where it is; its room may still have changed.
      if (keys.room[nodeIndex] !== room) this.byGroup.get(this.groupOf(nodeIndex))!.setRoom(nodeIndex, room);
      return;
    }
    const group = this.groupOf(nodeIndex);
    let levels = this.byGroup.get(group);
    if (levels === undefined) this.byGroup.set(group, (levels = new FitGroup(keys)));
    this.moves++;
    if (!Number.isNaN(oldGpu)) levels.remove(nodeIndex);
    else {
      if (levels.size === 0) this.groupList = null;
      this.count++;
    }
    keys.gpu[nodeIndex] = freeGpuMilli;
    keys.cpu[nodeIndex] = freeCpuMilli;
    keys.room[nodeIndex] = room;
    levels.insert(nodeIndex);
  }

  /** Takes the node out (not schedulable). */
  remove(nodeIndex: number): void {
    if (!this.has(nodeIndex)) return;
    const levels = this.byGroup.get(this.groupOf(nodeIndex))!;
    this.moves++;
    levels.remove(nodeIndex);
    if (levels.size === 0) this.groupList = null;
    this.keys.gpu[nodeIndex] = Number.NaN;
    this.count--;
  }

  has(nodeIndex: number): boolean {
    return nodeIndex < this.keys.gpu.length && !Number.isNaN(this.keys.gpu[nodeIndex]!);
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
    const { gpu: gpuAt, cpu: cpuAt, room: roomAt } = this.keys;
    const stamps = filter?.stamps ?? null;
    const stamp = filter?.stamp ?? 0;
    if (stamps !== null) this.holdRuns(stamps, stamp);
    const minRoom = this.withRooms && filter !== undefined ? filter.minGpuRoom : -1;
    const untilGpuMilli = filter !== undefined ? filter.untilGpuMilli : Infinity;
    for (let level = levels.nextLevel(Math.max(0, Math.floor(minGpuMilli / LEVEL_MILLI))); level >= 0; level = levels.nextLevel(level + 1)) {
      // Every key of this level and above has more free GPU capacity than the caller wants.
      if (level * LEVEL_MILLI > untilGpuMilli) return;
      // No node of the level has the CPU or the GPU room asked for.
      if (levels.maxCpuOf(level) < minCpuMilli || levels.maxRoomOf(level) < minRoom) continue;
      const bucket = levels.at(level);
      const nodes = bucket.nodes;
      // Past the first level every key has more GPU than asked: the bound is the level's start, at the CPU asked for.
      for (let k = levels.firstAtLeast(bucket, Math.max(level * LEVEL_MILLI, minGpuMilli), minCpuMilli); k < bucket.count; k++) {
        const i = nodes[k]!;
        const gpuMilli = gpuAt[i]!;
        if (gpuMilli > untilGpuMilli) return;
        // Every node of a stamped run is passed over; the node after it has a key no smaller, so
        // the bound above still ends the scan there if it should.
        if (stamps !== null && stamps[i] === stamp) {
          k = this.pastStamped(nodes, bucket.count, k, stamps, stamp) - 1;
          continue;
        }
        const cpuMilli = cpuAt[i]!;
        // A level holds keys of several GPU capacities: after the bound, more GPU and less CPU.
        if (cpuMilli < minCpuMilli || roomAt[i]! < minRoom) continue;
        if (visit(gpuMilli, cpuMilli, i)) return;
      }
    }
  }

  /**
   * Starts a new era of runs unless the scan filters on the stamp the last one did and no node
   * moved since: a run holds only while both stay (a node once stamped stays stamped, so a run
   * never shrinks while they do).
   */
  private holdRuns(stamps: Uint32Array, stamp: number): void {
    if (stamps === this.runStamps && stamp === this.runStamp && this.moves === this.runMoves) return;
    this.runStamps = stamps;
    this.runStamp = stamp;
    this.runMoves = this.moves;
    this.keys.newRunEra();
  }

  /**
   * The first position from `k` on in a level whose node is not stamped (`count` when none), found
   * over the runs of stamped nodes known in this era and recorded for each node passed on the way:
   * a scratch that starts many jobs in a pass touches the first nodes in best-fit order, and every
   * later scan of the pass would pass over them again one by one (path compression, as in a
   * union-find: a run costs about one step however often it is met).
   */
  private pastStamped(nodes: Int32Array, count: number, k: number, stamps: Uint32Array, stamp: number): number {
    const { runEnd, runEra } = this.keys;
    const era = this.keys.runEraNow;
    let end = k;
    while (end < count) {
      const j = nodes[end]!;
      if (stamps[j] !== stamp) break;
      end = runEra[j] === era ? runEnd[j]! : end + 1;
    }
    for (let p = k; p < end; ) {
      const j = nodes[p]!;
      const next = runEra[j] === era ? runEnd[j]! : p + 1;
      runEra[j] = era;
      runEnd[j] = end;
      p = next;
    }
    return end;
  }

  descending(group: string, minCpuMilli = 0): FitCursor {
    return new DescendingCursor(this.byGroup.get(group), this.keys, minCpuMilli);
  }
}

/**
 * Each node's fit key (free GPU capacity and CPU, thousandths; NaN GPU capacity: not indexed) and
 * GPU room, in typed arrays grown by doubling: a number stored in a plain array that may hold
 * holes is a heap object when it is not a small integer, one allocated at every change.
 */
class NodeKeys {
  gpu = new Float64Array(0);
  cpu = new Float64Array(0);
  room = new Float64Array(0);
  /**
   * Per node, where the run of stamped nodes it is in ends (a position in its level), valid when its
   * `runEra` entry is the era now (see FitIndex.pastStamped).
   */
  runEnd = new Int32Array(0);
  runEra = new Uint32Array(0);
  runEraNow = 0;

  /** Makes room for the node's entries (NaN until set). */
  hold(nodeIndex: number): void {
    if (nodeIndex < this.gpu.length) return;
    const length = Math.max(nodeIndex + 1, 2 * this.gpu.length, 16);
    this.gpu = grownTo(this.gpu, length);
    this.cpu = grownTo(this.cpu, length);
    this.room = grownTo(this.room, length);
  }

  /** Forgets every run (their era ends), with room for every node held (made at the first era: an index no scan filters never needs them). */
  newRunEra(): void {
    if (this.runEra.length < this.gpu.length) {
      this.runEnd = new Int32Array(this.gpu.length);
      this.runEra = new Uint32Array(this.gpu.length);
      this.runEraNow = 0;
    } else if (this.runEraNow === 0xffffffff) {
      this.runEra.fill(0);
      this.runEraNow = 0;
    }
    this.runEraNow++;
  }
}

/** A copy of `values` of `length` entries, NaN past the old ones. */
function grownTo(values: Float64Array<ArrayBuffer>, length: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(length).fill(Number.NaN);
  grown.set(values);
  return grown;
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
  /**
   * Per level, its bounds on the most free CPU and the largest GPU room among its nodes (see
   * Bucket), side by side (-Infinity for a level never used): a scan reads them for every level it
   * passes, most of which it passes over without reading the level's nodes.
   */
  private bounds = new Float64Array(0);
  private words = new Uint32Array(4);
  size = 0;

  constructor(private readonly keys: NodeKeys) {}

  /** The nodes of a level (empty when none). */
  at(level: number): Bucket {
    return this.levels[level] ?? EMPTY_BUCKET;
  }

  /** A bound on the most free CPU of the level's nodes (-Infinity when it has none). */
  maxCpuOf(level: number): number {
    return 2 * level < this.bounds.length ? this.bounds[2 * level]! : -Infinity;
  }

  /** A bound on the largest GPU room of the level's nodes (-Infinity when it has none). */
  maxRoomOf(level: number): number {
    return 2 * level < this.bounds.length ? this.bounds[2 * level + 1]! : -Infinity;
  }

  /** Adds a node at its key (already in the keys). */
  insert(nodeIndex: number): void {
    const gpuMilli = this.keys.gpu[nodeIndex]!;
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
        const bounds = new Float64Array(2 * grown.length).fill(-Infinity);
        bounds.set(this.bounds);
        this.bounds = bounds;
      }
      this.levels[level] = bucket = { level, nodes: new Int32Array(4), count: 0, atMaxCpu: 0, atMaxRoom: 0, removed: 0 };
    }
    if (bucket.count === 0) this.mark(level, true);
    const cpuMilli = this.keys.cpu[nodeIndex]!;
    const k = this.lowerBound(bucket, gpuMilli, cpuMilli, nodeIndex);
    if (bucket.count === bucket.nodes.length) {
      const grown = new Int32Array(2 * bucket.nodes.length);
      grown.set(bucket.nodes);
      bucket.nodes = grown;
    }
    // A level may hold hundreds of nodes (a busy cluster's full ones): moved as one block.
    const nodes = bucket.nodes;
    nodes.copyWithin(k + 1, k, bucket.count);
    nodes[k] = nodeIndex;
    bucket.count++;
    this.size++;
    this.cpuAdded(bucket, cpuMilli);
    this.roomAdded(bucket, this.keys.room[nodeIndex]!);
  }

  /** Takes a node out from its key (still in the keys). */
  remove(nodeIndex: number): void {
    const gpuMilli = this.keys.gpu[nodeIndex]!;
    const cpuMilli = this.keys.cpu[nodeIndex]!;
    const level = Math.floor(gpuMilli / LEVEL_MILLI);
    const bucket = this.levels[level]!;
    // The array keeps its length (a slot past `count` is unused): no shrinking and growing again.
    const k = this.lowerBound(bucket, gpuMilli, cpuMilli, nodeIndex);
    bucket.nodes.copyWithin(k, k + 1, bucket.count);
    bucket.count--;
    if (bucket.count === 0) this.mark(level, false);
    this.size--;
    if (cpuMilli === this.bounds[2 * level]) bucket.atMaxCpu--;
    this.roomTaken(bucket, this.keys.room[nodeIndex]!);
  }

  /** Changes an indexed node's GPU room (its key unchanged). */
  setRoom(nodeIndex: number, room: number): void {
    const bucket = this.levels[Math.floor(this.keys.gpu[nodeIndex]! / LEVEL_MILLI)]!;
    const old = this.keys.room[nodeIndex]!;
    this.keys.room[nodeIndex] = room;
    this.roomAdded(bucket, room);
    this.roomTaken(bucket, old);
  }

  private cpuAdded(bucket: Bucket, cpuMilli: number): void {
    const at = 2 * bucket.level;
    if (cpuMilli > this.bounds[at]!) {
      this.bounds[at] = cpuMilli;
      bucket.atMaxCpu = 1;
    } else if (cpuMilli === this.bounds[at]) bucket.atMaxCpu++;
  }

  private roomAdded(bucket: Bucket, room: number): void {
    const at = 2 * bucket.level + 1;
    if (room > this.bounds[at]!) {
      this.bounds[at] = room;
      bucket.atMaxRoom = 1;
    } else if (room === this.bounds[at]) bucket.atMaxRoom++;
  }

  /**
   * A room left the level (its node left, or its room changed). When the last node holding one of
   * the level's maxima leaves, the maximum stays as an upper bound (a scan then passes over the
   * level less often, never wrongly); both are worked out again once the level has seen a quarter
   * of its nodes in removals since, so each removal pays a bounded share of it.
   */
  private roomTaken(bucket: Bucket, room: number): void {
    if (room === this.bounds[2 * bucket.level + 1]) bucket.atMaxRoom--;
    bucket.removed++;
    if ((bucket.atMaxCpu === 0 || bucket.atMaxRoom === 0) && 4 * bucket.removed >= bucket.count) this.recount(bucket);
  }

  /** Works out a level's most free CPU and largest GPU room again. */
  private recount(bucket: Bucket): void {
    this.bounds[2 * bucket.level] = this.bounds[2 * bucket.level + 1] = -Infinity;
    bucket.atMaxCpu = bucket.atMaxRoom = 0;
    bucket.removed = 0;
    const { cpu, room } = this.keys;
    for (let k = 0; k < bucket.count; k++) {
      const i = bucket.nodes[k]!;
      this.cpuAdded(bucket, cpu[i]!);
      this.roomAdded(bucket, room[i]!);
    }
  }

  /**
   * The first position in a level whose node's key is at least (gpuMilli, cpuMilli) (lowerBound
   * for any node index): the first node's when it is (a scan past its first level most often
   * starts there), else found by binary search.
   */
  firstAtLeast(bucket: Bucket, gpuMilli: number, cpuMilli: number): number {
    if (bucket.count === 0) return 0;
    const first = bucket.nodes[0]!;
    const g = this.keys.gpu[first]!;
    if (g > gpuMilli || (g === gpuMilli && this.keys.cpu[first]! >= cpuMilli)) return 0;
    return this.lowerBound(bucket, gpuMilli, cpuMilli, -1);
  }

  /** The first position in a level whose node's key is at least (gpuMilli, cpuMilli, nodeIndex). */
  lowerBound(bucket: Bucket, gpuMilli: number, cpuMilli: number, nodeIndex: number): number {
    const { gpu: gpuAt, cpu: cpuAt } = this.keys;
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

/**
 * One free-GPU level's nodes in key order (the first `count` entries of `nodes`), with how many
 * nodes have exactly its bounds on the most free CPU and the largest GPU room (kept in its group's
 * `bounds`; 0: the bound is above every node's), and the removals since they were last worked out.
 */
interface Bucket {
  readonly level: number;
  /** Node indices, grown by doubling (entries past `count` unused). */
  nodes: Int32Array;
  count: number;
  atMaxCpu: number;
  atMaxRoom: number;
  removed: number;
}

const EMPTY_BUCKET: Bucket = { level: -1, nodes: new Int32Array(0), count: 0, atMaxCpu: 0, atMaxRoom: 0, removed: 0 };

/** Inserts `value` at position `k`, moving the rest up (no array allocated, as `splice` would). */
export function insertAt(values: number[], k: number, value: number): void {
  for (let j = values.length; j > k; j--) values[j] = values[j - 1]!;
  values[k] = value;
}

/**
 * Removes the value at position `k`, moving the rest down (no array allocated, as `splice` would;
 * the last slot goes by `pop`, which compiles inline, where setting `length` calls the runtime).
 */
export function removeAt(values: number[], k: number): void {
  for (let j = k + 1; j < values.length; j++) values[j - 1] = values[j]!;
  values.pop();
}

/** Walks one group from the largest key down, passing over nodes with less than `minCpuMilli` free CPU (the index must not change while it walks). */
class DescendingCursor implements FitCursor {
  freeGpuMilli = 0;
  freeCpuMilli = 0;
  nodeIndex = -1;
  private level: number;
  private k = 0;
  private nodes: Int32Array = EMPTY_BUCKET.nodes;

  constructor(
    private readonly group: FitGroup | undefined,
    private readonly keys: NodeKeys,
    private readonly minCpuMilli: number,
  ) {
    this.level = group === undefined ? -1 : group.topLevel + 1;
  }

  next(): boolean {
    for (;;) {
      while (this.k === 0) {
        if (this.level < 0) return false;
        this.level = this.group!.previousLevel(this.level - 1);
        if (this.level < 0) return false;
        // A level whose nodes all lack the CPU asked for is passed over at once.
        if (this.group!.maxCpuOf(this.level) < this.minCpuMilli) continue;
        const bucket = this.group!.at(this.level);
        this.nodes = bucket.nodes;
        this.k = bucket.count;
      }
      const i = this.nodes[--this.k]!;
      const cpuMilli = this.keys.cpu[i]!;
      if (cpuMilli < this.minCpuMilli) continue;
      this.nodeIndex = i;
      this.freeGpuMilli = this.keys.gpu[i]!;
      this.freeCpuMilli = cpuMilli;
      return true;
    }
  }

  lastOfKind(kindOf: (nodeIndex: number) => number, kind: number): void {
    // Nodes of one key are next to each other in one level, by index: the run ends at the first
    // node with another key or kind.
    const { gpu, cpu } = this.keys;
    while (this.k > 0) {
      const j = this.nodes[this.k - 1]!;
      if (gpu[j] !== this.freeGpuMilli || cpu[j] !== this.freeCpuMilli || kindOf(j) !== kind) return;
      this.k--;
      this.nodeIndex = j;
    }
  }
}
