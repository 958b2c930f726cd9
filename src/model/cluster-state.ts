import { InvariantError } from '../errors.js';
import { NO_AUX_TASKS, type AuxTask, type Eviction, type TaskPlacement } from './allocation.js';
import { GPU_MILLI, type ClusterSpec, type NodeSpec } from './cluster-spec.js';
import { FitIndex, fitGroupOf, gpuRoomOf, type FitIndexView } from './fit-index.js';
import { GrowthLog } from './growth-log.js';

/** What a start that takes nothing back returns. */
const NO_EVICTIONS: readonly Eviction[] = [];

/** Health of a node: up (schedulable), cordoned (healthy but closed to new work), down (unusable). */
export type NodeHealth = 'up' | 'cordoned' | 'down';

/** Read-only view of the cluster that policies receive; only the simulation changes the state behind it. */
export interface ClusterView {
  readonly nodes: readonly NodeSpec[];
  /** Installed GPUs in the cluster. */
  readonly totalGpus: number;
  /** Installed CPU in thousandths of a core. */
  readonly totalCpuMilli: number;
  /** Installed memory in MiB. */
  readonly totalMemMiB: number;
  nodeHealth(nodeIndex: number): NodeHealth;
  /** True when GPU `gpuIndex` of the node works. */
  gpuUp(nodeIndex: number, gpuIndex: number): boolean;
  /** True when the node accepts new tasks (up, not cordoned). */
  schedulable(nodeIndex: number): boolean;
  /** Unallocated share (thousandths) of one GPU; 0 when the GPU is down. */
  gpuFreeMilli(nodeIndex: number, gpuIndex: number): number;
  /** Healthy GPUs of the node with nothing on them. */
  freeWholeGpus(nodeIndex: number): number;
  /** The most unallocated share (thousandths) of any one working GPU of the node; -1 for a node without GPUs. */
  mostFreeGpuMilli(nodeIndex: number): number;
  /** CPU no training task holds, in thousandths of a core (auxiliary tasks may use it: they give way). */
  freeCpuMilli(nodeIndex: number): number;
  /** Memory no training task holds, in MiB (auxiliary tasks may use it: they give way). */
  freeMemMiB(nodeIndex: number): number;
  /** CPU nothing holds, training or auxiliary, in thousandths of a core: what a new auxiliary task may take. */
  idleCpuMilli(nodeIndex: number): number;
  /** Memory nothing holds, in MiB. */
  idleMemMiB(nodeIndex: number): number;
  /** Tasks a job holds, or undefined when it holds none. */
  tasksOf(jobId: string): readonly TaskPlacement[] | undefined;
  /** Auxiliary tasks a job holds (empty when none), in the order they were attached. */
  auxOf(jobId: string): readonly AuxTask[];
  /** GPU capacity allocated to jobs, in GPUs (shared GPUs count fractionally). */
  readonly allocatedGpus: number;
  /** CPU allocated to jobs, in thousandths of a core. */
  readonly allocatedCpuMilli: number;
  /** Memory allocated to jobs, in MiB. */
  readonly allocatedMemMiB: number;
  /** Free whole GPUs over schedulable nodes (an upper bound for any job's whole-GPU demand). */
  readonly schedulableFreeWholeGpus: number;
  /** How many times some node's free capacity grew (tasks ended, a node or GPU came back): a mark for `grownNodesSince`. */
  readonly growthCount: number;
  /** Nodes whose free capacity grew after the mark `growthCount` had (each once), in the order of their last growth. */
  grownNodesSince(mark: number): readonly number[];
  /** How many times some node's free capacity shrank or a node stopped taking tasks (tasks given, a node or GPU went): unchanged since a mark, the cluster only grew. */
  readonly shrinkCount: number;
  /**
   * How many times anything about the cluster changed (a task given or taken back, an auxiliary
   * task attached or detached, a node's health or a GPU's state): the same count, the same cluster.
   */
  readonly changeCount: number;
  /** Schedulable nodes in best-fit order per GPU group (free GPU capacity, free CPU, index), brought up to date when asked. */
  fitIndex(): FitIndexView;
  /** The node's hardware kind, numbered from 0: nodes of one kind have the same GPU model, GPUs, CPU and memory. */
  hardwareKind(nodeIndex: number): number;
  /** How many hardware kinds the cluster has. */
  readonly hardwareKinds: number;
  /** A node of the hardware kind (the first). */
  nodeOfKind(kind: number): NodeSpec;
  /** Schedulable nodes of the hardware kind with exactly `wholeGpus` free whole GPUs. */
  schedulableNodesWithFreeGpus(kind: number, wholeGpus: number): number;
}

/** What one job holds: its tasks, in the order they were given. */
interface Holding {
  readonly jobId: string;
  readonly tasks: TaskPlacement[];
}

