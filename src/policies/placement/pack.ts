import type { TaskPlacement } from '../../model/allocation.js';
import { blankFree, fitCountOf, takeReplica, type CapacityScratch, type NodeFree } from '../../model/capacity.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import { NodeStamps } from '../../model/node-stamps.js';
import type { ReplicaDemand, Role } from '../../model/job-spec.js';
import type { PlacementPolicy, PlacementRequest } from '../types.js';
import { nodeAllows } from './node-filter.js';

/** Replicas of one role and shape still to place. */
interface ReplicaGroup {
  readonly role: Role;
  readonly demand: ReplicaDemand;
  remaining: number;
}

/**
 * `pack`: fewest nodes, best fit. Repeatedly picks the node that can take the most of the
 * remaining replicas; ties go to the node left with the fewest free GPUs, then the least free
 * CPU, then the lowest index.
 */
export const packPlacement: PlacementPolicy = {
  name: 'pack',
  completeForIdentical: true,
  failsOnlyWhenNoNodeTakesOne: true,
  place: (scratch, request) => packWithin(scratch, request),
};

/**
 * Packs a gang as `pack` does, using only the nodes in `within` when given (other policies place
 * within a rack this way); reserves all replicas, or nothing and returns null.
 */
export function packWithin(
  scratch: CapacityScratch,
  request: PlacementRequest,
  within?: ReadonlySet<number>,
): TaskPlacement[] | null {
  if (within === undefined && scratch.indexed && request.replicas.length === 1) {
    const replica = request.replicas[0]!;
    if (replica.demand.gpuMilli >= GPU_MILLI && replica.demand.gpus > scratch.freeWholeGpusTotal) return null;
    return packOne(scratch, replica, request.gpuTypes);
  }
  const groups = groupReplicas(request);
  let wholeGpusNeeded = 0;
  for (const group of groups) {
    if (group.demand.gpuMilli >= GPU_MILLI) wholeGpusNeeded += group.remaining * group.demand.gpus;
  }
  if (wholeGpusNeeded > freeWholeGpus(scratch, within)) return null;
  if (within === undefined && scratch.indexed && !gpuGroupsFit(scratch, groups, request.gpuTypes)) return null;

  const placed: TaskPlacement[] = [];
  let remaining = request.replicas.length;
  while (remaining > 0) {
    const best = bestNode(scratch, groups, request.gpuTypes, within);
    if (best === null) {
      scratch.unreserve(placed);
      return null;
    }
    for (const group of groups) {
      while (group.remaining > 0) {
        if (!nodeAllows(scratch.nodes[best]!, group.demand, request.gpuTypes)) break;
        const task = scratch.reserve(best, group.role, group.demand);
        if (task === null) break;
        placed.push(task);
        group.remaining--;
        remaining--;
      }
    }
  }
  return placed;
}

/**
 * One replica: every node that takes it takes exactly one, so the best is the first node in
 * best-fit order that takes it (the same node the scan below finds), read from the fit index.
 */
function packOne(scratch: CapacityScratch, replica: PlacementRequest['replicas'][number], gpuTypes: readonly string[]): TaskPlacement[] | null {
  const node = bestFitOne(scratch, replica.demand, gpuTypes);
  if (node === null) return null;
  const task = scratch.reserve(node, replica.role, replica.demand);
  return task === null ? null : [task];
}

/** The first node in best-fit order that takes one replica of `demand`, read from the fit index, or null. */
function bestFitOne(scratch: CapacityScratch, demand: ReplicaDemand, gpuTypes: readonly string[]): number | null {
  const takesOne = (i: number): boolean => nodeAllows(scratch.nodes[i]!, demand, gpuTypes) && scratch.fitsOne(i, demand);
  return scratch.bestFit(scratch.fitGroups(demand.gpus > 0, gpuTypes), minFreeGpuMilli(demand), demand.cpuMilli, takesOne, minGpuRoom(demand));
}

/**
 * A necessary condition, read from the fit index: the nodes with room for them take every GPU
 * replica of each shape (each counted alone). A gang that fails it fails the scan below as well,
 * which then need not visit every node for its CPU-only replicas.
 */
