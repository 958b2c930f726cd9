import type { TaskPlacement } from './allocation.js';
import { GPU_MILLI, type NodeSpec } from './cluster-spec.js';
import type { ClusterView } from './cluster-state.js';
import { ANY_GPU_MODEL, type FitCursor, type FitIndexView, type FitVisit, type ScanFilter } from './fit-index.js';
import { NodeStamps } from './node-stamps.js';
import { TouchedFit } from './touched-fit.js';
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
 * Per node, the stamp of the newest scratch that changed it: while a scratch is the newest made, its
 * stamp marks exactly the nodes it changed, so a scan of the cluster's index passes over them in its
 * own loop. An older scratch asks its maps.
 */
const TOUCH_STAMPS = new NodeStamps();

/**
 * A copy-on-write copy of the cluster's free capacity that a policy reserves into while it plans
 * one decision; the real cluster changes only when the simulation applies the decision.
 */
export class CapacityScratch {
  readonly nodes: readonly NodeSpec[];
  /** The nodes this scratch changed, their free resources as it sees them (made at the first change). */
  private overlay: Map<number, NodeFree> | null = null;
  /** Nodes this scratch opened or closed to new tasks (a change a plan foresees), by whether they are open. */
  private opened: Map<number, boolean> | null = null;
  private wholeGpusTotal: number;
  /** The nodes this scratch changed or opened, in fit-key order as it sees them (schedulable ones only; made at the first change). */
  private touchedFit: TouchedFit | null = null;
  /** This scratch's stamp in TOUCH_STAMPS, and the array it was given in. */
  private readonly stamps: Uint32Array;
  private readonly stamp: number;

  constructor(
    private readonly view: ClusterView,
    private readonly base: ScratchBase = 'current',
  ) {
    this.nodes = view.nodes;
    this.wholeGpusTotal = base === 'current' ? view.schedulableFreeWholeGpus : view.totalGpus;
    this.stamp = TOUCH_STAMPS.next(this.nodes.length);
    this.stamps = TOUCH_STAMPS.values;
  }

  /** True while this scratch has reserved, taken back, opened or closed nothing: it sees the cluster as it is. */
  get untouched(): boolean {
    return this.overlay === null && this.opened === null;
  }

  /** True when `bestFit` and `worstFit` can answer (a scratch of the current state; an 'empty' one is scanned). */
  get indexed(): boolean {
    return this.base === 'current';
  }

  /**
   * The node first in best-fit order (least free GPU capacity, then least free CPU, then lowest
   * index) among schedulable nodes of the groups (GPU models, '' for nodes without GPUs) with at
   * least `minGpuMilli` free GPU capacity and `minCpuMilli` free CPU that `accepts` takes; null when none does. Costs the nodes
   * passed over, not the cluster (an indexed scratch only). With `minGpuRoom`, nodes this scratch has
   * not changed are passed over when their GPU room (see gpuRoomOf) is below it (for an `accepts`
   * that takes none such).
   */
  bestFit(
    groups: readonly string[],
    minGpuMilli: number,
    minCpuMilli: number,
    accepts: (nodeIndex: number) => boolean,
    minGpuRoom = -1,
  ): number | null {
    const base = this.view.fitIndex();
    const search = BEST_FIT.busy ? new BestFitSearch() : BEST_FIT;
    search.begin(this, accepts);
    try {
      this.fillBaseFilter(search.filter, minGpuRoom);
      // The nodes this scratch touched first: the best of them bounds the scans of the cluster's
      // index, which list those nodes at their old places (passed over there), most often before
      // the nodes a pass that starts many jobs left untouched.
      const touched = this.touchedFit;
      if (touched !== null && touched.size > 0) touched.scanGroups(groups, minGpuMilli, minCpuMilli, search.take);
      search.skipTouched = this.overlay !== null || this.opened !== null;
      for (const group of groups) base.scan(group, minGpuMilli, minCpuMilli, search.take, search.filter);
    } finally {
      // Let go of the search even when `accepts` threw: the next search reuses it.
      search.done();
    }
    return search.best < 0 ? null : search.best;
  }

