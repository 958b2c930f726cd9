import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { InvariantError } from '../../errors.js';
import { nodeAllows } from '../placement/node-filter.js';
import { minFreeGpuMilli } from '../placement/pack.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';
import { alignment } from './tetris-alignment.js';

/**
 * The machines a request class is scored on in a round, in node order, with its alignment with
 * each: a single replica's bounded candidate set, or the one machine a gang's trial starts on.
 */
export interface Candidates {
  readonly nodes: readonly number[];
  readonly alignments: readonly number[];
  /** The alignments summed in node order (the class's share of the round's mean). */
  readonly alignmentSum: number;
  /** Position of the highest alignment (the lower node index on ties). */
  readonly bestAt: number;
  /** A gang's trial placement (still feasible while no start uses its nodes); null for a single replica. */
  readonly trial: readonly TaskPlacement[] | null;
  /**
   * A single replica's next machine after its candidates when they were read (the first one it
   * fits outside the set, as [free GPU, free CPU, index]), or null when it fit no other: no machine
   * outside the set stands higher, as capacity only shrinks within a pass.
   */
  readonly next: FreeKey | null;
}

/** Where a machine stands among candidates: free GPU capacity (thousandths), free CPU (thousandths of a core), node index; higher first. */
export type FreeKey = readonly [freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number];

/** No machine: the class has nothing to score this round. */
export const NO_CANDIDATES: Candidates = { nodes: [], alignments: [], alignmentSum: 0, bestAt: -1, trial: null, next: null };

/** True when one replica of `demand` (of a request allowed `gpuTypes`) fits the machine now. */
export function replicaFits(scratch: CapacityScratch, demand: ReplicaDemand, gpuTypes: readonly string[], nodeIndex: number): boolean {
  return nodeAllows(scratch.nodes[nodeIndex]!, demand, gpuTypes) && scratch.fitCount(nodeIndex, demand) >= 1;
}

/**
 * A single replica's candidate machines: of the machines it fits, the `bound` first from the most
 * free GPU capacity down, then the most free CPU, then the higher node index (the fit index read
 * backwards), scored in node order. Reads the fit index until it has the next fitting machine after
 * them or the free GPU capacity falls below the replica's; an unindexed scratch is scanned and
 * sorted the same way.
 */
export function singleCandidates(scratch: CapacityScratch, demand: ReplicaDemand, gpuTypes: readonly string[], bound: number): Candidates {
  let nodes: number[] = [];
  const minGpuMilli = minFreeGpuMilli(demand);
  if (scratch.indexed) {
    scratch.forEachDescending(scratch.fitGroups(demand.gpus > 0, gpuTypes), ([gpuMilli], i) => {
      if (gpuMilli < minGpuMilli) return true;
      if (replicaFits(scratch, demand, gpuTypes, i)) nodes.push(i);
      return nodes.length > bound;
    });
  } else {
    for (let i = 0; i < scratch.nodes.length; i++) if (replicaFits(scratch, demand, gpuTypes, i)) nodes.push(i);
    nodes.sort((a, b) => compareFreeKeys(freeKey(scratch, b), freeKey(scratch, a)));
    nodes = nodes.slice(0, bound + 1);
  }
  if (nodes.length === 0) return NO_CANDIDATES;
  const next = nodes.length > bound ? freeKey(scratch, nodes.pop()!) : null;
  nodes.sort((a, b) => a - b);
  return scored(scratch, nodes, demand, null, next);
}

/**
 * The candidates after a start used `nodeIndex`, one of them: the same set with its alignment
 * there updated while the replica still fits it and it stands above the machine after the set;
 * otherwise read again.
 */
export function singleCandidatesAfter(scratch: CapacityScratch, before: Candidates, nodeIndex: number, demand: ReplicaDemand, gpuTypes: readonly string[], bound: number): Candidates {
  const stays = replicaFits(scratch, demand, gpuTypes, nodeIndex) && (before.next === null || compareFreeKeys(freeKey(scratch, nodeIndex), before.next) > 0);
  if (!stays) return singleCandidates(scratch, demand, gpuTypes, bound);
  const alignments = before.alignments.slice();
  alignments[before.nodes.indexOf(nodeIndex)] = alignment(scratch.nodes[nodeIndex]!, scratch.free(nodeIndex), demand);
  return summed(before.nodes, alignments, null, before.next);
}

/** A machine's standing among candidates now. */
export function freeKey(scratch: CapacityScratch, nodeIndex: number): FreeKey {
  return [scratch.freeGpuMilli(nodeIndex), scratch.freeCpuMilli(nodeIndex), nodeIndex];
}

/** Orders standings: more free GPU capacity, then more free CPU, then the higher index, is greater. */
export function compareFreeKeys(a: FreeKey, b: FreeKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * A gang is one task: it is scored on the machine its first replica would start on, as the stack's
 * placement policy places it now (the trial is given back; nothing stays reserved).
 */
export function gangCandidates(scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest): Candidates {
  const trial = placement.place(scratch, request);
  if (trial === null) return NO_CANDIDATES;
  scratch.unreserve(trial);
  return scored(scratch, [trial[0]!.nodeIndex], request.replicas[0]!.demand, trial, null);
}

/** Reserves a gang's trial again, task by task in its order (its machines are as they were when it was tried). */
export function reserveTrial(scratch: CapacityScratch, trial: readonly TaskPlacement[]): TaskPlacement[] {
  const tasks: TaskPlacement[] = [];
  for (const task of trial) {
    const again = scratch.reserve(task.nodeIndex, task.role, task.demand);
    if (again === null) throw new InvariantError(`tetris: a gang's trial no longer fits node ${task.nodeIndex}, which no start used since`);
    tasks.push(again);
  }
  return tasks;
}

function scored(scratch: CapacityScratch, nodes: readonly number[], demand: ReplicaDemand, trial: readonly TaskPlacement[] | null, next: FreeKey | null): Candidates {
  return summed(
    nodes,
    nodes.map((i) => alignment(scratch.nodes[i]!, scratch.free(i), demand)),
    trial,
    next,
  );
}

/** Candidates with their alignments summed in node order and the best one found. */
function summed(nodes: readonly number[], alignments: readonly number[], trial: readonly TaskPlacement[] | null, next: FreeKey | null): Candidates {
  let alignmentSum = 0;
  let bestAt = 0;
  for (let k = 0; k < alignments.length; k++) {
    alignmentSum += alignments[k]!;
    if (alignments[k]! > alignments[bestAt]!) bestAt = k;
  }
  return { nodes, alignments, alignmentSum, bestAt, trial, next };
}