function gpuGroupsFit(scratch: CapacityScratch, groups: readonly ReplicaGroup[], gpuTypes: readonly string[]): boolean {
  for (const group of groups) {
    if (group.demand.gpus === 0) continue;
    let room = 0;
    scratch.forEachWithFree(
      scratch.fitGroups(true, gpuTypes),
      minFreeGpuMilli(group.demand),
      group.demand.cpuMilli,
      (i) => {
        if (nodeAllows(scratch.nodes[i]!, group.demand, gpuTypes) && scratch.fitsOne(i, group.demand)) room += scratch.fitCount(i, group.demand);
        return room >= group.remaining;
      },
      minGpuRoom(group.demand),
    );
    if (room < group.remaining) return false;
  }
  return true;
}

/**
 * The GPU room (see gpuRoomOf) a node needs at least to take `replicas` replicas (default one): for
 * whole GPUs that many free whole GPUs, for a share of one GPU a GPU with that share free; -1 for a
 * replica without GPUs.
 */
export function minGpuRoom(demand: ReplicaDemand, replicas = 1): number {
  if (demand.gpus === 0) return -1;
  return demand.gpuMilli >= GPU_MILLI ? replicas * demand.gpus * GPU_MILLI : demand.gpuMilli;
}

/** The free GPU capacity (thousandths, summed over a node's GPUs) a node needs at least to take one replica. */
export function minFreeGpuMilli(demand: ReplicaDemand): number {
  if (demand.gpus === 0) return 0;
  return demand.gpuMilli >= GPU_MILLI ? demand.gpus * GPU_MILLI : demand.gpuMilli;
}

function groupReplicas(request: PlacementRequest): ReplicaGroup[] {
  const groups: ReplicaGroup[] = [];
  for (const replica of request.replicas) {
    const last = groups.length > 0 ? groups[groups.length - 1] : undefined;
    if (last && last.role === replica.role && last.demand === replica.demand) last.remaining++;
    else groups.push({ role: replica.role, demand: replica.demand, remaining: 1 });
  }
  return groups;
}

/** Free whole GPUs over the schedulable nodes (of `within`, when given). */
function freeWholeGpus(scratch: CapacityScratch, within: ReadonlySet<number> | undefined): number {
  if (within === undefined) return scratch.freeWholeGpusTotal;
  let whole = 0;
  for (const i of within) if (scratch.schedulable(i)) whole += scratch.free(i).wholeGpus;
  return whole;
}

/** Per node, the stamp of the last search that scored it from the GPU side. */
const VISITED = new NodeStamps();

