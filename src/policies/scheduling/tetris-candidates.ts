import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { InvariantError } from '../../errors.js';
import { insertAt, removeAt } from '../../model/fit-index.js';
import { nodeAllows } from '../placement/node-filter.js';
import { minFreeGpuMilli } from '../placement/pack.js';
import { alignmentOfFree } from './tetris-alignment.js';
import { compareFreeKeys, type Descending, type FreeKey } from './tetris-descending.js';

/** True when one replica of `demand` (of a request allowed `gpuTypes`) fits the machine now. */
export function replicaFits(scratch: CapacityScratch, demand: ReplicaDemand, gpuTypes: readonly string[], nodeIndex: number): boolean {
  return nodeAllows(scratch.nodes[nodeIndex]!, demand, gpuTypes) && scratch.fitsOne(nodeIndex, demand);
}

/**
 * A single replica's candidate machines in a pass: in each GPU group it may use, the `bound`
 * machines it fits standing highest there (most free GPU capacity, then free CPU, then the higher
 * index), with the group's next machine it fits below them (its successor when a start pushes one
 * of them down); all of them in node order with the replica's alignment with each. Kept up to date
 * start by start: a start costs a class only the machines it used.
 */
export class SingleCandidates {
  /** The candidates of every group, in node order. */
  readonly nodes: number[] = [];
  readonly alignments: number[] = [];
  /** The alignments summed in node order. */
  alignmentSum = 0;
  /** Position of the highest alignment (the lower node index on ties). */
  bestAt = 0;
  private readonly parts: GroupPart[];
  private readonly minGpuMilli: number;

  /** @param lists the machines of each group the replica may use, in standing order */
  constructor(
    private readonly scratch: CapacityScratch,
    lists: readonly Descending[],
    private readonly demand: ReplicaDemand,
    private readonly gpuTypes: readonly string[],
    private readonly bound: number,
  ) {
    this.minGpuMilli = minFreeGpuMilli(demand);
    this.parts = lists.map((list) => ({ list, members: [], next: -1 }));
    this.read();
  }

  /** The machines whose use by a start changes these candidates: the candidates and each group's next machine. */
  watched(): number[] {
    const watched = [...this.nodes];
    for (const part of this.parts) if (part.next >= 0) watched.push(part.next);
    return watched;
  }

  /** True when a start on the machine changes these candidates. */
  watches(nodeIndex: number): boolean {
    return this.nodes.includes(nodeIndex) || this.parts.some((part) => part.next === nodeIndex);
  }

  /** Reads the candidates again from the top of each group. */
  read(): void {
    // The candidates of every group, in node order, written over the lists in place (a few each:
    // sorted by insertion, no array made but each group's own).
    const { nodes, alignments } = this;
    let count = 0;
    for (const part of this.parts) {
      const found: number[] = [];
      const positions: number[] = [];
      for (let at = 0; found.length <= this.bound; at++) {
        const i = this.nodeAt(part, at);
        if (i < 0) break;
        if (!this.fits(i)) continue;
        found.push(i);
        positions.push(at);
      }
      part.next = found.length > this.bound ? found.pop()! : -1;
      part.members = found;
      for (let f = 0; f < found.length; f++) {
        const i = found[f]!;
        const alignment = this.alignmentAt(part.list, positions[f]!);
        let k = count++;
        for (; k > 0 && nodes[k - 1]! > i; k--) {
          nodes[k] = nodes[k - 1]!;
          alignments[k] = alignments[k - 1]!;
        }
        nodes[k] = i;
        alignments[k] = alignment;
      }
    }
    nodes.length = count;
    alignments.length = count;
    this.summed();
  }

