import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import { InvariantError } from '../../errors.js';
import type { PlacementPolicy } from '../types.js';
import { alignmentOn } from './tetris-alignment.js';
import { reserveTrial, SingleCandidates, trialFits, type UsedMachine } from './tetris-candidates.js';
import { Descending } from './tetris-descending.js';
import type { TetrisClass } from './tetris-class.js';

/** A gang's trial in the pass: where its placement put it, and its first replica's alignment there. */
interface GangTrial {
  readonly tasks: readonly TaskPlacement[];
  readonly alignment: number;
  /** A start took capacity the trial needs: it keeps its last alignment, and the gang is placed again when picked. */
  readonly stale: boolean;
}

/** A class in the pass with its candidates. */
interface Entry {
  readonly shape: TetrisClass;
  single: SingleCandidates | null;
  gang: GangTrial | null;
  /** Left the pass: no candidate, or no job. */
  gone: boolean;
  /** The last start that updated it (updated once a start). */
  stamp: number;
}

/** A round's pick: the class whose first job starts, and the tasks reserved for it. */
export interface Pick {
  readonly shape: TetrisClass;
  readonly tasks: TaskPlacement[];
}

/**
 * One Tetris pass over a scratch: the live classes with their candidates, kept from round to round
 * (capacity only shrinks within a pass, so a start changes only the classes that watch a machine
 * it used: a single replica's candidates and the machine after them, a gang's trial machines).
 * A gang is tried when it enters the pass; its trial is kept while it still fits (its alignment
 * read again after each start on its machines); once a start takes capacity it needs, the gang
 * keeps its last alignment and is placed again only when picked: it starts where the placement
 * puts it then, or leaves the pass when that fails.
 */
export class TetrisRound {
  private entries: Entry[];
  /** The entries watching each machine (stale ones are skipped and dropped when the machine is used). */
  private readonly watchers = new Map<number, Entry[]>();
  /** The machines of each GPU group in standing order. */
  private readonly lists = new Map<string, Descending>();
  /** The same lists, in the order they were made. */
  private readonly listOrder: Descending[] = [];
  /** The lists a replica may use, by whether it needs GPUs and its allowed GPU models. */
  private readonly groupLists = new Map<string, readonly Descending[]>();
  /** The same, by the list of GPU models asked for, for replicas with and without GPUs. */
  private readonly gpuListsByTypes = new Map<readonly string[], readonly Descending[]>();
  private readonly cpuListsByTypes = new Map<readonly string[], readonly Descending[]>();
  private stamp = 0;

  /**
   * @param shapes the live classes, in signature order (the order of the round's sums)
   * @param noCandidate called for a class that leaves the pass without a candidate
   */
  constructor(
    private readonly scratch: CapacityScratch,
    private readonly placement: PlacementPolicy,
    private readonly bound: number,
    shapes: readonly TetrisClass[],
    private readonly noCandidate: (shape: TetrisClass) => void,
  ) {
    this.entries = shapes.map((shape) => ({ shape, single: null, gang: null, gone: false, stamp: 0 }));
    for (const entry of this.entries) this.enter(entry);
  }