/** The node (of `within`, when given) that takes the most remaining replicas (best fit on ties), or null when none takes any. */
function bestNode(
  scratch: CapacityScratch,
  groups: readonly ReplicaGroup[],
  gpuTypes: readonly string[],
  within: ReadonlySet<number> | undefined,
): number | null {
  const open = groups.filter((g) => g.remaining > 0);
  let best: number | null = null;
  let bestCount = 0;
  let bestLeftGpuMilli = Infinity;
  let bestLeftCpuMilli = Infinity;
  // An empty node scores as every empty node of its hardware kind does: scored once a kind.
  const search = ++EMPTY_SCORES.search;
  const consider = (i: number): void => {
    const kind = scratch.emptyNodeKind(i);
    let count: number;
    let leftGpuMilli: number;
    let leftCpuMilli: number;
    if (kind >= 0 && EMPTY_SCORES.searchOf[kind] === search) {
      count = EMPTY_SCORES.count[kind]!;
      leftGpuMilli = EMPTY_SCORES.leftGpuMilli[kind]!;
      leftCpuMilli = EMPTY_SCORES.leftCpuMilli[kind]!;
    } else {
      count = scoreNode(scratch, i, open, gpuTypes);
      leftGpuMilli = SCORE.leftGpuMilli;
      leftCpuMilli = SCORE.leftCpuMilli;
      if (kind >= 0) {
        EMPTY_SCORES.searchOf[kind] = search;
        EMPTY_SCORES.count[kind] = count;
        EMPTY_SCORES.leftGpuMilli[kind] = leftGpuMilli;
        EMPTY_SCORES.leftCpuMilli[kind] = leftCpuMilli;
      }
    }
    if (count === 0) return;
    if (
      count > bestCount ||
      (count === bestCount &&
        (leftGpuMilli < bestLeftGpuMilli ||
          (leftGpuMilli === bestLeftGpuMilli && (leftCpuMilli < bestLeftCpuMilli || (leftCpuMilli === bestLeftCpuMilli && i < best!)))))
    ) {
      best = i;
      bestCount = count;
      bestLeftGpuMilli = leftGpuMilli;
      bestLeftCpuMilli = leftCpuMilli;
    }
  };
  if (within === undefined && scratch.indexed) {
    // One replica left: every node that takes it takes one, so best fit decides (read from the fit index).
    if (open.length === 1 && open[0]!.remaining === 1) {
      return bestFitOne(scratch, open[0]!.demand, gpuTypes);
    }
    // A node taking every remaining replica beats all others, and among such nodes the best is the
    // first in fit-key order (least GPU, then CPU, left; lowest index): read it from the fit index.
    const whole = nodeTakingAll(scratch, open, gpuTypes);
    if (whole !== null) return whole;
    if (open.length === 1) return bestOfOneShape(scratch, open[0]!, gpuTypes);
    // Nodes with room for a GPU replica, from the fit index; the others can take only the CPU-only replicas.
    let minGpuMilli = Infinity;
    let minCpuMilli = Infinity;
    let cpuOnlyRemaining = 0;
    for (const group of open) {
      if (group.demand.gpus > 0) {
        minGpuMilli = Math.min(minGpuMilli, minFreeGpuMilli(group.demand));
        minCpuMilli = Math.min(minCpuMilli, group.demand.cpuMilli);
      } else cpuOnlyRemaining += group.remaining;
    }
    const stamp = VISITED.next(scratch.nodes.length);
    const visitedStamps = VISITED.values;
    if (minGpuMilli < Infinity) {
      // From the most free GPU capacity down, while a node could still take as many replicas as the
      // best so far. Nodes without the CPU of one GPU replica are not walked: the bound that stops
      // the walk only falls as free GPU capacity does, so it stops at the next node walked instead.
      // The bounds of the last key walked are kept: runs of nodes alike (empty ones of a kind) share it.
      let lastGpuMilli = NaN;
      let lastCpuMilli = NaN;
      let byGpu = 0;
      let byGpuAndCpu = 0;
      walkDown(
        scratch,
        scratch.fitGroups(true, gpuTypes),
        (gpuMilli, cpuMilli, i) => {
          if (gpuMilli !== lastGpuMilli) {
            lastGpuMilli = gpuMilli;
            lastCpuMilli = NaN;
            byGpu = mostReplicas(open, gpuMilli);
          }
          if (gpuMilli < minGpuMilli || byGpu < bestCount) return true;
          if (cpuMilli !== lastCpuMilli) {
            lastCpuMilli = cpuMilli;
            byGpuAndCpu = mostReplicas(open, gpuMilli, cpuMilli);
          }
          // A node whose CPU cannot hold as many replicas as the best so far cannot win or tie: not scored.
          if (byGpuAndCpu >= bestCount) {
            visitedStamps[i] = stamp;
            consider(i);
          }
          return false;
        },
        minCpuMilli,
      );
    }
    if (cpuOnlyRemaining === 0 || bestCount > cpuOnlyRemaining) return best;
    // A node without room for a GPU replica takes at most the CPU-only ones: it could still win or
    // tie. Every node not scored above that could take a GPU replica takes fewer than the best so
    // far (the scan stopped, or skipped it, on that bound) or scores as the empty node of its kind
    // scored above, so a node here wins or ties only with at least that many CPU-only replicas (at
    // least one): only nodes with the CPU of that many of the smallest can.
    const cpuOnly = open.filter((group) => group.demand.gpus === 0);
    if (cpuOnly.length === 1) {
      // One CPU-only shape: the best node taking no GPU replica, found as for one shape.
      const gpuGroups = open.filter((group) => group.demand.gpus > 0);
      const takesNoGpuReplica = (i: number): boolean => {
        for (const gpuGroup of gpuGroups) if (nodeAllows(scratch.nodes[i]!, gpuGroup.demand, gpuTypes) && scratch.fitsOne(i, gpuGroup.demand)) return false;
        return true;
      };
      const node = bestCpuOnly(scratch, cpuOnly[0]!, gpuTypes, Math.max(1, bestCount), takesNoGpuReplica);
      if (node !== null) consider(node);
      return best;
    }
    let minCpuOnlyMilli = Infinity;
    for (const group of open) if (group.demand.gpus === 0) minCpuOnlyMilli = Math.min(minCpuOnlyMilli, group.demand.cpuMilli);
    scratch.forEachWithFree(scratch.fitGroups(false, gpuTypes), 0, Math.max(1, bestCount) * minCpuOnlyMilli, (i) => {
      if (visitedStamps[i] !== stamp) consider(i);
    });
    return best;
  }
  for (let i = 0; i < scratch.nodes.length; i++) if (within === undefined || within.has(i)) consider(i);
  return best;
}