  /**
   * The node first in worst-fit order (most free GPU capacity, then most free CPU, then lowest
   * index) among schedulable nodes of the groups that `accepts` takes; null when none does (an
   * indexed scratch only).
   */
  worstFit(groups: readonly string[], accepts: (nodeIndex: number) => boolean): number | null {
    const base = this.view.fitIndex();
    let bestGpu = -Infinity;
    let bestCpu = -Infinity;
    let best = -1;
    const scan = (cursor: FitCursor, skipTouched: boolean): void => {
      while (cursor.next()) {
        const { freeGpuMilli: gpuMilli, freeCpuMilli: cpuMilli, nodeIndex: i } = cursor;
        // Descending order: once a key has less GPU or CPU than the best, nothing after it is better.
        if (best >= 0 && (gpuMilli < bestGpu || (gpuMilli === bestGpu && cpuMilli < bestCpu))) break;
        const better = best < 0 || gpuMilli > bestGpu || (gpuMilli === bestGpu && (cpuMilli > bestCpu || i < best));
        if ((skipTouched && this.isTouched(i)) || !better || !accepts(i)) continue;
        bestGpu = gpuMilli;
        bestCpu = cpuMilli;
        best = i;
      }
    };
    for (const group of groups) {
      scan(base.descending(group), true);
      if (this.touchedFit !== null) scan(this.touchedFit.descending(group), false);
    }
    return best < 0 ? null : best;
  }

  /**
   * Calls `visit` once for every schedulable node of the groups with at least `minGpuMilli` free GPU
   * capacity and `minCpuMilli` free CPU, in no set order, until it returns true (an indexed scratch
   * only). With `minGpuRoom`, nodes this scratch has not changed are passed over when their GPU
   * room (see gpuRoomOf) is below it (for a visitor that counts none on such a node).
   */
  forEachWithFree(
    groups: readonly string[],
    minGpuMilli: number,
    minCpuMilli: number,
    visit: (nodeIndex: number) => boolean | void,
    minGpuRoom = -1,
  ): void {
    const base = this.view.fitIndex();
    let stopped = false;
    const fromBase: FitVisit = (_g, _c, i) => (stopped = !this.isTouched(i) && visit(i) === true);
    const fromTouched: FitVisit = (_g, _c, i) => (stopped = visit(i) === true);
    const filter = this.baseFilter(minGpuRoom);
    const touched = this.touchedFit;
    for (const group of groups) {
      if (!stopped) base.scan(group, minGpuMilli, minCpuMilli, fromBase, filter);
      if (!stopped && touched !== null) touched.scan(group, minGpuMilli, minCpuMilli, fromTouched);
    }
  }

  /**
   * Calls `visit` for every schedulable node of the groups from the most free GPU capacity down
   * (fit-key order, reversed) until it returns true (an indexed scratch only).
   */
  forEachDescending(groups: readonly string[], visit: (freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number) => boolean): void {
    const base: FitIndexView = this.view.fitIndex();
    const streams: { cursor: FitCursor; live: boolean; skipTouched: boolean }[] = [];
    for (const group of groups) {
      streams.push({ cursor: base.descending(group), live: false, skipTouched: true });
      if (this.touchedFit !== null) streams.push({ cursor: this.touchedFit.descending(group), live: false, skipTouched: false });
    }
    const advance = (stream: (typeof streams)[number]): void => {
      while (stream.cursor.next()) {
        if (stream.skipTouched && this.isTouched(stream.cursor.nodeIndex)) continue;
        stream.live = true;
        return;
      }
      stream.live = false;
    };
    const after = (a: FitCursor, b: FitCursor): boolean =>
      a.freeGpuMilli > b.freeGpuMilli || (a.freeGpuMilli === b.freeGpuMilli && (a.freeCpuMilli > b.freeCpuMilli || (a.freeCpuMilli === b.freeCpuMilli && a.nodeIndex > b.nodeIndex)));
    for (const stream of streams) advance(stream);
    for (;;) {
      let top: (typeof streams)[number] | undefined;
      for (const stream of streams) if (stream.live && (top === undefined || after(stream.cursor, top.cursor))) top = stream;
      if (top === undefined) return;
      if (visit(top.cursor.freeGpuMilli, top.cursor.freeCpuMilli, top.cursor.nodeIndex)) return;
      advance(top);
    }
  }