  /**
   * Reserves the round's best pick, or returns null when no class has a candidate. Score of a
   * class's pick: its best alignment - e x its least remaining seconds; e = (sum over classes of
   * jobs x alignment sum) / (sum over classes of candidates x remaining seconds), summed in the
   * classes' order; ties go to the pick earlier in the queue.
   */
  pick(): Pick | null {
    if (this.entries.some((entry) => entry.gone)) this.entries = this.entries.filter((entry) => !entry.gone);
    if (this.entries.length === 0) return null;
    let alignmentSum = 0;
    let remainingMs = 0;
    for (const { shape, single, gang } of this.entries) {
      if (single !== null) {
        alignmentSum += shape.jobs.size * single.alignmentSum;
        remainingMs += single.nodes.length * shape.remainingMs;
      } else {
        alignmentSum += shape.jobs.size * gang!.alignment;
        remainingMs += shape.remainingMs;
      }
    }
    const e = remainingMs > 0 ? alignmentSum / (remainingMs / 1000) : 0;
    let best = this.entries[0]!;
    let bestScore = -Infinity;
    let bestPosition = Infinity;
    for (const entry of this.entries) {
      const [jobMs, position] = entry.shape.firstKey!;
      const top = entry.single !== null ? entry.single.alignments[entry.single.bestAt]! : entry.gang!.alignment;
      const score = top - e * (jobMs! / 1000);
      if (score > bestScore || (score === bestScore && position! < bestPosition)) {
        best = entry;
        bestScore = score;
        bestPosition = position!;
      }
    }
    let tasks: TaskPlacement[];
    if (best.gang !== null) {
      if (!best.gang.stale) tasks = reserveTrial(this.scratch, best.gang.tasks);
      else {
        const placed = this.placement.place(this.scratch, best.shape.request);
        if (placed === null) {
          this.leave(best);
          return this.pick();
        }
        tasks = placed;
      }
    } else {
      const { role, demand } = best.shape.first!;
      const nodeIndex = best.single!.nodes[best.single!.bestAt]!;
      const task = this.scratch.reserve(nodeIndex, role, demand);
      if (task === null) throw new InvariantError(`tetris: candidate node ${nodeIndex} does not take the replica it was scored for`);
      tasks = [task];
    }
    this.started(best, tasks);
    return { shape: best.shape, tasks };
  }

  /** After a start: the class leaves the pass when it has no job left (the queue removes the started one), and the classes watching the machines used are updated. */
  private started(chosen: Entry, tasks: readonly TaskPlacement[]): void {
    // The queue removes the job only after pick returns: the class empties when this was its last one.
    if (chosen.shape.jobs.size === 1) chosen.gone = true;
    const used = tasks.length === 1 ? [tasks[0]!.nodeIndex] : [...new Set(tasks.map((task) => task.nodeIndex))];
    // Indexed loops: a pick runs this at every start, and an iterator would be made for each loop.
    const lists = this.listOrder;
    for (let l = 0; l < lists.length; l++) for (let u = 0; u < used.length; u++) lists[l]!.moved(used[u]!);
    const stamp = ++this.stamp;
    const affected: Entry[] = [];
    for (let u = 0; u < used.length; u++) {
      const i = used[u]!;
      const watching = this.watchers.get(i);
      if (watching === undefined) continue;
      this.watchers.delete(i);
      for (let w = 0; w < watching.length; w++) {
        const entry = watching[w]!;
        if (entry.gone || entry.stamp === stamp || !watches(entry, i)) continue;
        entry.stamp = stamp;
        affected.push(entry);
      }
    }
    const machine: UsedMachine | null = used.length === 1 ? this.usedMachine(used[0]!) : null;
    for (let a = 0; a < affected.length; a++) {
      const entry = affected[a]!;
      if (entry.gang !== null) this.gangUsed(entry);
      else if (machine !== null) this.singleUsed(entry, machine);
      else {
        // A start on several machines (a gang): the classes watching any of them read their candidates again.
        entry.single!.read();
        if (entry.single!.nodes.length === 0) this.leave(entry);
        else for (const i of entry.single!.watched()) this.watch(entry, i);
      }
    }
  }

  /** A single replica's candidates after a start on one machine it watches. */
  private singleUsed(entry: Entry, machine: UsedMachine): void {
    const single = entry.single!;
    const { nodeIndex } = machine;
    const newly = single.used(machine);
    if (single.nodes.length === 0) return this.leave(entry);
    if (single.watches(nodeIndex)) this.watch(entry, nodeIndex);
    if (newly >= 0) this.watch(entry, newly);
  }

  private usedMachine(nodeIndex: number): UsedMachine {
    const { scratch } = this;
    return { nodeIndex, gpuMilli: scratch.freeGpuMilli(nodeIndex), cpuMilli: scratch.freeCpuMilli(nodeIndex), memMiB: scratch.freeMemMiB(nodeIndex) };
  }