/**
 * Walks the nodes of each group from the most free GPU capacity down, one group after another and
 * in each the nodes the scratch changed before the others (see walkDownEach: merging the walks into
 * one order cost more than they pass over): `visit` returning true ends the walk it is in. The
 * callers here stop a walk, and pass over a node, only by bounds that hold node by node, so the
 * order of the walks does not change what they find. Empty nodes of one hardware kind score alike
 * and the lowest-numbered wins a tie: of a run of them in a walk only that one is visited.
 */
function walkDown(scratch: CapacityScratch, groups: readonly string[], visit: (freeGpuMilli: number, freeCpuMilli: number, nodeIndex: number) => boolean, minCpuMilli: number): void {
  const kindOf = (i: number): number => scratch.emptyNodeKind(i);
  for (const group of groups) scratch.walkDownEach(group, visit, minCpuMilli, kindOf);
}

/**
 * The most replicas of the open groups a node with `gpuMilli` free GPU capacity (and `cpuMilli` free
 * CPU, when given) could take, each group counted alone: never less than it takes, and never more
 * for a node with more free GPU capacity and CPU.
 */
function mostReplicas(open: readonly ReplicaGroup[], gpuMilli: number, cpuMilli = Infinity): number {
  let most = 0;
  for (const group of open) {
    const { demand } = group;
    let k = group.remaining;
    if (demand.gpus > 0) k = Math.min(k, Math.floor(gpuMilli / (demand.gpuMilli >= GPU_MILLI ? demand.gpus * GPU_MILLI : demand.gpuMilli)));
    if (demand.cpuMilli > 0) k = Math.min(k, Math.floor(cpuMilli / demand.cpuMilli));
    most += k;
  }
  return most;
}

/**
 * The best node for replicas of one shape when none takes them all. It takes the most replicas any
 * node takes (`most`): for a GPU shape found from the most free GPU capacity down until no node left
 * could take more, for a shape without GPUs as bestCpuOnly finds it. Among the nodes taking `most`,
 * what each has left is its free GPU capacity and CPU less the same amounts, so the least left is
 * the first in fit-key order: read from the fit index instead of scoring every node that takes as many.
 */
function bestOfOneShape(scratch: CapacityScratch, group: ReplicaGroup, gpuTypes: readonly string[]): number | null {
  const { demand } = group;
  if (demand.gpus === 0) return bestCpuOnly(scratch, group, gpuTypes, 1, ANY_NODE);
  const groups = scratch.fitGroups(true, gpuTypes);
  const needGpuMilli = minFreeGpuMilli(demand);
  let most = 0;
  const open = [group];
  // Nodes without the CPU of one replica are not walked (see bestNode).
  walkDown(
    scratch,
    groups,
    (gpuMilli, cpuMilli, i) => {
      if (gpuMilli < needGpuMilli || mostReplicas(open, gpuMilli) <= most) return true;
      if (mostReplicas(open, gpuMilli, cpuMilli) > most) most = Math.max(most, scoreOneShape(scratch, i, group, gpuTypes));
      return false;
    },
    demand.cpuMilli,
  );
  if (most === 0) return null;
  const takesMost = (i: number): boolean => scoreOneShape(scratch, i, group, gpuTypes) >= most;
  return scratch.bestFit(groups, most * needGpuMilli, most * demand.cpuMilli, takesMost, minGpuRoom(demand, most));
}