/** The cluster's runtime state: health and allocations, changed only through checked methods. */
export class ClusterState implements ClusterView {
  readonly nodes: readonly NodeSpec[];
  readonly totalGpus: number;
  readonly totalCpuMilli: number;
  readonly totalMemMiB: number;
  private readonly health: NodeHealth[];
  private readonly gpuIsUp: boolean[][];
  private readonly gpuUsedMilli: number[][];
  private readonly wholeFree: number[];
  private readonly cpuUsedMilli: number[];
  private readonly memUsedMiB: number[];
  private readonly tasksByJob = new Map<string, Holding>();
  /** Auxiliary tasks by job, and by node in attach order (the newest gives way first). */
  private readonly auxByJob = new Map<string, AuxTask[]>();
  private readonly auxByNode: Eviction[][];
  private readonly auxCpuMilli: number[];
  private readonly auxMemMiB: number[];
  /**
   * For each node, the holding of the job of each task on it, in the order the tasks came (a job's
   * first entry stays first while it holds any task there: a task leaving takes the job's last
   * entry). A node holds a few tasks: an array costs less per start and stop than a map a node,
   * and its entries are told apart by identity (comparing job ids would read each one's string).
   */
  private readonly taskJobsByNode: Holding[][];
  private allocatedGpuMilliTotal = 0;
  /** Auxiliary tasks held over the cluster. */
  private auxTasks = 0;
  private allocatedCpuMilliTotal = 0;
  private allocatedMemMiBTotal = 0;
  private schedulableWholeFree = 0;
  private fit: FitIndex;
  /** Whether `fit` groups nodes by GPU model (see groupFitByGpuModel). */
  private fitByModel = true;
  /** Nodes whose free capacity grew (see grownNodesSince). */
  private readonly growth: GrowthLog;
  /** See shrinkCount. */
  private shrinks = 0;
  private changes = 0;
  /** Per node, the most free share of one working GPU (see mostFreeGpuMilli), kept as tasks and GPUs change. */
  private readonly mostFreeGpu: number[];
  /** Nodes whose place in the fit index is out of date (brought up to date when the index is read). */
  private readonly staleFit: number[] = [];
  /** Nodes listed in staleFit (its first entries; the array keeps its length). */
  private staleCount = 0;
  /** Whether each node is listed in staleFit. */
  private readonly isStaleFit: Uint8Array;
  /** Each node's hardware kind (see hardwareKind). */
  private readonly kinds: readonly number[];
  /** The first node of each hardware kind. */
  private readonly kindNodes: NodeSpec[] = [];
  /** Per hardware kind, its schedulable nodes by free whole GPUs: kind k's count of nodes with w free at k * gpuSlots + w. */
  private readonly freeGpuNodes: Int32Array;
  /** Entries a kind has in freeGpuNodes: the most GPUs a node has, plus one. */
  private readonly gpuSlots: number;
  /** Nodes changed since the last incremental check; null while changes are not tracked. */
  private changedNodes: Set<number> | null = null;
  /** What the tasks of the call being checked use of each node so far (zero between checks; see checkFits). */
  private readonly pendingCpuMilli: Float64Array;
  private readonly pendingMemMiB: Float64Array;
  /** Per GPU of the cluster (a node's GPUs from its gpuOffset on). */
  private readonly pendingGpuMilli: Float64Array;
  /** Where each node's GPUs start in pendingGpuMilli. */
  private readonly gpuOffset: Int32Array;
  /** Nodes with pending use, to reset after the check, and whether each is listed. */
  private readonly pendingNodes: number[] = [];
  /** Entries of pendingNodes in use (the array keeps its length: emptying it gives up its storage, made again at every check). */
  private pendingCount = 0;
  private readonly pendingMarked: Uint8Array;
  /** Each node's share of the totals as last re-derived, and their sums (incremental check). */
  private verified: NodeShare[] = [];
  private verifiedTotals: NodeShare = { gpuMilli: 0, cpuMilli: 0, schedulableWholeGpus: 0, freeGpuSlot: -1 };
  /** freeGpuNodes as re-derived from every node's last re-derived share (incremental check). */
  private verifiedFreeGpuNodes = new Int32Array(0);

  constructor(spec: ClusterSpec) {
    this.nodes = spec.nodes;
    this.growth = new GrowthLog(spec.nodes.length);
    this.health = spec.nodes.map(() => 'up');
    this.gpuIsUp = spec.nodes.map((n) => new Array<boolean>(n.gpus).fill(true));
    this.gpuUsedMilli = spec.nodes.map((n) => new Array<number>(n.gpus).fill(0));
    this.wholeFree = spec.nodes.map((n) => n.gpus);
    this.mostFreeGpu = spec.nodes.map((n) => (n.gpus > 0 ? GPU_MILLI : -1));
    this.cpuUsedMilli = spec.nodes.map(() => 0);
    this.memUsedMiB = spec.nodes.map(() => 0);
    this.taskJobsByNode = spec.nodes.map(() => []);
    this.auxByNode = spec.nodes.map(() => []);
    this.auxCpuMilli = spec.nodes.map(() => 0);
    this.auxMemMiB = spec.nodes.map(() => 0);
    this.totalGpus = spec.nodes.reduce((sum, n) => sum + n.gpus, 0);
    this.totalCpuMilli = spec.nodes.reduce((sum, n) => sum + n.cpuMilli, 0);
    this.totalMemMiB = spec.nodes.reduce((sum, n) => sum + n.memMiB, 0);
    this.schedulableWholeFree = this.totalGpus;
    this.fit = this.emptyFitIndex();
    this.isStaleFit = new Uint8Array(this.nodes.length);
    this.pendingCpuMilli = new Float64Array(this.nodes.length);
    this.pendingMemMiB = new Float64Array(this.nodes.length);
    this.pendingMarked = new Uint8Array(this.nodes.length);
    this.gpuOffset = new Int32Array(this.nodes.length);
    for (let i = 1; i < this.nodes.length; i++) this.gpuOffset[i] = this.gpuOffset[i - 1]! + this.nodes[i - 1]!.gpus;
    this.pendingGpuMilli = new Float64Array(this.totalGpus);
    for (let i = 0; i < this.nodes.length; i++) this.markStaleFit(i);
    const kinds = new Map<string, number>();
    this.kinds = spec.nodes.map((n) => {
      const key = `${n.gpuType ?? ''}|${n.gpus}|${n.cpuMilli}|${n.memMiB}`;
      let kind = kinds.get(key);
      if (kind === undefined) {
        kinds.set(key, (kind = kinds.size));
        this.kindNodes.push(n);
      }
      return kind;
    });
    this.gpuSlots = spec.nodes.reduce((most, n) => Math.max(most, n.gpus), 0) + 1;
    this.freeGpuNodes = new Int32Array(this.kindNodes.length * this.gpuSlots);
    for (let i = 0; i < this.nodes.length; i++) this.freeGpuNodes[this.kinds[i]! * this.gpuSlots + this.nodes[i]!.gpus]!++;
  }