  /**
   * Calls `visit` for every schedulable node of the group with at least `minCpuMilli` free CPU: the
   * nodes this scratch changed from the most free GPU capacity down, then the others likewise (not
   * one order: for a caller that stops a walk or passes over a node only by a bound that holds node
   * by node). `visit` returning true ends the walk it is in (an indexed scratch only). Cheaper per
   * node than forEachDescending, which merges the walks into one order. With `kindOf`, nodes of one
   * key and of one kind (`kindOf` >= 0: alike for the caller, who would prefer the lowest-numbered)
   * that follow each other in the walk are visited once, as the lowest-numbered of them; `kindOf`
   * must be -1 for every node this scratch changed (emptyNodeKind is such a function).
   */
  walkDownEach(
    group: string,
    visit: (freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number) => boolean,
    minCpuMilli = 0,
    kindOf?: (nodeIndex: number) => number,
  ): void {
    if (this.touchedFit !== null && this.touchedFit.size > 0) {
      const cursor = this.touchedFit.descending(group, minCpuMilli);
      while (cursor.next()) if (visit(cursor.freeGpuMilli, cursor.freeCpuMilli, cursor.nodeIndex)) break;
    }
    const cursor = this.view.fitIndex().descending(group, minCpuMilli);
    const skipTouched = this.overlay !== null || this.opened !== null;
    const runs = kindOf !== undefined && cursor.lastOfKind !== undefined;
    while (cursor.next()) {
      const i = cursor.nodeIndex;
      if (skipTouched && this.isTouched(i)) continue;
      if (runs) {
        const kind = kindOf!(i);
        if (kind >= 0) cursor.lastOfKind!(kindOf!, kind);
      }
      if (visit(cursor.freeGpuMilli, cursor.freeCpuMilli, cursor.nodeIndex)) return;
    }
  }

  /**
   * The groups (see fitGroupOf) a replica may use: for a GPU replica those holding the models
   * allowed, for others every group. In an index not grouped by model a group holds every model, so
   * a visitor of a request naming models checks each node's model (nodeAllows does).
   */
  fitGroups(needsGpus: boolean, gpuTypes: readonly string[]): readonly string[] {
    const base = this.view.fitIndex().groups();
    // A touched node the scratch did not open is schedulable in the cluster: its group is listed there.
    if (this.opened === null) return allowedGroups(base, needsGpus, gpuTypes);
    const touched = this.touchedFit === null || this.touchedFit.size === 0 ? NO_GROUPS : this.touchedFit.groups();
    // The scratch's own nodes seldom bring a group the cluster's index lacks: then the answer is the
    // cluster's, kept from pass to pass until its groups change.
    if (touched.length === 0 || touched.every((group) => base.includes(group))) return allowedGroups(base, needsGpus, gpuTypes);
    return allowedGroups([...new Set([...base, ...touched])], needsGpus, gpuTypes);
  }

  /**
   * The node's hardware kind when it is schedulable and holds nothing, as this scratch sees it
   * (then everything about it but its index is its kind's); -1 otherwise.
   */
  emptyNodeKind(nodeIndex: number): number {
    if (this.isTouched(nodeIndex) || !this.schedulable(nodeIndex)) return -1;
    const node = this.nodes[nodeIndex]!;
    if (this.base === 'current' && (this.view.freeCpuMilli(nodeIndex) !== node.cpuMilli || this.view.freeMemMiB(nodeIndex) !== node.memMiB || this.view.freeWholeGpus(nodeIndex) !== node.gpus)) return -1;
    return this.view.hardwareKind(nodeIndex);
  }

  /** True when the node takes new tasks (in an 'empty' scratch: every node). */
  schedulable(nodeIndex: number): boolean {
    return this.base === 'empty' || (this.opened?.get(nodeIndex) ?? this.view.schedulable(nodeIndex));
  }

  /** Opens or closes the node to new tasks in this scratch only (a cordon, outage or repair a plan foresees). */
  setSchedulable(nodeIndex: number, open: boolean): void {
    if (this.schedulable(nodeIndex) === open) return;
    this.wholeGpusTotal += (open ? 1 : -1) * this.free(nodeIndex).wholeGpus;
    (this.opened ??= new Map()).set(nodeIndex, open);
    this.markTouched(nodeIndex);
    this.retouch(nodeIndex);
  }

  /** Takes one GPU out of this scratch only (a failure a plan foresees): nothing more can be placed on it. */
  takeGpuDown(nodeIndex: number, gpuIndex: number): void {
    const free = this.writable(nodeIndex);
    if (free.gpuFreeMilli[gpuIndex] === GPU_MILLI) {
      free.wholeGpus--;
      if (this.schedulable(nodeIndex)) this.wholeGpusTotal--;
    }
    free.gpuFreeMilli[gpuIndex] = 0;
    this.retouch(nodeIndex);
  }