  /** A gang's trial after a start on one of its machines: kept (alignment read again) while it fits, else stale. */
  private gangUsed(entry: Entry): void {
    const { tasks } = entry.gang!;
    if (!trialFits(this.scratch, tasks)) {
      entry.gang = { ...entry.gang!, stale: true };
      return;
    }
    entry.gang = { tasks, alignment: this.gangAlignment(entry, tasks), stale: false };
    for (const i of gangNodes(entry.gang)) this.watch(entry, i);
  }

  /** Scores a class entering the pass. */
  private enter(entry: Entry): void {
    const { shape } = entry;
    if (shape.first === null) return this.leave(entry);
    if (shape.gang) {
      entry.gang = this.tryGang(entry);
      if (entry.gang === null) return this.leave(entry);
      for (const i of gangNodes(entry.gang)) this.watch(entry, i);
      return;
    }
    const { demand } = shape.first;
    entry.single = new SingleCandidates(this.scratch, this.listsFor(demand.gpus > 0, shape.request.gpuTypes), demand, shape.request.gpuTypes, this.bound);
    if (entry.single.nodes.length === 0) return this.leave(entry);
    for (const i of entry.single.watched()) this.watch(entry, i);
  }

  /** The machine lists of the GPU groups a replica may use (GPU models allowed, or every group for a replica without GPUs). */
  private listsFor(needsGpus: boolean, gpuTypes: readonly string[]): readonly Descending[] {
    // Found by the list of models itself first (jobs alike often share it), by its names otherwise.
    const byArray = needsGpus ? this.gpuListsByTypes : this.cpuListsByTypes;
    let lists = byArray.get(gpuTypes);
    if (lists !== undefined) return lists;
    const key = `${needsGpus}|${gpuTypes.join(',')}`;
    lists = this.groupLists.get(key);
    if (lists === undefined) {
      lists = this.scratch.fitGroups(needsGpus, gpuTypes).map((group) => {
        let list = this.lists.get(group);
        // At first a list reads twice what a class's candidates there and the machine after them need.
        if (list === undefined) {
          this.lists.set(group, (list = new Descending(this.scratch, [group], 2 * (this.bound + 1))));
          this.listOrder.push(list);
        }
        return list;
      });
      this.groupLists.set(key, lists);
    }
    byArray.set(gpuTypes, lists);
    return lists;
  }

  /** A gang's trial now: its placement policy's placement, given back at once; null when it does not fit. */
  private tryGang(entry: Entry): GangTrial | null {
    const tasks = this.placement.place(this.scratch, entry.shape.request);
    if (tasks === null) return null;
    this.scratch.unreserve(tasks);
    return { tasks, alignment: this.gangAlignment(entry, tasks), stale: false };
  }

  private gangAlignment(entry: Entry, tasks: readonly TaskPlacement[]): number {
    const nodeIndex = tasks[0]!.nodeIndex;
    return alignmentOn(this.scratch, nodeIndex, entry.shape.first!.demand);
  }

  /** The class leaves the pass without a candidate. */
  private leave(entry: Entry): void {
    entry.gone = true;
    this.noCandidate(entry.shape);
  }

  private watch(entry: Entry, nodeIndex: number): void {
    const watching = this.watchers.get(nodeIndex);
    if (watching === undefined) this.watchers.set(nodeIndex, [entry]);
    else watching.push(entry);
  }
}

/** True when a start on the machine changes the entry's candidates. */
function watches(entry: Entry, nodeIndex: number): boolean {
  if (entry.gang !== null) return !entry.gang.stale && entry.gang.tasks.some((task) => task.nodeIndex === nodeIndex);
  return entry.single!.watches(nodeIndex);
}

function gangNodes(trial: GangTrial): number[] {
  return [...new Set(trial.tasks.map((task) => task.nodeIndex))];
}