  get hardwareKinds(): number {
    return this.kindNodes.length;
  }

  nodeOfKind(kind: number): NodeSpec {
    return this.kindNodes[kind]!;
  }

  schedulableNodesWithFreeGpus(kind: number, wholeGpus: number): number {
    return wholeGpus < this.gpuSlots ? this.freeGpuNodes[kind * this.gpuSlots + wholeGpus]! : 0;
  }

  hardwareKind(nodeIndex: number): number {
    return this.kinds[nodeIndex]!;
  }

  /**
   * Whether the fit index keeps nodes with GPUs in one group per GPU model (the default) or all in
   * one (`byModel` false): one group to scan for a request naming no model, where a cluster of five
   * models otherwise scans five. Results do not depend on it (a request naming models has its
   * nodes' models checked as it is placed). The index is built again when it changes: set it before
   * any scratch of the cluster is made (a scratch keeps the grouping it was made with).
   */
  groupFitByGpuModel(byModel: boolean): void {
    if (byModel === this.fitByModel) return;
    this.fitByModel = byModel;
    this.fit = this.emptyFitIndex();
    for (let i = 0; i < this.nodes.length; i++) this.markStaleFit(i);
  }

  /** A fit index of no node yet, grouped as `fitByModel` says, with GPU rooms. */
  private emptyFitIndex(): FitIndex {
    const byModel = this.fitByModel;
    return new FitIndex((i) => fitGroupOf(this.nodes[i]!, byModel), true);
  }

  get growthCount(): number {
    return this.growth.mark;
  }

  grownNodesSince(mark: number): readonly number[] {
    return this.growth.since(mark);
  }

  get shrinkCount(): number {
    return this.shrinks;
  }

  get changeCount(): number {
    return this.changes;
  }

  fitIndex(): FitIndexView {
    for (let k = 0; k < this.staleCount; k++) {
      const i = this.staleFit[k]!;
      this.isStaleFit[i] = 0;
      if (!this.schedulable(i)) {
        this.fit.remove(i);
        continue;
      }
      let gpuMilli = 0;
      for (let g = 0; g < this.nodes[i]!.gpus; g++) gpuMilli += this.gpuFreeMilli(i, g);
      this.fit.set(i, gpuMilli, this.freeCpuMilli(i), gpuRoomOf(this.wholeFree[i]!, this.mostFreeGpu[i]!));
    }
    this.staleCount = 0;
    return this.fit;
  }

  nodeHealth(nodeIndex: number): NodeHealth {
    return this.health[nodeIndex]!;
  }

  gpuUp(nodeIndex: number, gpuIndex: number): boolean {
    return this.gpuIsUp[nodeIndex]![gpuIndex]!;
  }

  schedulable(nodeIndex: number): boolean {
    return this.health[nodeIndex] === 'up';
  }

  gpuFreeMilli(nodeIndex: number, gpuIndex: number): number {
    if (!this.gpuIsUp[nodeIndex]![gpuIndex]) return 0;
    return GPU_MILLI - this.gpuUsedMilli[nodeIndex]![gpuIndex]!;
  }

  freeWholeGpus(nodeIndex: number): number {
    return this.wholeFree[nodeIndex]!;
  }

  mostFreeGpuMilli(nodeIndex: number): number {
    return this.mostFreeGpu[nodeIndex]!;
  }

  freeCpuMilli(nodeIndex: number): number {
    return this.nodes[nodeIndex]!.cpuMilli - this.cpuUsedMilli[nodeIndex]!;
  }

  freeMemMiB(nodeIndex: number): number {
    return this.nodes[nodeIndex]!.memMiB - this.memUsedMiB[nodeIndex]!;
  }

  idleCpuMilli(nodeIndex: number): number {
    return this.freeCpuMilli(nodeIndex) - this.auxCpuMilli[nodeIndex]!;
  }

  idleMemMiB(nodeIndex: number): number {
    return this.freeMemMiB(nodeIndex) - this.auxMemMiB[nodeIndex]!;
  }

  tasksOf(jobId: string): readonly TaskPlacement[] | undefined {
    return this.tasksByJob.get(jobId)?.tasks;
  }

