import { median } from 'd3-array';
import { ConfigError, InvariantError } from '../../errors.js';
import { NODE_CHECK_STRAGGLER_FACTOR } from '../../faults/catalog.js';

/*
 * DLRover's node check (REFERENCE §1, seed 001; DLRover's NetworkCheckRendezvousManager): before
 * (re)starting training every node runs a small GEMM + allgather test in groups of two.
 *
 * - Round 1 pairs nodes in ascending `nodeIndex` (rank) order: (0,1),(2,3),…; an odd node out
 *   joins the last pair (a group of 3). A single node forms a group on its own.
 * - A group fails when any member is faulty; all members of a failed group become suspects. A
 *   failed group's members report time Infinity for that round (DLRover's agent reports a 3600 s
 *   sentinel, larger than any real test time; Infinity orders the same way and never wins a
 *   minimum).
 * - Round 2 runs only when round 1 had a failed group. It re-pairs by DLRover's rule
 *   (`_group_nodes`, round 1 of its 0-based count): sort all nodes by their round-1 time, fastest
 *   first, ties by ascending `nodeIndex` (DLRover's stable sort over report order, taken here as
 *   rank order); then pair the i-th fastest with the i-th slowest, outside in; with an odd count
 *   the middle node joins the innermost pair. Suspects (time Infinity) sort last, so they are
 *   paired with the fastest healthy nodes, as long as suspects do not outnumber healthy nodes.
 * - A node is faulty when it failed in every round it ran (both rounds); a straggler when it is
 *   not faulty and its best (smallest) time over the rounds exceeds `stragglerFactor` x the median
 *   of all nodes' best times (DLRover's `_detect_stragglers`; faulty nodes' Infinity counts in the
 *   median, as DLRover's 3600 s does).
 *
 * Checked against the seed's example (1-based numbers, node 6 faulty): round 1 {1,2},{3,4},{5,6}
 * and {5,6} fails. Fastest-with-slowest gives the seed's round 2 {1,2},{3,5},{4,6} when the
 * round-1 times order the healthy nodes 4 < 3 < 1 <= 2 (pairs (4,6),(3,5),(1,2)); with equal
 * times it gives {1,6},{2,5},{3,4} instead. Both find node 6 faulty and clear node 5. The seed's
 * pairing is an illustration; the rule here is DLRover's code.
 *
 * Modelling choices: a node's reported time is its own `testS` (so a straggler does not taint its
 * partner); a group's wall time is its slowest member's `testS` (the allgather ends when the last
 * member does). Faults are deterministic: a faulty node fails every group it is in.
 */

/** One node taking part in the check; `nodeIndex` is its rank (round 1 pairs in ascending order). */
export interface NodeUnderCheck {
  readonly nodeIndex: number;
  /** True when the node fails every test it takes part in (and fails its whole group). */
  readonly faulty: boolean;
  /** Seconds its GEMM + allgather test takes when its group passes (stragglers take longer). */
  readonly testS: number;
}

/** Tunables of the node check; every field is optional and defaults to `NODE_CHECK_DEFAULTS`. */
export interface NodeCheckOptions {
  /** Fixed seconds per round on top of the slowest group: rendezvous, process launch, NCCL init. */
  readonly roundBaseS?: number;
  /** A non-faulty node is a straggler when its best time exceeds this x the median best time. */
  readonly stragglerFactor?: number;
  /**
   * Seconds a failed group's test runs before it is reported failed; null: as long as the group
   * would have taken when healthy (its slowest member's `testS`). DLRover's agent gives up on a
   * hung test after 300 s.
   */
  readonly failedGroupS?: number | null;
}

/**
 * Defaults: `roundBaseS` 50 s [approx] so that a one-round check with a ~10 s test takes ~1 min
 * (REFERENCE §1: ~1 min after software faults) and a two-round one ~2 min (2-3 min after hardware
 * faults); `stragglerFactor` 2 (DLRover's rule: strictly more than 2x the median); failed groups take their healthy time.
 */
