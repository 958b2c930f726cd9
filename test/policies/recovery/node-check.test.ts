import { describe, expect, it } from 'vitest';
import { ConfigError, InvariantError } from '../../../src/errors.js';
import {
  bisectionRunsToLocate,
  NODE_CHECK_DEFAULTS,
  pairFastestWithSlowest,
  runNodeCheck,
  type NodeCheckResult,
  type NodeUnderCheck,
} from '../../../src/policies/recovery/node-check.js';

/** Nodes numbered 1..n (as in the seed) with the given test seconds; `faulty` lists node numbers. */
function nodesOf(testS: readonly number[], faulty: readonly number[] = []): NodeUnderCheck[] {
  return testS.map((s, i) => ({ nodeIndex: i + 1, faulty: faulty.includes(i + 1), testS: s }));
}

/** n nodes that all take `testS`. */
function uniformNodes(n: number, faulty: readonly number[] = [], testS = 10): NodeUnderCheck[] {
  return nodesOf(Array.from({ length: n }, () => testS), faulty);
}

/** What the check did, one line per round, then the verdict. */
function logOf(result: NodeCheckResult): string[] {
  const set = (group: readonly number[]): string => `{${group.join(',')}}`;
  const lines = result.rounds.map(
    (round, i) =>
      `round ${i + 1}: ${round.groups.map(set).join(' ')} | failed ${round.failedGroups.map(set).join(' ') || '-'} | ${round.durationS} s`,
  );
  lines.push(`faulty [${result.faulty.join(',')}] stragglers [${result.stragglers.join(',')}] | ${result.durationS} s`);
  return lines;
}

// Default round base is 50 s; with 10 s tests a round takes 60 s.
const cases: { name: string; nodes: NodeUnderCheck[]; log: string[] }[] = [
  {
    // REFERENCE §1 / seed 001: round-1 times order the healthy nodes 4 < 3 < 1 <= 2, so
    // fastest-with-slowest pairs (4,6), (3,5), (1,2): exactly the seed's round 2.
    name: "the seed's 6-node example, node 6 faulty",
    nodes: nodesOf([10, 10, 9, 8, 10, 10], [6]),
    log: [
      'round 1: {1,2} {3,4} {5,6} | failed {5,6} | 60 s',
      'round 2: {1,2} {3,5} {4,6} | failed {4,6} | 60 s',
      'faulty [6] stragglers [] | 120 s',
    ],
  },
  {
    // Same example with equal times: ties go by index, so (1,6), (2,5), (3,4); same verdict.
    name: 'the 6-node example with equal times',
    nodes: uniformNodes(6, [6]),
    log: [
      'round 1: {1,2} {3,4} {5,6} | failed {5,6} | 60 s',
      'round 2: {1,6} {2,5} {3,4} | failed {1,6} | 60 s',
      'faulty [6] stragglers [] | 120 s',
    ],
  },
  {
    name: 'all healthy: one round only',
    nodes: uniformNodes(6),
    log: ['round 1: {1,2} {3,4} {5,6} | failed - | 60 s', 'faulty [] stragglers [] | 60 s'],
  },
  {
    // Suspects 1,2,5,6 sort after 3,4,7,8: pairs (3,6), (4,5), (7,2), (8,1).
    name: 'two faulty nodes in different pairs',
    nodes: uniformNodes(8, [2, 5]),
    log: [
      'round 1: {1,2} {3,4} {5,6} {7,8} | failed {1,2} {5,6} | 60 s',
      'round 2: {1,8} {2,7} {3,6} {4,5} | failed {2,7} {4,5} | 60 s',
      'faulty [2,5] stragglers [] | 120 s',
    ],
  },
  {
    // Round 1 puts node 5 with the last pair; round 2 pairs (1,5), (2,4) and the middle node 3 joins (2,4).
    name: 'a faulty odd node out (5 nodes)',
    nodes: uniformNodes(5, [5]),
    log: [
      'round 1: {1,2} {3,4,5} | failed {3,4,5} | 60 s',
      'round 2: {1,5} {2,3,4} | failed {1,5} | 60 s',
      'faulty [5] stragglers [] | 120 s',
    ],
  },
  {
    // DLRover's rule, not a bug here: with 4 suspects and 2 healthy nodes, suspects 1 and 2 are
    // paired together again, so healthy node 1 is flagged with faulty node 2.
    name: 'suspects outnumber healthy nodes: a healthy suspect is flagged too',
    nodes: uniformNodes(6, [2, 3]),
    log: [
      'round 1: {1,2} {3,4} {5,6} | failed {1,2} {3,4} | 60 s',
      'round 2: {1,2} {3,6} {4,5} | failed {1,2} {3,6} | 60 s',
      'faulty [1,2,3] stragglers [] | 120 s',
    ],
  },
  {
    name: 'a straggler 3x slower than the median, none faulty',
    nodes: nodesOf([10, 10, 30, 10]),
    log: ['round 1: {1,2} {3,4} | failed - | 80 s', 'faulty [] stragglers [3] | 80 s'],
  },
  {
    name: 'a node 1.5x slower is not a straggler',
    nodes: nodesOf([10, 10, 15, 10]),
    log: ['round 1: {1,2} {3,4} | failed - | 65 s', 'faulty [] stragglers [] | 65 s'],
  },
  {
    // Node 4 is slow in both rounds; node 5's best is its round-2 10 s, not its round-1 Infinity.
    name: 'a straggler found in a two-round check',
    nodes: nodesOf([10, 10, 10, 35, 10, 10], [6]),
    log: [
      'round 1: {1,2} {3,4} {5,6} | failed {5,6} | 85 s',
      'round 2: {1,6} {2,5} {3,4} | failed {1,6} | 85 s',
      'faulty [6] stragglers [4] | 170 s',
    ],
  },
  {
    name: 'a single faulty node is tested alone twice',
    nodes: uniformNodes(1, [1]),
    log: ['round 1: {1} | failed {1} | 60 s', 'round 2: {1} | failed {1} | 60 s', 'faulty [1] stragglers [] | 120 s'],
  },
  {
    name: 'no nodes: no rounds',
    nodes: [],
    log: ['faulty [] stragglers [] | 0 s'],
  },
];