  /**
   * After a start used `nodeIndex` (and no other machine this class watches): a candidate that
   * still fits and stands above its group's next machine keeps its place with its new alignment;
   * otherwise the next machine takes its place and the one after becomes next; when the next
   * machine itself was used, the one now next is found. Returns a machine it watches now and did
   * not before (a group's new next machine other than `nodeIndex`), or -1.
   */
  used(machine: UsedMachine): number {
    const nodeIndex = machine.nodeIndex;
    let part: GroupPart | undefined;
    for (const p of this.parts) {
      if (p.next === nodeIndex || p.members.includes(nodeIndex)) {
        part = p;
        break;
      }
    }
    if (part === undefined) return -1;
    const member = part.members.indexOf(nodeIndex);
    if (member >= 0) {
      const at = this.nodes.indexOf(nodeIndex);
      if (this.fits(nodeIndex) && (part.next < 0 || standsAbove(machine, part.list.keyOf(part.next)!))) {
        this.alignments[at] = alignmentOfFree(this.scratch.nodes[nodeIndex]!, machine.gpuMilli, machine.cpuMilli, machine.memMiB, this.demand);
        this.summed();
        return -1;
      }
      // Moved in place (a splice makes an array of what it removes, at every start).
      removeAt(part.members, member);
      removeAt(this.nodes, at);
      removeAt(this.alignments, at);
      if (part.next >= 0) {
        const entering = part.next;
        const position = part.list.positionOf(entering);
        part.members.push(entering);
        const to = sortedPosition(this.nodes, entering);
        insertAt(this.nodes, to, entering);
        insertAt(this.alignments, to, this.alignmentAt(part.list, position));
        part.next = this.nextFrom(part, position + 1);
      }
      this.summed();
      return part.next === nodeIndex ? -1 : part.next;
    }
    // The next machine fell: the first fitting machine below the group's lowest candidate is next now.
    const { list } = part;
    let lowest = part.members[0]!;
    for (const i of part.members) if (compareFreeKeys(list.keyOf(i)!, list.keyOf(lowest)!) < 0) lowest = i;
    part.next = this.nextFrom(part, list.positionOf(lowest) + 1);
    return part.next === nodeIndex ? -1 : part.next;
  }

  /** The first machine of the group from position `from` down that the replica fits and is not a candidate, or -1. */
  private nextFrom(part: GroupPart, from: number): number {
    for (let at = from; ; at++) {
      const i = this.nodeAt(part, at);
      if (i < 0) return -1;
      if (!part.members.includes(i) && this.fits(i)) return i;
    }
  }

  /** The group's machine at a list position, reading more of the list when needed; -1 past the machines with enough free GPU capacity. */
  private nodeAt(part: GroupPart, at: number): number {
    const { list } = part;
    while (at >= list.length) if (!list.readMore()) return -1;
    return list.gpuMilliAt(at) < this.minGpuMilli ? -1 : list.node(at);
  }

  private fits(nodeIndex: number): boolean {
    return replicaFits(this.scratch, this.demand, this.gpuTypes, nodeIndex);
  }

  /** The replica's alignment with the machine at a list position, from the free GPU capacity and CPU the list holds for it (current: see Descending). */
  private alignmentAt(list: Descending, at: number): number {
    const i = list.node(at);
    return alignmentOfFree(this.scratch.nodes[i]!, list.gpuMilliAt(at), list.cpuMilliAt(at), this.scratch.freeMemMiB(i), this.demand);
  }

  private summed(): void {
    let sum = 0;
    let bestAt = 0;
    for (let k = 0; k < this.alignments.length; k++) {
      sum += this.alignments[k]!;
      if (this.alignments[k]! > this.alignments[bestAt]!) bestAt = k;
    }
    this.alignmentSum = sum;
    this.bestAt = bestAt;
  }
}

/** A machine a start just used, with its free capacity now (read once for every class watching it). */
export interface UsedMachine {
  readonly nodeIndex: number;
  readonly gpuMilli: number;
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/** True when the used machine stands above `key` (more free GPU capacity, then free CPU, then the higher index). */
function standsAbove(machine: UsedMachine, key: FreeKey): boolean {
  return (machine.gpuMilli - key[0] || machine.cpuMilli - key[1] || machine.nodeIndex - key[2]) > 0;
}

/** One GPU group's share of a replica's candidates. */
interface GroupPart {
  readonly list: Descending;
  /** Its candidates there, in no set order. */
  members: number[];
  /** The group's fitting machine standing next below them, or -1 when it fits no other there. */
  next: number;
}

/** Where `value` goes in an ascending list. */
function sortedPosition(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when every task of a gang's trial can be reserved again now, in its order (nothing stays reserved). */
export function trialFits(scratch: CapacityScratch, trial: readonly TaskPlacement[]): boolean {
  const taken: TaskPlacement[] = [];
  for (const task of trial) {
    const again = scratch.reserve(task.nodeIndex, task.role, task.demand);
    if (again === null) break;
    taken.push(again);
  }
  scratch.unreserve(taken);
  return taken.length === trial.length;
}

/** Reserves a gang's trial again, task by task in its order (it fits: see trialFits). */
export function reserveTrial(scratch: CapacityScratch, trial: readonly TaskPlacement[]): TaskPlacement[] {
  const tasks: TaskPlacement[] = [];
  for (const task of trial) {
    const again = scratch.reserve(task.nodeIndex, task.role, task.demand);
    if (again === null) throw new InvariantError(`tetris: a gang's trial no longer fits node ${task.nodeIndex}`);
    tasks.push(again);
  }
  return tasks;
}