  auxOf(jobId: string): readonly AuxTask[] {
    // Most runs have no auxiliary tasks: no lookup then.
    if (this.auxByJob.size === 0) return NO_AUX_TASKS;
    return this.auxByJob.get(jobId) ?? NO_AUX_TASKS;
  }

  /** Auxiliary tasks (data workers) held over the cluster now. */
  get auxTaskCount(): number {
    return this.auxTasks;
  }

  get allocatedGpus(): number {
    return this.allocatedGpuMilliTotal / GPU_MILLI;
  }

  get allocatedCpuMilli(): number {
    return this.allocatedCpuMilliTotal;
  }

  get allocatedMemMiB(): number {
    return this.allocatedMemMiBTotal;
  }

  get schedulableFreeWholeGpus(): number {
    return this.schedulableWholeFree;
  }

  /** Ids of jobs holding at least one task on the node (cost: those jobs only). */
  jobsOnNode(nodeIndex: number): string[] {
    return [...new Set(this.taskJobsByNode[nodeIndex]!.map((holding) => holding.jobId))];
  }

  /**
   * Gives tasks to a job (added to what it holds); throws InvariantError on any breach, changing
   * nothing. Auxiliary tasks in the way give way, newest first on each node: returns those taken back.
   */
  allocate(jobId: string, tasks: readonly TaskPlacement[]): readonly Eviction[] {
    this.checkFits(jobId, tasks);
    let holding = this.tasksByJob.get(jobId);
    // A new holding's list is a copy at its length (pushing into an empty list reserved room for 16 or more).
    if (holding === undefined) this.tasksByJob.set(jobId, (holding = { jobId, tasks: tasks.slice() }));
    else holding.tasks.push(...tasks);
    for (const task of tasks) {
      this.apply(task, +1);
      this.countOnNode(holding, task.nodeIndex, +1);
    }
    let evicted: Eviction[] | null = null;
    for (const task of tasks) {
      const i = task.nodeIndex;
      while (this.idleCpuMilli(i) < 0 || this.idleMemMiB(i) < 0) {
        const newest = this.auxByNode[i]!.at(-1)!;
        this.detachAux(newest.jobId, [newest.task]);
        (evicted ??= []).push(newest);
      }
    }
    return evicted ?? NO_EVICTIONS;
  }

  /** Gives auxiliary tasks to a job, each within the idle capacity of a schedulable node; throws InvariantError on any breach, changing nothing. */
  attachAux(jobId: string, tasks: readonly AuxTask[]): void {
    const cpu = new Map<number, number>();
    const mem = new Map<number, number>();
    for (const task of tasks) {
      const i = task.nodeIndex;
      const node = this.nodes[i];
      if (!node) throw new InvariantError(`job ${jobId}: no node with index ${i}`);
      if (!this.schedulable(i)) throw new InvariantError(`job ${jobId}: node ${node.name} is ${this.health[i]}, not schedulable`);
      if (!(task.cpuMilli >= 0 && task.memMiB >= 0 && task.cpuMilli + task.memMiB > 0)) {
        throw new InvariantError(`job ${jobId}: an auxiliary task must hold some CPU or memory and nothing negative`);
      }
      cpu.set(i, (cpu.get(i) ?? 0) + task.cpuMilli);
      mem.set(i, (mem.get(i) ?? 0) + task.memMiB);
      if (cpu.get(i)! > this.idleCpuMilli(i) || mem.get(i)! > this.idleMemMiB(i)) {
        throw new InvariantError(`job ${jobId}: auxiliary tasks over-allocate ${node.name}`);
      }
    }
    const held = this.auxByJob.get(jobId) ?? [];
    for (const task of tasks) {
      this.changes++;
      this.changedNodes?.add(task.nodeIndex);
      this.auxCpuMilli[task.nodeIndex]! += task.cpuMilli;
      this.auxMemMiB[task.nodeIndex]! += task.memMiB;
      this.allocatedCpuMilliTotal += task.cpuMilli;
      this.auxByNode[task.nodeIndex]!.push({ jobId, task });
      held.push(task);
      this.auxTasks++;
    }
    if (held.length > 0) this.auxByJob.set(jobId, held);
  }

  /** Takes auxiliary tasks back from a job; throws InvariantError for one it does not hold. */
  detachAux(jobId: string, tasks: readonly AuxTask[]): void {
    const held = this.auxByJob.get(jobId);
    for (const task of tasks) {
      const index = held ? held.indexOf(task) : -1;
      if (!held || index < 0) throw new InvariantError(`job ${jobId} does not hold that auxiliary task on node ${task.nodeIndex}`);
      held.splice(index, 1);
      this.auxTasks--;
      const onNode = this.auxByNode[task.nodeIndex]!;
      onNode.splice(onNode.findIndex((e) => e.task === task), 1);
      this.changes++;
      this.changedNodes?.add(task.nodeIndex);
      this.auxCpuMilli[task.nodeIndex]! -= task.cpuMilli;
      this.auxMemMiB[task.nodeIndex]! -= task.memMiB;
      this.allocatedCpuMilliTotal -= task.cpuMilli;
    }
    if (held && held.length === 0) this.auxByJob.delete(jobId);
  }

  /** Takes back every auxiliary task on a node (it went down or was cordoned); returns them. */
  evictAuxOn(nodeIndex: number): Eviction[] {
    const evicted = [...this.auxByNode[nodeIndex]!];
    for (const { jobId, task } of evicted) this.detachAux(jobId, [task]);
    return evicted;
  }