  /** Free whole GPUs over schedulable nodes: an upper bound on any whole-GPU request that can fit. */
  get freeWholeGpusTotal(): number {
    return this.wholeGpusTotal;
  }

  /** Free resources of a node as this scratch sees them (read-only copy for scoring). */
  free(nodeIndex: number): Readonly<NodeFree> {
    return this.copied(nodeIndex) ?? this.baseFree(nodeIndex);
  }

  /**
   * Copies the node's free resources as this scratch sees them into `into`, whose GPU list has one
   * entry per GPU of the node (a caller's reused what-if: nothing allocated), and returns it.
   */
  freeInto(nodeIndex: number, into: NodeFree): NodeFree {
    const copied = this.copied(nodeIndex);
    const milli = into.gpuFreeMilli;
    if (copied) {
      for (let g = 0; g < milli.length; g++) milli[g] = copied.gpuFreeMilli[g]!;
      into.cpuMilli = copied.cpuMilli;
      into.memMiB = copied.memMiB;
      into.wholeGpus = copied.wholeGpus;
      return into;
    }
    const node = this.nodes[nodeIndex]!;
    const empty = this.base === 'empty';
    for (let g = 0; g < milli.length; g++) milli[g] = empty ? GPU_MILLI : this.view.gpuFreeMilli(nodeIndex, g);
    into.cpuMilli = empty ? node.cpuMilli : this.view.freeCpuMilli(nodeIndex);
    into.memMiB = empty ? node.memMiB : this.view.freeMemMiB(nodeIndex);
    into.wholeGpus = empty ? node.gpus : this.view.freeWholeGpus(nodeIndex);
    return into;
  }

  /**
   * Replicas of `gpus` whole GPUs each, asking for nothing else, that the schedulable nodes `allows`
   * takes could hold as this scratch sees them, each node counted alone (the sum of their free whole
   * GPUs divided by `gpus`, rounded down, node by node). `allows` must answer alike for nodes of one
   * hardware kind (a check of GPU model and count does). An indexed scratch reads the cluster's
   * count of nodes by kind and free whole GPUs and corrects it for the nodes it changed: it costs
   * the kinds times their GPUs and those nodes, not the cluster.
   */
  wholeGpuReplicas(gpus: number, allows: (node: NodeSpec) => boolean): number {
    if (!this.indexed) {
      let count = 0;
      for (let i = 0; i < this.nodes.length; i++) if (allows(this.nodes[i]!) && this.schedulable(i)) count += Math.floor(this.freeWholeGpus(i) / gpus);
      return count;
    }
    const view = this.view;
    let count = 0;
    for (let kind = 0; kind < view.hardwareKinds; kind++) {
      const node = view.nodeOfKind(kind);
      if (!allows(node)) continue;
      for (let w = gpus; w <= node.gpus; w++) count += view.schedulableNodesWithFreeGpus(kind, w) * Math.floor(w / gpus);
    }
    // The nodes this scratch changed: their count in the cluster out, theirs here in.
    const correct = (i: number): void => {
      if (!allows(this.nodes[i]!)) return;
      if (view.schedulable(i)) count -= Math.floor(view.freeWholeGpus(i) / gpus);
      if (this.schedulable(i)) count += Math.floor(this.freeWholeGpus(i) / gpus);
    };
    if (this.overlay !== null) for (const i of this.overlay.keys()) correct(i);
    if (this.opened !== null) for (const i of this.opened.keys()) if (this.overlay === null || !this.overlay.has(i)) correct(i);
    return count;
  }