const ANY_NODE = (): boolean => true;

/**
 * Of the nodes `eligible` takes, the one taking the most replicas of `group`, a shape without GPUs
 * (at least `least`), first in fit-key order among those taking as many (what each has left is its
 * free GPU capacity and its CPU less the same amount), or null. The most is found by asking the fit
 * index for a node taking one more replica than the most so far (nodes with less CPU passed over)
 * until none does.
 */
function bestCpuOnly(scratch: CapacityScratch, group: ReplicaGroup, gpuTypes: readonly string[], least: number, eligible: (nodeIndex: number) => boolean): number | null {
  const { demand } = group;
  const groups = scratch.fitGroups(false, gpuTypes);
  let most = least - 1;
  // At most `remaining` rounds, each ending at its first better node.
  for (let better = true; better && most < group.remaining; ) {
    better = false;
    scratch.forEachWithFree(groups, 0, (most + 1) * demand.cpuMilli, (i) => {
      if (!eligible(i)) return false;
      const count = scoreOneShape(scratch, i, group, gpuTypes);
      if (count <= most) return false;
      most = count;
      return (better = true);
    });
  }
  if (most < least) return null;
  const takesMost = (i: number): boolean => eligible(i) && scoreOneShape(scratch, i, group, gpuTypes) >= most;
  return scratch.bestFit(groups, 0, most * demand.cpuMilli, takesMost);
}

/** The first node in fit-key order that takes every remaining replica of the open groups, or null. */
function nodeTakingAll(scratch: CapacityScratch, open: readonly ReplicaGroup[], gpuTypes: readonly string[]): number | null {
  let remaining = 0;
  let gpuMilli = 0;
  let cpuMilli = 0;
  let needsGpus = false;
  // A node taking every replica has the whole GPUs of all the whole-GPU ones; without any, a GPU
  // with the largest share one asks for free.
  let wholeRoom = 0;
  let shareRoom = -1;
  for (const group of open) {
    remaining += group.remaining;
    cpuMilli += group.remaining * group.demand.cpuMilli;
    if (group.demand.gpus > 0) {
      needsGpus = true;
      gpuMilli += group.remaining * group.demand.gpus * group.demand.gpuMilli;
      if (group.demand.gpuMilli >= GPU_MILLI) wholeRoom += minGpuRoom(group.demand, group.remaining);
      else shareRoom = Math.max(shareRoom, minGpuRoom(group.demand));
    }
  }
  const takesAll = (i: number): boolean => scoreNode(scratch, i, open, gpuTypes) === remaining;
  return scratch.bestFit(scratch.fitGroups(needsGpus, gpuTypes), gpuMilli, cpuMilli, takesAll, wholeRoom > 0 ? wholeRoom : shareRoom);
}

/**
 * Scores a node for the open groups (one shape: without copying its state): returns how many
 * replicas it takes (0: none) and leaves what it has left after them in SCORE.
 */
function scoreNode(scratch: CapacityScratch, i: number, open: readonly ReplicaGroup[], gpuTypes: readonly string[]): number {
  return open.length === 1 ? scoreOneShape(scratch, i, open[0]!, gpuTypes) : scoreMixed(scratch, i, open, gpuTypes);
}

/** What a node has left after the replicas its last score counted (written by every score: read it before the next). */
const SCORE = { leftGpuMilli: 0, leftCpuMilli: 0 };

/** Scores of empty nodes by hardware kind, valid for the search whose number `searchOf` holds. */
const EMPTY_SCORES = { search: 0, searchOf: [] as number[], count: [] as number[], leftGpuMilli: [] as number[], leftCpuMilli: [] as number[] };