  /** Frees everything a job holds; returns the tasks it held (empty when none). */
  release(jobId: string): readonly TaskPlacement[] {
    const holding = this.tasksByJob.get(jobId);
    if (!holding) return [];
    for (const task of holding.tasks) {
      this.apply(task, -1);
      this.countOnNode(holding, task.nodeIndex, -1);
    }
    this.tasksByJob.delete(jobId);
    return holding.tasks;
  }

  /** Frees some of a job's tasks (matched by role, node, GPUs and demand); throws InvariantError for a task it does not hold. */
  releaseTasks(jobId: string, tasks: readonly TaskPlacement[]): void {
    const holding = this.tasksByJob.get(jobId);
    const held = holding?.tasks;
    for (const task of tasks) {
      const index = held ? held.findIndex((h) => sameTask(h, task)) : -1;
      if (!held || index < 0) throw new InvariantError(`job ${jobId} does not hold a ${task.role} task on node ${task.nodeIndex}`);
      this.apply(held[index]!, -1);
      this.countOnNode(holding!, task.nodeIndex, -1);
      held.splice(index, 1);
    }
    if (held && held.length === 0) this.tasksByJob.delete(jobId);
  }

  /** Changes a node's health; tasks already on a node that goes down stay until the simulation evicts them. */
  setNodeHealth(nodeIndex: number, health: NodeHealth): void {
    this.changes++;
    this.changedNodes?.add(nodeIndex);
    this.markStaleFit(nodeIndex);
    const wasSchedulable = this.schedulable(nodeIndex);
    this.health[nodeIndex] = health;
    const delta = (this.schedulable(nodeIndex) ? 1 : 0) - (wasSchedulable ? 1 : 0);
    this.schedulableWholeFree += delta * this.wholeFree[nodeIndex]!;
    this.freeGpuNodes[this.kinds[nodeIndex]! * this.gpuSlots + this.wholeFree[nodeIndex]!]! += delta;
    if (delta > 0) this.growth.grew(nodeIndex);
    else if (delta < 0) this.shrinks++;
  }

  /** Marks one GPU up or down; a down GPU is never allocated. */
  setGpuUp(nodeIndex: number, gpuIndex: number, up: boolean): void {
    const gpus = this.gpuIsUp[nodeIndex]!;
    if (gpus[gpuIndex] === up) return;
    this.changes++;
    this.changedNodes?.add(nodeIndex);
    this.markStaleFit(nodeIndex);
    const wasWholeFree = this.isWholeFree(nodeIndex, gpuIndex);
    gpus[gpuIndex] = up;
    if (up) this.growth.grew(nodeIndex);
    else this.shrinks++;
    this.adjustWholeFree(nodeIndex, (this.isWholeFree(nodeIndex, gpuIndex) ? 1 : 0) - (wasWholeFree ? 1 : 0));
    this.refreshMostFreeGpu(nodeIndex);
  }

  /** Starts recording which nodes change, for `checkChangedNodes` (off unless invariants are checked). */
  trackChanges(): void {
    if (this.changedNodes) return;
    this.changedNodes = new Set();
    this.verified = this.nodes.map((_, i) => ({ gpuMilli: 0, cpuMilli: 0, schedulableWholeGpus: this.schedulable(i) ? this.wholeFree[i]! : 0, freeGpuSlot: this.freeGpuSlotOf(i, this.wholeFree[i]!) }));
    this.verifiedTotals = { gpuMilli: 0, cpuMilli: 0, schedulableWholeGpus: this.schedulableWholeFree, freeGpuSlot: -1 };
    this.verifiedFreeGpuNodes = this.freeGpuNodes.slice();
    this.checkInvariants();
  }

  /**
   * Re-derives the accounting of the nodes that changed since the last call (cost: those nodes and
   * the tasks of the jobs on them), and the cluster-wide totals from every node's last re-derived
   * share; throws InvariantError on any difference or exceeded capacity.
   */
  checkChangedNodes(): void {
    const changed = this.changedNodes;
    if (!changed) throw new InvariantError('checkChangedNodes needs trackChanges first');
    if (changed.size === 0) return;
    const jobIds = new Set<string>();
    for (const i of changed) for (const holding of this.taskJobsByNode[i]!) jobIds.add(holding.jobId);
    const tasks: TaskPlacement[] = [];
    const counts = new Map<number, Map<string, number>>([...changed].map((i) => [i, new Map()]));
    for (const jobId of jobIds) {
      for (const task of this.tasksByJob.get(jobId)?.tasks ?? []) {
        const onNode = counts.get(task.nodeIndex);
        if (!onNode) continue;
        onNode.set(jobId, (onNode.get(jobId) ?? 0) + 1);
        tasks.push(task);
        this.checkNotDown(jobId, task);
      }
    }
    const used = this.usageOf(tasks, changed);
    for (const i of changed) {
      this.checkIndex(i, counts.get(i)!);
      const share = this.checkNode(i, used.get(i)!);
      const before = this.verified[i]!;
      this.verifiedTotals.gpuMilli += share.gpuMilli - before.gpuMilli;
      this.verifiedTotals.cpuMilli += share.cpuMilli - before.cpuMilli;
      this.verifiedTotals.schedulableWholeGpus += share.schedulableWholeGpus - before.schedulableWholeGpus;
      if (before.freeGpuSlot >= 0) this.verifiedFreeGpuNodes[before.freeGpuSlot]!--;
      if (share.freeGpuSlot >= 0) this.verifiedFreeGpuNodes[share.freeGpuSlot]!++;
      this.verified[i] = share;
    }
    changed.clear();
    this.checkTotals(this.verifiedTotals);
    this.checkFreeGpuNodes(this.verifiedFreeGpuNodes);
  }