  /** How many replicas of `demand` the node could take now (0 when not schedulable). */
  fitCount(nodeIndex: number, demand: ReplicaDemand): number {
    if (!this.schedulable(nodeIndex)) return 0;
    const copied = this.copied(nodeIndex);
    if (copied) return fitCountIn(copied, demand);
    const node = this.nodes[nodeIndex]!;
    const empty = this.base === 'empty';
    if (demand.gpus > 0 && demand.gpuMilli < GPU_MILLI) {
      // GPU shares: slots counted GPU by GPU on the cluster's own counters (no copy of the node).
      let slots = 0;
      for (let g = 0; g < node.gpus; g++) slots += Math.floor((empty ? GPU_MILLI : this.view.gpuFreeMilli(nodeIndex, g)) / demand.gpuMilli);
      return Math.min(slots, fitCountOf(empty ? node.cpuMilli : this.view.freeCpuMilli(nodeIndex), empty ? node.memMiB : this.view.freeMemMiB(nodeIndex), Infinity, demand));
    }
    // Whole GPUs, CPU and memory need no per-GPU copy: read the counters directly.
    return fitCountOf(
      empty ? node.cpuMilli : this.view.freeCpuMilli(nodeIndex),
      empty ? node.memMiB : this.view.freeMemMiB(nodeIndex),
      empty ? node.gpus : this.view.freeWholeGpus(nodeIndex),
      demand,
    );
  }

  /**
   * True when the node could take one replica of `demand` now: `fitCount(i, demand) > 0`, answered
   * from the cluster's counters without counting for a node this scratch has not changed (a best-fit
   * scan asks it of every node it passes over).
   */
  fitsOne(nodeIndex: number, demand: ReplicaDemand): boolean {
    if (this.base === 'empty' || this.opened !== null || this.copied(nodeIndex) !== undefined) return this.fitCount(nodeIndex, demand) > 0;
    const { view } = this;
    if (!view.schedulable(nodeIndex) || view.freeCpuMilli(nodeIndex) < demand.cpuMilli || view.freeMemMiB(nodeIndex) < demand.memMiB) return false;
    if (demand.gpus === 0) return true;
    return demand.gpuMilli >= GPU_MILLI ? view.freeWholeGpus(nodeIndex) >= demand.gpus : view.mostFreeGpuMilli(nodeIndex) >= demand.gpuMilli;
  }

  /** Free GPU capacity of the node in thousandths, summed over its GPUs. */
  freeGpuMilli(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    let sum = 0;
    if (copied) {
      const milli = copied.gpuFreeMilli;
      for (let g = 0; g < milli.length; g++) sum += milli[g]!;
      return sum;
    }
    const node = this.nodes[nodeIndex]!;
    if (this.base === 'empty') return node.gpus * GPU_MILLI;
    for (let g = 0; g < node.gpus; g++) sum += this.view.gpuFreeMilli(nodeIndex, g);
    return sum;
  }

  /** Free memory of the node in MiB. */
  freeMemMiB(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    if (copied) return copied.memMiB;
    return this.base === 'empty' ? this.nodes[nodeIndex]!.memMiB : this.view.freeMemMiB(nodeIndex);
  }

  /** Free whole GPUs of the node. */
  freeWholeGpus(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    if (copied) return copied.wholeGpus;
    return this.base === 'empty' ? this.nodes[nodeIndex]!.gpus : this.view.freeWholeGpus(nodeIndex);
  }

  /** Free CPU of the node in thousandths of a core. */
  freeCpuMilli(nodeIndex: number): number {
    const copied = this.copied(nodeIndex);
    if (copied) return copied.cpuMilli;
    return this.base === 'empty' ? this.nodes[nodeIndex]!.cpuMilli : this.view.freeCpuMilli(nodeIndex);
  }

  /** Reserves one replica of `role` on the node, choosing its GPUs; returns the task, or null when it does not fit. */
  reserve(nodeIndex: number, role: TaskPlacement['role'], demand: ReplicaDemand): TaskPlacement | null {
    if (!this.fitsOne(nodeIndex, demand)) return null;
    const free = this.writable(nodeIndex);
    const wholeBefore = free.wholeGpus;
    const gpuIndices = takeReplica(free, demand);
    if (gpuIndices === null) return null;
    this.wholeGpusTotal -= wholeBefore - free.wholeGpus;
    this.retouch(nodeIndex);
    return { role, nodeIndex, gpuIndices, demand };
  }