export const NODE_CHECK_DEFAULTS: Required<NodeCheckOptions> = {
  roundBaseS: 50,
  stragglerFactor: NODE_CHECK_STRAGGLER_FACTOR,
  failedGroupS: null,
};

/** One round of the check; groups list node indices, members ascending, groups by first member. */
export interface CheckRound {
  readonly groups: readonly (readonly number[])[];
  /** The groups that had a faulty member, in the order of `groups`. */
  readonly failedGroups: readonly (readonly number[])[];
  /** Seconds each node reported: its `testS` when its group passed, Infinity when it failed. */
  readonly timesS: ReadonlyMap<number, number>;
  /** Seconds the round took: `roundBaseS` + the slowest group's test time. */
  readonly durationS: number;
}

/** The verdict of a node check: its rounds (1 or 2), faulty and straggler nodes, total seconds. */
export interface NodeCheckResult {
  readonly rounds: readonly CheckRound[];
  /** Nodes that failed in every round, ascending `nodeIndex`. */
  readonly faulty: readonly number[];
  /** Non-faulty nodes whose best time exceeds `stragglerFactor` x the median best, ascending. */
  readonly stragglers: readonly number[];
  /** Seconds the whole check took: the sum of the rounds' durations. */
  readonly durationS: number;
}

/** Round-1 grouping: pairs in ascending index order; an odd node out joins the last pair. */
export function pairInRankOrder(nodeIndices: readonly number[]): number[][] {
  const sorted = [...nodeIndices].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (let i = 0; i + 1 < sorted.length; i += 2) groups.push([sorted[i]!, sorted[i + 1]!]);
  if (sorted.length % 2 === 1) {
    const last = sorted[sorted.length - 1]!;
    if (groups.length > 0) groups[groups.length - 1]!.push(last);
    else groups.push([last]);
  }
  return groups;
}

/**
 * Round-2 grouping (DLRover's rule): sort by previous time ascending (ties: ascending index), pair
 * the fastest with the slowest, outside in; an odd middle node joins the innermost pair. Groups
 * come back canonical (members ascending, groups by first member).
 */
export function pairFastestWithSlowest(timesS: ReadonlyMap<number, number>): number[][] {
  const order = [...timesS.entries()]
    .sort(([indexA, timeA], [indexB, timeB]) => (timeA < timeB ? -1 : timeA > timeB ? 1 : indexA - indexB))
    .map(([index]) => index);
  const groups: number[][] = [];
  let left = 0;
  let right = order.length - 1;
  for (; left < right; left++, right--) groups.push([order[left]!, order[right]!]);
  if (left === right) {
    const middle = order[left]!;
    if (groups.length > 0) groups[groups.length - 1]!.push(middle);
    else groups.push([middle]);
  }
  return canonicalGroups(groups);
}

/** Runs the node check on `nodes` (any order; indices unique); pure and deterministic. */
export function runNodeCheck(nodes: readonly NodeUnderCheck[], options: NodeCheckOptions = {}): NodeCheckResult {
  const settings = resolveOptions(options);
  const byIndex = indexNodes(nodes);
  if (byIndex.size === 0) return { rounds: [], faulty: [], stragglers: [], durationS: 0 };

  const rounds: CheckRound[] = [runRound(pairInRankOrder([...byIndex.keys()]), byIndex, settings)];
  if (rounds[0]!.failedGroups.length > 0) {
    rounds.push(runRound(pairFastestWithSlowest(rounds[0]!.timesS), byIndex, settings));
  }

  const bestTimesS = new Map<number, number>();
  for (const index of byIndex.keys()) {
    bestTimesS.set(index, Math.min(...rounds.map((round) => round.timesS.get(index)!)));
  }
  // Every round ran every node, so "failed in every round" is "best time Infinity".
  const faulty = [...bestTimesS].filter(([, bestS]) => bestS === Infinity).map(([index]) => index);
  // NaN (median of only Infinities) compares false, so it flags no one.
  const medianBestS = median([...bestTimesS.values()]) ?? NaN;
  const stragglers = [...bestTimesS]
    .filter(([, bestS]) => bestS !== Infinity && bestS > settings.stragglerFactor * medianBestS)
    .map(([index]) => index);

  return {
    rounds,
    faulty: faulty.sort((a, b) => a - b),
    stragglers: stragglers.sort((a, b) => a - b),
    durationS: rounds.reduce((sumS, round) => sumS + round.durationS, 0),
  };
}