  /** Re-derives every counter from scratch and throws InvariantError if any differs or any capacity is exceeded. */
  checkInvariants(): void {
    const all = new Set(this.nodes.map((_, i) => i));
    const countsByNode = this.nodes.map(() => new Map<string, number>());
    const tasks: TaskPlacement[] = [];
    for (const [jobId, { tasks: held }] of this.tasksByJob) {
      for (const task of held) {
        countsByNode[task.nodeIndex]!.set(jobId, (countsByNode[task.nodeIndex]!.get(jobId) ?? 0) + 1);
        tasks.push(task);
        this.checkNotDown(jobId, task);
      }
    }
    const used = this.usageOf(tasks, all);
    const totals = { gpuMilli: 0, cpuMilli: 0, schedulableWholeGpus: 0, freeGpuSlot: -1 };
    const freeGpuNodes = new Int32Array(this.freeGpuNodes.length);
    this.nodes.forEach((_, i) => {
      this.checkIndex(i, countsByNode[i]!);
      const share = this.checkNode(i, used.get(i)!);
      totals.gpuMilli += share.gpuMilli;
      totals.cpuMilli += share.cpuMilli;
      totals.schedulableWholeGpus += share.schedulableWholeGpus;
      if (share.freeGpuSlot >= 0) freeGpuNodes[share.freeGpuSlot]!++;
    });
    this.checkTotals(totals);
    this.checkFreeGpuNodes(freeGpuNodes);
  }

  private checkNotDown(jobId: string, task: TaskPlacement): void {
    if (this.health[task.nodeIndex] === 'down') {
      throw new InvariantError(`job ${jobId} holds a task on down node ${this.nodes[task.nodeIndex]!.name}`);
    }
  }

  /** What the tasks use on each of the given nodes (tasks elsewhere are ignored). */
  private usageOf(tasks: readonly TaskPlacement[], nodeIndices: ReadonlySet<number>): Map<number, NodeUsage> {
    const used = new Map<number, NodeUsage>();
    for (const i of nodeIndices) used.set(i, { gpuMilli: new Array<number>(this.nodes[i]!.gpus).fill(0), cpuMilli: 0, memMiB: 0 });
    for (const task of tasks) {
      const usage = used.get(task.nodeIndex);
      if (!usage) continue;
      for (const g of task.gpuIndices) usage.gpuMilli[g]! += task.demand.gpuMilli;
      usage.cpuMilli += task.demand.cpuMilli;
      usage.memMiB += task.demand.memMiB;
    }
    return used;
  }

  /** Throws unless the node's jobs-on-node index holds exactly these task counts. */
  private checkIndex(nodeIndex: number, counts: ReadonlyMap<string, number>): void {
    const index = new Map<string, number>();
    for (const { jobId } of this.taskJobsByNode[nodeIndex]!) index.set(jobId, (index.get(jobId) ?? 0) + 1);
    if (index.size !== counts.size || [...index].some(([jobId, count]) => counts.get(jobId) !== count)) {
      throw new InvariantError(`node ${this.nodes[nodeIndex]!.name}: jobs-on-node index out of step with the tasks held`);
    }
  }

  /** Throws unless the node's counters equal what its tasks use, within capacity; returns its share of the totals. */
  private checkNode(i: number, used: NodeUsage): NodeShare {
    const node = this.nodes[i]!;
    const where = `node ${node.name}`;
    if (used.cpuMilli !== this.cpuUsedMilli[i] || used.cpuMilli > node.cpuMilli) {
      throw new InvariantError(`${where}: CPU accounting ${this.cpuUsedMilli[i]} vs ${used.cpuMilli} of ${node.cpuMilli}`);
    }
    if (used.memMiB !== this.memUsedMiB[i] || used.memMiB > node.memMiB) {
      throw new InvariantError(`${where}: memory accounting ${this.memUsedMiB[i]} vs ${used.memMiB} of ${node.memMiB}`);
    }
    let gpuMilli = 0;
    let wholeFree = 0;
    used.gpuMilli.forEach((milli, g) => {
      if (milli !== this.gpuUsedMilli[i]![g] || milli > GPU_MILLI) {
        throw new InvariantError(`${where}: GPU ${g} accounting ${this.gpuUsedMilli[i]![g]} vs ${milli}`);
      }
      gpuMilli += milli;
      if (milli === 0 && this.gpuIsUp[i]![g]) wholeFree++;
    });
    if (wholeFree !== this.wholeFree[i]) throw new InvariantError(`${where}: free whole GPUs ${this.wholeFree[i]} vs ${wholeFree}`);
    let auxCpu = 0;
    let auxMem = 0;
    for (const { task } of this.auxByNode[i]!) {
      auxCpu += task.cpuMilli;
      auxMem += task.memMiB;
    }
    if (auxCpu !== this.auxCpuMilli[i] || auxMem !== this.auxMemMiB[i]) {
      throw new InvariantError(`${where}: auxiliary accounting ${this.auxCpuMilli[i]} CPU milli, ${this.auxMemMiB[i]} MiB vs ${auxCpu}, ${auxMem}`);
    }
    if (used.cpuMilli + auxCpu > node.cpuMilli || used.memMiB + auxMem > node.memMiB) throw new InvariantError(`${where}: auxiliary tasks over-allocate it`);
    if (auxCpu + auxMem > 0 && this.health[i] === 'down') throw new InvariantError(`${where} is down but holds auxiliary tasks`);
    return { gpuMilli, cpuMilli: used.cpuMilli + auxCpu, schedulableWholeGpus: this.schedulable(i) ? wholeFree : 0, freeGpuSlot: this.freeGpuSlotOf(i, wholeFree) };
  }