/** Scores a node for replicas of one shape without copying its state (the common, hot case). */
function scoreOneShape(scratch: CapacityScratch, i: number, group: ReplicaGroup, gpuTypes: readonly string[]): number {
  if (!nodeAllows(scratch.nodes[i]!, group.demand, gpuTypes) || !scratch.fitsOne(i, group.demand)) return 0;
  const count = Math.min(group.remaining, scratch.fitCount(i, group.demand));
  if (count === 0) return 0;
  const { demand } = group;
  SCORE.leftGpuMilli = demand.gpus > 0 ? scratch.freeGpuMilli(i) - count * demand.gpus * demand.gpuMilli : scratch.freeGpuMilli(i);
  SCORE.leftCpuMilli = scratch.freeCpuMilli(i) - count * demand.cpuMilli;
  return count;
}

/**
 * Scores a node for replicas of whole GPUs or none, taken in order, by arithmetic on its free
 * counts (what taking them one by one from a copy gives, without the copy).
 */
function scoreWhole(scratch: CapacityScratch, i: number, groups: readonly ReplicaGroup[], gpuTypes: readonly string[]): number {
  const node = scratch.nodes[i]!;
  let cpuMilli = scratch.freeCpuMilli(i);
  let memMiB = scratch.freeMemMiB(i);
  let wholeGpus = scratch.freeWholeGpus(i);
  let leftGpuMilli = scratch.freeGpuMilli(i);
  let count = 0;
  for (const group of groups) {
    if (!nodeAllows(node, group.demand, gpuTypes)) continue;
    const { demand } = group;
    const k = Math.min(group.remaining, fitCountOf(cpuMilli, memMiB, wholeGpus, demand));
    count += k;
    cpuMilli -= k * demand.cpuMilli;
    memMiB -= k * demand.memMiB;
    wholeGpus -= k * demand.gpus;
    leftGpuMilli -= k * demand.gpus * GPU_MILLI;
  }
  SCORE.leftGpuMilli = leftGpuMilli;
  SCORE.leftCpuMilli = cpuMilli;
  return count;
}

/** Scores a node for replicas of several shapes by taking them, in order, from a copy of its free resources. */
function scoreMixed(scratch: CapacityScratch, i: number, groups: readonly ReplicaGroup[], gpuTypes: readonly string[]): number {
  const node = scratch.nodes[i]!;
  // Loops, not some/every: a score runs for many nodes, and a callback would be made for each.
  let fitsAny = false;
  let wholeOnly = true;
  for (let k = 0; k < groups.length; k++) {
    const { demand } = groups[k]!;
    if (!fitsAny && nodeAllows(node, demand, gpuTypes) && scratch.fitsOne(i, demand)) fitsAny = true;
    if (demand.gpus > 0 && demand.gpuMilli < GPU_MILLI) wholeOnly = false;
  }
  if (!fitsAny) return 0;
  if (wholeOnly) return scoreWhole(scratch, i, groups, gpuTypes);
  const left = scratch.freeInto(i, whatIfFree(node.gpus));
  let count = 0;
  for (const group of groups) {
    if (!nodeAllows(node, group.demand, gpuTypes)) continue;
    for (let k = 0; k < group.remaining && takeReplica(left, group.demand) !== null; k++) count++;
  }
  let leftGpuMilli = 0;
  for (let g = 0; g < left.gpuFreeMilli.length; g++) leftGpuMilli += left.gpuFreeMilli[g]!;
  SCORE.leftGpuMilli = leftGpuMilli;
  SCORE.leftCpuMilli = left.cpuMilli;
  return count;
}

/** One what-if copy of a node's free resources per GPU count, reused by every score (a score keeps nothing of it). */
const WHAT_IF_FREE: NodeFree[] = [];

/** The reused what-if copy for a node of `gpus` GPUs. */
function whatIfFree(gpus: number): NodeFree {
  return (WHAT_IF_FREE[gpus] ??= blankFree(gpus));
}