  /**
   * A copy of this scratch with every change it holds (a trial can go on in the copy and be dropped):
   * costs the nodes this scratch changed, not the plan that changed them. The copy is the newest
   * scratch (see TOUCH_STAMPS).
   */
  copy(): CapacityScratch {
    const copy = new CapacityScratch(this.view, this.base);
    copy.wholeGpusTotal = this.wholeGpusTotal;
    if (this.opened !== null) copy.opened = new Map(this.opened);
    if (this.overlay !== null) {
      const overlay = new Map<number, NodeFree>();
      for (const [i, free] of this.overlay) overlay.set(i, { cpuMilli: free.cpuMilli, memMiB: free.memMiB, gpuFreeMilli: free.gpuFreeMilli.slice(), wholeGpus: free.wholeGpus });
      copy.overlay = overlay;
    }
    // Every node changed or opened is marked, then placed among the copy's touched nodes at its key now.
    for (const changed of [copy.overlay, copy.opened]) {
      if (changed === null) continue;
      for (const i of changed.keys()) {
        copy.markTouched(i);
        copy.retouch(i);
      }
    }
    return copy;
  }

  /** Gives back tasks (reserved here, or held by a job the policy plans to stop). */
  unreserve(tasks: readonly TaskPlacement[]): void {
    for (const task of tasks) {
      const free = this.writable(task.nodeIndex);
      const gpus = task.gpuIndices;
      for (let k = 0; k < gpus.length; k++) {
        const g = gpus[k]!;
        free.gpuFreeMilli[g]! += task.demand.gpuMilli;
        if (free.gpuFreeMilli[g] === GPU_MILLI) {
          free.wholeGpus++;
          if (this.schedulable(task.nodeIndex)) this.wholeGpusTotal++;
        }
      }
      free.cpuMilli += task.demand.cpuMilli;
      free.memMiB += task.demand.memMiB;
      this.retouch(task.nodeIndex);
    }
  }

  /** True while this scratch is the newest made: its stamps then mark exactly the nodes it touched. */
  private stampsHold(): boolean {
    return TOUCH_STAMPS.last === this.stamp && TOUCH_STAMPS.values === this.stamps;
  }

  /** True when this scratch changed or opened/closed the node (its place in the cluster's fit index is stale here). */
  isTouched(nodeIndex: number): boolean {
    if (this.stampsHold()) return this.stamps[nodeIndex] === this.stamp;
    return (this.overlay !== null && this.overlay.has(nodeIndex)) || (this.opened !== null && this.opened.has(nodeIndex));
  }

  /** The node's free resources as this scratch changed them, or undefined when it has not. */
  private copied(nodeIndex: number): NodeFree | undefined {
    if (this.overlay === null || (this.stampsHold() && this.stamps[nodeIndex] !== this.stamp)) return undefined;
    return this.overlay.get(nodeIndex);
  }

  /** Marks the node touched (in the stamps, while they hold for this scratch). */
  private markTouched(nodeIndex: number): void {
    if (this.stampsHold()) this.stamps[nodeIndex] = this.stamp;
  }

  /**
   * What a scan of the cluster's index may pass over for this scratch: the nodes it touched (while
   * its stamps hold; its visitor passes over them otherwise) and, when given, nodes without the
   * GPU room a replica needs (read from the cluster: exact for a node this scratch has not touched).
   */
  private baseFilter(minGpuRoom: number): ScanFilter {
    return this.fillBaseFilter({ stamps: null, stamp: 0, minGpuRoom: -1, untilGpuMilli: Infinity }, minGpuRoom);
  }

  /** Sets `filter` to what baseFilter makes (for a filter a caller reuses) and returns it. */
  private fillBaseFilter(filter: ScanFilter, minGpuRoom: number): ScanFilter {
    const touched = this.overlay !== null || this.opened !== null;
    filter.stamps = touched && this.stampsHold() ? this.stamps : null;
    filter.stamp = this.stamp;
    filter.minGpuRoom = minGpuRoom;
    filter.untilGpuMilli = Infinity;
    return filter;
  }

  /** Puts a node this scratch changed at its new place among the touched nodes. */
  private retouch(nodeIndex: number): void {
    // Grouped as the cluster's index groups them: a scan passes both the same group names.
    const touched = (this.touchedFit ??= new TouchedFit(this.view.fitIndex().groupOf));
    if (this.schedulable(nodeIndex)) touched.set(nodeIndex, this.freeGpuMilli(nodeIndex), this.freeCpuMilli(nodeIndex));
    else touched.remove(nodeIndex);
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
    // Made at its length: pushing into an empty list gives it room for sixteen.
    const gpuFreeMilli = new Array<number>(node.gpus);
    for (let g = 0; g < node.gpus; g++) gpuFreeMilli[g] = this.view.gpuFreeMilli(nodeIndex, g);
    return {
      cpuMilli: this.view.freeCpuMilli(nodeIndex),
      memMiB: this.view.freeMemMiB(nodeIndex),
      gpuFreeMilli,
      wholeGpus: this.view.freeWholeGpus(nodeIndex),
    };
  }