/**
 * Sequential nccl-test runs a manual bisection needs to narrow one faulty machine among
 * `nodeCount` down to a pair: both halves are tested at each level, 2 x (ceil(log2 n) - 1)
 * [approx: reconstructed to match the seed's "at least 14 runs for 256 machines"]. The node check
 * needs 2 rounds at any size, its groups running in parallel.
 */
export function bisectionRunsToLocate(nodeCount: number): number {
  if (!Number.isInteger(nodeCount) || nodeCount < 0) {
    throw new InvariantError(`bisectionRunsToLocate: node count must be a whole number >= 0, got ${nodeCount}`);
  }
  return nodeCount <= 2 ? 0 : 2 * (Math.ceil(Math.log2(nodeCount)) - 1);
}

function runRound(
  groups: readonly (readonly number[])[],
  byIndex: ReadonlyMap<number, NodeUnderCheck>,
  settings: Required<NodeCheckOptions>,
): CheckRound {
  const canonical = canonicalGroups(groups);
  const failedGroups: number[][] = [];
  const timesS = new Map<number, number>();
  let slowestGroupS = 0;
  for (const group of canonical) {
    const members = group.map((index) => byIndex.get(index)!);
    const healthyS = Math.max(...members.map((node) => node.testS));
    const failed = members.some((node) => node.faulty);
    if (failed) failedGroups.push(group);
    for (const node of members) timesS.set(node.nodeIndex, failed ? Infinity : node.testS);
    slowestGroupS = Math.max(slowestGroupS, failed ? (settings.failedGroupS ?? healthyS) : healthyS);
  }
  return { groups: canonical, failedGroups, timesS, durationS: settings.roundBaseS + slowestGroupS };
}

function canonicalGroups(groups: readonly (readonly number[])[]): number[][] {
  return groups.map((group) => [...group].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);
}

function indexNodes(nodes: readonly NodeUnderCheck[]): Map<number, NodeUnderCheck> {
  const byIndex = new Map<number, NodeUnderCheck>();
  for (const node of nodes) {
    if (!Number.isInteger(node.nodeIndex)) {
      throw new InvariantError(`node check: nodeIndex must be an integer, got ${node.nodeIndex}`);
    }
    if (byIndex.has(node.nodeIndex)) throw new InvariantError(`node check: node ${node.nodeIndex} given twice`);
    if (!Number.isFinite(node.testS) || node.testS < 0) {
      throw new InvariantError(`node check: node ${node.nodeIndex} has testS ${node.testS}, want a finite value >= 0`);
    }
    byIndex.set(node.nodeIndex, node);
  }
  return byIndex;
}

function resolveOptions(options: NodeCheckOptions): Required<NodeCheckOptions> {
  const settings: Required<NodeCheckOptions> = {
    roundBaseS: options.roundBaseS ?? NODE_CHECK_DEFAULTS.roundBaseS,
    stragglerFactor: options.stragglerFactor ?? NODE_CHECK_DEFAULTS.stragglerFactor,
    failedGroupS: options.failedGroupS === undefined ? NODE_CHECK_DEFAULTS.failedGroupS : options.failedGroupS,
  };
  if (!Number.isFinite(settings.roundBaseS) || settings.roundBaseS < 0) {
    throw new ConfigError('roundBaseS', `must be a finite number >= 0, got ${settings.roundBaseS}`);
  }
  if (!Number.isFinite(settings.stragglerFactor) || settings.stragglerFactor <= 0) {
    throw new ConfigError('stragglerFactor', `must be a finite number > 0, got ${settings.stragglerFactor}`);
  }
  if (settings.failedGroupS !== null && (!Number.isFinite(settings.failedGroupS) || settings.failedGroupS < 0)) {
    throw new ConfigError('failedGroupS', `must be a finite number >= 0 or null, got ${settings.failedGroupS}`);
  }
  return settings;
}