describe('node check', () => {
  it.each(cases)('$name', ({ nodes, log }) => {
    expect(logOf(runNodeCheck(nodes))).toEqual(log);
  });

  it('reports each node its own test time, and Infinity for members of a failed group', () => {
    const result = runNodeCheck(nodesOf([10, 10, 9, 8, 10, 10], [6]));
    expect([...result.rounds[0]!.timesS]).toEqual([
      [1, 10],
      [2, 10],
      [3, 9],
      [4, 8],
      [5, Infinity],
      [6, Infinity],
    ]);
    expect([...result.rounds[1]!.timesS].sort(([a], [b]) => a - b)).toEqual([
      [1, 10],
      [2, 10],
      [3, 9],
      [4, Infinity],
      [5, 10],
      [6, Infinity],
    ]);
  });

  it('takes the sum over rounds of the base plus the slowest group', () => {
    // Nodes 1..6 take 4, 7, 5, 6, 9, 3 s; node 6 faulty. Round 1: {1,2} 7, {3,4} 6, {5,6} fails.
    // Round-1 order 1(4) 3(5) 4(6) 2(7) 5 6 -> round 2 {1,6} fails, {2,4} 7, {3,5} 9.
    const nodes = nodesOf([4, 7, 5, 6, 9, 3], [6]);
    // A failed group takes its healthy time by default: {5,6} 9 s, {1,6} 4 s.
    const byDefault = runNodeCheck(nodes, { roundBaseS: 5 });
    expect(byDefault.rounds.map((round) => round.durationS)).toEqual([5 + 9, 5 + 9]);
    expect(byDefault.durationS).toBe(28);
    // With a 300 s hang timeout the failed groups dominate both rounds.
    const withTimeout = runNodeCheck(nodes, { roundBaseS: 5, failedGroupS: 300 });
    expect(withTimeout.rounds.map((round) => round.durationS)).toEqual([305, 305]);
    expect(withTimeout.durationS).toBe(610);
    expect(withTimeout.rounds[1]!.groups).toEqual([
      [1, 6],
      [2, 4],
      [3, 5],
    ]);
  });

  it('calibrates the default round base to ~1 min healthy and ~2 min after a hardware fault', () => {
    expect(NODE_CHECK_DEFAULTS.roundBaseS).toBe(50);
    expect(runNodeCheck(uniformNodes(64)).durationS).toBe(60);
    expect(runNodeCheck(uniformNodes(64, [17])).durationS).toBe(120);
  });

  it('honours a custom straggler factor', () => {
    expect(runNodeCheck(nodesOf([10, 10, 15, 10]), { stragglerFactor: 1.4 }).stragglers).toEqual([3]);
    expect(runNodeCheck(nodesOf([10, 10, 30, 10]), { stragglerFactor: 3 }).stragglers).toEqual([]);
  });

  it('is deterministic and independent of the input order', () => {
    const nodes = nodesOf([10, 12, 9, 8, 11, 10, 13, 30], [3, 8]);
    const shuffled = [nodes[5]!, nodes[2]!, nodes[7]!, nodes[0]!, nodes[4]!, nodes[1]!, nodes[6]!, nodes[3]!];
    const first = runNodeCheck(nodes);
    expect(runNodeCheck(nodes)).toEqual(first);
    expect(runNodeCheck(shuffled)).toEqual(first);
    expect(first.faulty).toEqual([3, 8]);
  });

  it('pairs fastest with slowest, breaking time ties by index', () => {
    const timesS = new Map([
      [7, 3],
      [2, 1],
      [5, Infinity],
      [4, 2],
      [9, 1],
    ]);
    // Order 2(1) 9(1) 4(2) 7(3) 5(Inf): (2,5), (9,7), and 4 joins the innermost pair.
    expect(pairFastestWithSlowest(timesS)).toEqual([
      [2, 5],
      [4, 7, 9],
    ]);
  });

  it('rejects bad nodes and options', () => {
    expect(() => runNodeCheck([...uniformNodes(2), { nodeIndex: 2, faulty: false, testS: 1 }])).toThrow(InvariantError);
    expect(() => runNodeCheck(nodesOf([10, Number.NaN]))).toThrow(InvariantError);
    expect(() => runNodeCheck(uniformNodes(2), { roundBaseS: -1 })).toThrow(ConfigError);
    expect(() => runNodeCheck(uniformNodes(2), { stragglerFactor: 0 })).toThrow(ConfigError);
    expect(() => runNodeCheck(uniformNodes(2), { failedGroupS: Infinity })).toThrow(ConfigError);
  });

  it('needs 2 rounds where nccl-test bisection needs 14 runs for 256 machines', () => {
    expect(bisectionRunsToLocate(256)).toBe(14);
    expect(bisectionRunsToLocate(2)).toBe(0);
    expect(bisectionRunsToLocate(5)).toBe(4);
    expect(runNodeCheck(uniformNodes(256, [200])).rounds).toHaveLength(2);
    expect(runNodeCheck(uniformNodes(256, [200])).faulty).toEqual([200]);
  });
});