  private writable(nodeIndex: number): NodeFree {
    const overlay = (this.overlay ??= new Map());
    let free = overlay.get(nodeIndex);
    if (!free) {
      free = this.baseFree(nodeIndex);
      overlay.set(nodeIndex, free);
      this.markTouched(nodeIndex);
    }
    return free;
  }
}

/**
 * One best-fit search's state and visitor: the search of CapacityScratch.bestFit, reused from
 * search to search (a search begun while another runs gets its own), so that a search allocates
 * nothing.
 */
class BestFitSearch {
  busy = false;
  skipTouched = false;
  readonly filter: ScanFilter = { stamps: null, stamp: 0, minGpuRoom: -1, untilGpuMilli: Infinity };
  /** The node found so far (-1: none). */
  best = -1;
  private bestGpu = Infinity;
  private bestCpu = Infinity;
  private scratch: CapacityScratch | null = null;
  private accepts: (nodeIndex: number) => boolean = NONE_ACCEPTED;

  /** A scan stops at the first node it accepts, or at the first key not before the best so far. */
  readonly take: FitVisit = (gpuMilli, cpuMilli, i) => {
    if (gpuMilli > this.bestGpu || (gpuMilli === this.bestGpu && (cpuMilli > this.bestCpu || (cpuMilli === this.bestCpu && i >= this.best)))) return true;
    if ((this.skipTouched && this.scratch!.isTouched(i)) || !this.accepts(i)) return false;
    this.bestGpu = this.filter.untilGpuMilli = gpuMilli;
    this.bestCpu = cpuMilli;
    this.best = i;
    return true;
  };

  /** Starts a search in `scratch` for a node `accepts` takes. */
  begin(scratch: CapacityScratch, accepts: (nodeIndex: number) => boolean): void {
    this.busy = true;
    this.scratch = scratch;
    this.accepts = accepts;
    this.bestGpu = this.bestCpu = Infinity;
    this.best = -1;
    this.skipTouched = false;
  }

  /** Ends the search, letting go of what it was given (`best` stays readable until the next begins). */
  done(): void {
    this.busy = false;
    this.scratch = null;
    this.accepts = NONE_ACCEPTED;
  }
}

const NONE_ACCEPTED = (): boolean => false;

/** The search bestFit reuses. */
const BEST_FIT = new BestFitSearch();

/**
 * The groups of `groups` a replica may use, kept per list of groups (a fit index's list stays the
 * same array until its groups change) and request kind: for a GPU replica the groups of the models
 * allowed (ANY_GPU_MODEL, in an index not grouped by model, holds every model: the caller's check
 * of each node's model then tells them apart), for any other every group.
 */
function allowedGroups(groups: readonly string[], needsGpus: boolean, gpuTypes: readonly string[]): readonly string[] {
  if (!needsGpus) return groups;
  let byKind = ALLOWED_GROUPS.get(groups);
  if (byKind === undefined) ALLOWED_GROUPS.set(groups, (byKind = new Map()));
  const key = gpuTypes.length === 0 ? '' : gpuTypes.length === 1 ? gpuTypes[0]! : gpuTypes.join(',');
  let allowed = byKind.get(key);
  if (allowed === undefined) {
    allowed = groups.filter((group) => group !== '' && (gpuTypes.length === 0 || group === ANY_GPU_MODEL || gpuTypes.includes(group)));
    byKind.set(key, allowed);
  }
  return allowed;
}

const NO_GROUPS: readonly string[] = [];

/** What `allowedGroups` answered, by list of groups and allowed GPU models. */
const ALLOWED_GROUPS = new WeakMap<readonly string[], Map<string, readonly string[]>>();

/** Replicas of `demand` that fit into the given free resources. */
export function fitCountIn(free: Readonly<NodeFree>, demand: ReplicaDemand): number {
  if (demand.gpus > 0 && demand.gpuMilli < GPU_MILLI) {
    let slots = 0;
    const milli = free.gpuFreeMilli;
    for (let g = 0; g < milli.length; g++) slots += Math.floor(milli[g]! / demand.gpuMilli);
    return Math.min(slots, fitCountOf(free.cpuMilli, free.memMiB, Infinity, demand));
  }
  return fitCountOf(free.cpuMilli, free.memMiB, free.wholeGpus, demand);
}