  /** Where a node with `wholeFree` free whole GPUs counts in freeGpuNodes, or -1 when it is not schedulable. */
  private freeGpuSlotOf(nodeIndex: number, wholeFree: number): number {
    return this.schedulable(nodeIndex) ? this.kinds[nodeIndex]! * this.gpuSlots + wholeFree : -1;
  }

  /** Throws unless the count of schedulable nodes by kind and free whole GPUs equals the one re-derived from the nodes. */
  private checkFreeGpuNodes(derived: Int32Array): void {
    for (let at = 0; at < derived.length; at++) {
      if (derived[at] !== this.freeGpuNodes[at]) {
        const kind = Math.floor(at / this.gpuSlots);
        throw new InvariantError(`cluster: ${this.freeGpuNodes[at]} schedulable nodes of kind ${kind} (${this.kindNodes[kind]!.name}'s) with ${at % this.gpuSlots} free GPUs counted, ${derived[at]} over the nodes`);
      }
    }
  }

  /** Throws unless the cluster-wide counters equal the sums of the nodes' shares. */
  private checkTotals(totals: NodeShare): void {
    if (totals.gpuMilli !== this.allocatedGpuMilliTotal) {
      throw new InvariantError(`cluster: allocated GPU total ${this.allocatedGpuMilliTotal} vs ${totals.gpuMilli} milli over the nodes`);
    }
    if (totals.cpuMilli !== this.allocatedCpuMilliTotal) {
      throw new InvariantError(`cluster: allocated CPU total ${this.allocatedCpuMilliTotal} vs ${totals.cpuMilli} milli over the nodes`);
    }
    if (totals.schedulableWholeGpus !== this.schedulableWholeFree) {
      throw new InvariantError(`cluster: schedulable free GPUs ${this.schedulableWholeFree} vs ${totals.schedulableWholeGpus} over the nodes`);
    }
  }

  /** Lists one more task of the job on the node (+1), or one fewer (-1: the job's last entry there goes). */
  private countOnNode(holding: Holding, nodeIndex: number, delta: 1 | -1): void {
    const jobs = this.taskJobsByNode[nodeIndex]!;
    if (delta > 0) {
      jobs.push(holding);
      return;
    }
    const k = jobs.lastIndexOf(holding);
    if (k < 0) throw new InvariantError(`node ${this.nodes[nodeIndex]!.name}: job ${holding.jobId} holds no task there`);
    for (let j = k + 1; j < jobs.length; j++) jobs[j - 1] = jobs[j]!;
    jobs.pop();
  }

  /** Works out the node's most free share of one GPU again (its GPUs' use or health changed). */
  private refreshMostFreeGpu(nodeIndex: number): void {
    let most = -1;
    for (let g = 0; g < this.nodes[nodeIndex]!.gpus; g++) most = Math.max(most, this.gpuFreeMilli(nodeIndex, g));
    this.mostFreeGpu[nodeIndex] = most;
  }

  /** Lists the node for the fit index's next update (once until then). */
  private markStaleFit(nodeIndex: number): void {
    if (this.isStaleFit[nodeIndex] === 1) return;
    this.isStaleFit[nodeIndex] = 1;
    this.staleFit[this.staleCount++] = nodeIndex;
  }

  private isWholeFree(nodeIndex: number, gpuIndex: number): boolean {
    return this.gpuIsUp[nodeIndex]![gpuIndex]! && this.gpuUsedMilli[nodeIndex]![gpuIndex] === 0;
  }

  private adjustWholeFree(nodeIndex: number, delta: number): void {
    if (delta === 0) return;
    const at = this.kinds[nodeIndex]! * this.gpuSlots + this.wholeFree[nodeIndex]!;
    this.wholeFree[nodeIndex]! += delta;
    if (!this.schedulable(nodeIndex)) return;
    this.schedulableWholeFree += delta;
    this.freeGpuNodes[at]!--;
    this.freeGpuNodes[at + delta]!++;
  }

  private apply(task: TaskPlacement, sign: 1 | -1): void {
    const i = task.nodeIndex;
    this.changes++;
    this.changedNodes?.add(i);
    this.markStaleFit(i);
    const gpus = task.gpuIndices;
    for (let k = 0; k < gpus.length; k++) {
      const g = gpus[k]!;
      const wasWholeFree = this.isWholeFree(i, g);
      this.gpuUsedMilli[i]![g]! += sign * task.demand.gpuMilli;
      this.adjustWholeFree(i, (this.isWholeFree(i, g) ? 1 : 0) - (wasWholeFree ? 1 : 0));
    }
    if (task.gpuIndices.length > 0) this.refreshMostFreeGpu(i);
    this.cpuUsedMilli[i]! += sign * task.demand.cpuMilli;
    this.memUsedMiB[i]! += sign * task.demand.memMiB;
    this.allocatedGpuMilliTotal += sign * task.gpuIndices.length * task.demand.gpuMilli;
    this.allocatedCpuMilliTotal += sign * task.demand.cpuMilli;
    this.allocatedMemMiBTotal += sign * task.demand.memMiB;
    if (sign < 0) this.growth.grew(i);
    else this.shrinks++;
  }

  private checkFits(jobId: string, tasks: readonly TaskPlacement[]): void {
    // Sum per node/GPU first so that two tasks of one call cannot together overfill a node: the
    // call's own use so far sits in the pending arrays (made once, reset after the check).
    const touched = this.pendingNodes;
    try {
      for (const task of tasks) {
        const i = task.nodeIndex;
        const node = this.nodes[i];
        if (!node) throw new InvariantError(`job ${jobId}: no node with index ${i}`);
        if (!this.schedulable(i)) {
          throw new InvariantError(`job ${jobId}: node ${node.name} is ${this.health[i]}, not schedulable`);
        }
        const { demand, gpuIndices } = task;
        if (gpuIndices.length !== demand.gpus) {
          throw new InvariantError(`job ${jobId}: task asks ${demand.gpus} GPUs but names ${gpuIndices.length}`);
        }
        if (this.pendingMarked[i] === 0) {
          this.pendingMarked[i] = 1;
          touched[this.pendingCount++] = i;
        }
        for (let k = 0; k < gpuIndices.length; k++) {
          const g = gpuIndices[k]!;
          if (!(g >= 0 && g < node.gpus)) throw new InvariantError(`job ${jobId}: ${node.name} has no GPU ${g}`);
          for (let j = 0; j < k; j++) if (gpuIndices[j] === g) throw new InvariantError(`job ${jobId}: task names one GPU twice on ${node.name}`);
          if (!this.gpuIsUp[i]![g]) throw new InvariantError(`job ${jobId}: GPU ${g} of ${node.name} is down`);
          const at = this.gpuOffset[i]! + g;
          const used = this.gpuUsedMilli[i]![g]! + this.pendingGpuMilli[at]! + demand.gpuMilli;
          if (used > GPU_MILLI) {
            throw new InvariantError(`job ${jobId}: GPU ${g} of ${node.name} over-allocated (${used}/${GPU_MILLI})`);
          }
          this.pendingGpuMilli[at]! += demand.gpuMilli;
        }
        const cpuUsed = this.cpuUsedMilli[i]! + this.pendingCpuMilli[i]! + demand.cpuMilli;
        if (cpuUsed > node.cpuMilli) {
          throw new InvariantError(`job ${jobId}: CPU of ${node.name} over-allocated (${cpuUsed}/${node.cpuMilli} milli)`);
        }
        this.pendingCpuMilli[i]! += demand.cpuMilli;
        const memUsed = this.memUsedMiB[i]! + this.pendingMemMiB[i]! + demand.memMiB;
        if (memUsed > node.memMiB) {
          throw new InvariantError(`job ${jobId}: memory of ${node.name} over-allocated (${memUsed}/${node.memMiB} MiB)`);
        }
        this.pendingMemMiB[i]! += demand.memMiB;
      }
    } finally {
      for (let k = 0; k < this.pendingCount; k++) {
        const i = touched[k]!;
        this.pendingCpuMilli[i] = 0;
        this.pendingMemMiB[i] = 0;
        this.pendingMarked[i] = 0;
      }
      this.pendingCount = 0;
      // The GPUs the tasks name (those checked before a throw among them), not every GPU of their nodes.
      for (const task of tasks) {
        const i = task.nodeIndex;
        const node = this.nodes[i];
        if (node === undefined) continue;
        for (const g of task.gpuIndices) if (g >= 0 && g < node.gpus) this.pendingGpuMilli[this.gpuOffset[i]! + g] = 0;
      }
    }
  }
}

/** What the tasks on one node use: per GPU (thousandths), CPU (thousandths of a core) and memory. */
interface NodeUsage {
  readonly gpuMilli: number[];
  cpuMilli: number;
  memMiB: number;
}

/** One node's share of the cluster-wide totals. */
interface NodeShare {
  gpuMilli: number;
  cpuMilli: number;
  schedulableWholeGpus: number;
  /** Where the node counts in freeGpuNodes (-1: it is not schedulable). */
  freeGpuSlot: number;
}

/** True when two tasks are the same placement (same role, node, GPUs and demand). */
function sameTask(a: TaskPlacement, b: TaskPlacement): boolean {
  if (a === b) return true;
  const d = a.demand;
  const e = b.demand;
  return (
    a.role === b.role &&
    a.nodeIndex === b.nodeIndex &&
    a.gpuIndices.length === b.gpuIndices.length &&
    a.gpuIndices.every((g, i) => g === b.gpuIndices[i]) &&
    d.gpus === e.gpus &&
    d.gpuMilli === e.gpuMilli &&
    d.cpuMilli === e.cpuMilli &&
    d.memMiB === e.memMiB
  );
}