/** Replicas that fit given free CPU, memory and whole GPUs (GPU shares are counted by the caller). */
export function fitCountOf(cpuMilli: number, memMiB: number, wholeGpus: number, demand: ReplicaDemand): number {
  let count = Infinity;
  if (demand.cpuMilli > 0) count = Math.min(count, Math.floor(cpuMilli / demand.cpuMilli));
  if (demand.memMiB > 0) count = Math.min(count, Math.floor(memMiB / demand.memMiB));
  if (demand.gpus > 0 && demand.gpuMilli >= GPU_MILLI) count = Math.min(count, Math.floor(wholeGpus / demand.gpus));
  return count;
}

/** A record of a node's free resources with room for `gpus` GPUs, all zero: for a caller to fill with `freeInto` and reuse. */
export function blankFree(gpus: number): NodeFree {
  return { cpuMilli: 0, memMiB: 0, gpuFreeMilli: new Array<number>(gpus).fill(0), wholeGpus: 0 };
}

/** A mutable copy of a node's free resources, for scoring what-ifs. */
export function copyFree(free: Readonly<NodeFree>): NodeFree {
  return { cpuMilli: free.cpuMilli, memMiB: free.memMiB, gpuFreeMilli: [...free.gpuFreeMilli], wholeGpus: free.wholeGpus };
}

/**
 * Takes one replica out of `free` and returns the GPUs it got: the lowest-numbered whole free
 * GPUs, or for a GPU share the fullest GPU it still fits on. Returns null (taking nothing) when it
 * does not fit. The list returned is shared by every replica given the same GPUs (see sharedGpuList).
 */
export function takeReplica(free: NodeFree, demand: ReplicaDemand): readonly number[] | null {
  if (fitCountIn(free, demand) < 1) return null;
  const picked = PICKED;
  let count = 0;
  if (demand.gpuMilli >= GPU_MILLI) {
    for (let g = 0; g < free.gpuFreeMilli.length && count < demand.gpus; g++) {
      if (free.gpuFreeMilli[g] === GPU_MILLI) picked[count++] = g;
    }
  } else if (demand.gpus > 0) {
    let best = -1;
    for (let g = 0; g < free.gpuFreeMilli.length; g++) {
      const milli = free.gpuFreeMilli[g]!;
      if (milli >= demand.gpuMilli && (best < 0 || milli < free.gpuFreeMilli[best]!)) best = g;
    }
    picked[count++] = best;
  }
  for (let k = 0; k < count; k++) {
    const g = picked[k]!;
    if (free.gpuFreeMilli[g] === GPU_MILLI) free.wholeGpus--;
    free.gpuFreeMilli[g]! -= demand.gpuMilli;
  }
  free.cpuMilli -= demand.cpuMilli;
  free.memMiB -= demand.memMiB;
  return sharedGpuList(picked, count);
}

/**
 * The GPUs takeReplica is picking, its first entries (reused, never truncated: emptying an array
 * gives up its storage, and the next pick would allocate it again).
 */
const PICKED: number[] = [];

/** Highest GPU index a shared list can hold (its set is kept as the bits of one small integer). */
const SHARED_GPU_BITS = 30;

/** Shared lists of GPU indices, by the bits of their set (lists are in ascending order, as takeReplica picks them). */
const SHARED_GPU_LISTS: (readonly number[] | undefined)[] = [];

/**
 * One list per set of GPU indices, shared by every task on those GPUs (a task never changes its
 * list): over a million tasks, one small array each would be garbage the collector copies and
 * promotes while the task runs. The first `count` of `picked` must be in ascending order; indices past
 * SHARED_GPU_BITS get a list of their own. Read-only by type, not frozen: V8 reads a frozen array's
 * elements on a slow path (a loop over one ran 5-8 times slower), and these are read at every
 * allocation, release and check of a task.
 */
function sharedGpuList(picked: readonly number[], count: number): readonly number[] {
  let bits = 0;
  for (let k = 0; k < count; k++) {
    const g = picked[k]!;
    if (g >= SHARED_GPU_BITS) return picked.slice(0, count);
    bits |= 1 << g;
  }
  return (SHARED_GPU_LISTS[bits] ??= picked.slice(0, count));
}
