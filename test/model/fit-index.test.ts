import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FitIndex, type FitCursor, type FitIndexView } from '../../src/model/fit-index.js';
import { TouchedFit } from '../../src/model/touched-fit.js';

type Key = readonly [gpuMilli: number, cpuMilli: number, nodeIndex: number];

const compare = (a: Key, b: Key): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The plain reference: every indexed key of a group, sorted. */
function sortedKeys(keys: ReadonlyMap<number, Key>, groupOf: (i: number) => string, group: string): Key[] {
  return [...keys.values()].filter((k) => groupOf(k[2]) === group).sort(compare);
}

function scanned(index: FitIndexView, group: string, minGpu: number, minCpu: number, stopAfter: number): Key[] {
  const seen: Key[] = [];
  index.scan(group, minGpu, minCpu, (g, c, i) => {
    seen.push([g, c, i]);
    return seen.length >= stopAfter;
  });
  return seen;
}

function walked(cursor: FitCursor): Key[] {
  const seen: Key[] = [];
  while (cursor.next()) seen.push([cursor.freeGpuMilli, cursor.freeCpuMilli, cursor.nodeIndex]);
  return seen;
}

/** Applies the changes to an index and returns what a plain map of keys (and of GPU rooms) holds after them. */
function applyChanges(
  index: { set(node: number, gpuMilli: number, cpuMilli: number, room?: number): void; remove(node: number): void },
  changes: readonly { node: number; remove: boolean; gpuMilli: number; cpuMilli: number; room?: number }[],
): { keys: Map<number, Key>; rooms: Map<number, number> } {
  const keys = new Map<number, Key>();
  const rooms = new Map<number, number>();
  for (const c of changes) {
    if (c.remove) {
      index.remove(c.node);
      keys.delete(c.node);
    } else {
      index.set(c.node, c.gpuMilli, c.cpuMilli, c.room);
      keys.set(c.node, [c.gpuMilli, c.cpuMilli, c.node]);
      rooms.set(c.node, c.room ?? -1);
    }
  }
  return { keys, rooms };
}

const change = fc.record({
  node: fc.integer({ min: 0, max: 199 }),
  remove: fc.boolean(),
  // Mostly whole levels, some fractional (a GPU share given as a fraction of a thousandth).
  gpuMilli: fc.oneof(fc.integer({ min: 0, max: 8000 }), fc.constantFrom(0, 1000, 2000, 8000), fc.double({ min: 0, max: 8000, noNaN: true })),
  cpuMilli: fc.oneof(fc.integer({ min: 0, max: 96_000 }), fc.constantFrom(0, 64_000, 96_000), fc.double({ min: 0, max: 96_000, noNaN: true })),
});

/** Few removals over more nodes: a TouchedFit often outgrows its small form into a full index. */
const growing = fc.record({
  node: fc.integer({ min: 0, max: 299 }),
  remove: fc.integer({ min: 0, max: 9 }).map((k) => k === 0),
  gpuMilli: fc.oneof(fc.integer({ min: 0, max: 8000 }), fc.constantFrom(0, 1000, 2000, 8000)),
  cpuMilli: fc.oneof(fc.integer({ min: 0, max: 96_000 }), fc.constantFrom(0, 64_000, 96_000)),
});

const query = fc.record({
  group: fc.constantFrom('a', 'b', ''),
  minGpu: fc.oneof(fc.integer({ min: 0, max: 8200 }), fc.double({ min: 0, max: 8200, noNaN: true })),
  minCpu: fc.oneof(fc.integer({ min: 0, max: 97_000 }), fc.double({ min: 0, max: 97_000, noNaN: true })),
  stopAfter: fc.integer({ min: 1, max: 400 }),
});

describe.each([
  ['FitIndex', (groupOf: (i: number) => string) => new FitIndex(groupOf)],
  ['TouchedFit', (groupOf: (i: number) => string) => new TouchedFit(groupOf)],
])('%s', (_, make) => {
  it('scans and walks the nodes in (free GPU, free CPU, index) order, as a sorted list of keys does', () => {
    const groupOf = (i: number): string => (i % 7 === 0 ? '' : i % 3 === 0 ? 'b' : 'a');
    let large = 0;
    fc.assert(
      // Changes of either kind: nodes coming and going, or the index growing past a TouchedFit's small form.
      fc.property(fc.oneof(fc.array(change, { maxLength: 400 }), fc.array(growing, { minLength: 150, maxLength: 400 })), fc.array(query, { minLength: 1, maxLength: 10 }), (changes, queries) => {
        const index = make(groupOf);
        const { keys } = applyChanges(index, changes);
        if (keys.size > 128) large++;
        expect(index.size).toBe(keys.size);
        for (let i = 0; i < 300; i++) expect(index.has(i)).toBe(keys.has(i));
        expect([...index.groups()].sort()).toEqual([...new Set([...keys.keys()].map(groupOf))].sort());
        for (const q of queries) {
          const all = sortedKeys(keys, groupOf, q.group);
          const expected = all.filter((k) => k[0] >= q.minGpu && k[1] >= q.minCpu).slice(0, q.stopAfter);
          expect(scanned(index, q.group, q.minGpu, q.minCpu, q.stopAfter)).toEqual(expected);
          expect(walked(index.descending(q.group))).toEqual([...all].reverse());
        }
      }),
      { numRuns: 300 },
    );
    // Indexes past a TouchedFit's small form were among them.
    expect(large).toBeGreaterThan(0);
  });
});

describe('TouchedFit.scanGroups', () => {
  it('finds for a best-fit visitor the node first in key order among the groups that it takes, as a scan of each group does', () => {
    const groupOf = (i: number): string => (i % 7 === 0 ? '' : i % 3 === 0 ? 'b' : 'a');
    const groupLists = fc.constantFrom<string[]>(['a'], ['a', 'b'], ['b', 'a'], ['a', 'b', ''], ['']);
    let full = 0;
    fc.assert(
      fc.property(fc.array(growing, { minLength: 100, maxLength: 400 }), fc.array(fc.record({ query, groups: groupLists, taken: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 10 }), (changes, queries) => {
        const index = new TouchedFit(groupOf);
        const { keys } = applyChanges(index, changes);
        // The list moves into a full index when a node is set with 128 others listed, and stays there.
        const listed = new Set<number>();
        let outgrown = false;
        for (const c of changes) {
          listed.delete(c.node);
          if (c.remove) continue;
          outgrown ||= listed.size >= 128;
          listed.add(c.node);
        }
        if (outgrown) full++;
        for (const { query: q, groups, taken } of queries) {
          const takes = (i: number): boolean => i % taken === 0;
          const expected = [...keys.values()]
            .filter((k) => groups.includes(groupOf(k[2])) && k[0] >= q.minGpu && k[1] >= q.minCpu && takes(k[2]))
            .sort(compare)[0];
          let best: Key | undefined;
          let visits = 0;
          index.scanGroups(groups, q.minGpu, q.minCpu, (g, c, i) => {
            visits++;
            if (best !== undefined && compare([g, c, i], best) >= 0) return true;
            if (!takes(i)) return false;
            best = [g, c, i];
            return true;
          });
          expect(best).toEqual(expected);
          // Read once in key order: no node past the one found (in the small form).
          if (!outgrown && expected !== undefined) {
            const before = [...keys.values()].filter((k) => groups.includes(groupOf(k[2])) && k[0] >= q.minGpu && k[1] >= q.minCpu && compare(k, expected) <= 0);
            expect(visits).toBe(before.length);
          }
        }
      }),
      { numRuns: 300 },
    );
    // Both forms were scanned.
    expect(full).toBeGreaterThan(0);
  });
});

describe('FitIndex with GPU rooms', () => {
  const groupOf = (i: number): string => (i % 5 === 0 ? '' : i % 2 === 0 ? 'b' : 'a');
  const roomed = fc.record({
    node: fc.integer({ min: 0, max: 149 }),
    remove: fc.boolean(),
    // Few distinct values, so that keys, levels and rooms repeat (the level bounds count ties).
    gpuMilli: fc.oneof(fc.constantFrom(0, 250, 1000, 1050, 2000, 4000, 8000), fc.integer({ min: 0, max: 8000 })),
    cpuMilli: fc.oneof(fc.constantFrom(0, 4000, 64_000, 96_000), fc.integer({ min: 0, max: 96_000 })),
    room: fc.oneof(fc.constantFrom(-1, 0, 500, 1000, 2000, 8000), fc.integer({ min: -1, max: 8000 })),
  });
  const filtered = fc.record({
    group: fc.constantFrom('a', 'b', ''),
    minGpu: fc.oneof(fc.constantFrom(0, 1000, 2000), fc.integer({ min: 0, max: 8200 })),
    minCpu: fc.oneof(fc.constantFrom(0, 4000, 64_000), fc.integer({ min: 0, max: 97_000 })),
    minRoom: fc.oneof(fc.constantFrom(-1, 500, 1000, 2000), fc.integer({ min: -1, max: 8000 })),
    untilGpu: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 8000 })),
    stamped: fc.array(fc.integer({ min: 0, max: 149 }), { maxLength: 20 }),
    stopAfter: fc.integer({ min: 1, max: 200 }),
  });

  it('passes over exactly the nodes without the CPU, the GPU room or an unstamped entry asked for, and walks down past nodes without the CPU', () => {
    fc.assert(
      fc.property(fc.array(roomed, { maxLength: 400 }), fc.array(filtered, { minLength: 1, maxLength: 10 }), (changes, queries) => {
        const index = new FitIndex(groupOf, true);
        const { keys, rooms } = applyChanges(index, changes);
        for (const q of queries) {
          const stamps = new Uint32Array(150);
          for (const i of q.stamped) stamps[i] = 7;
          const all = sortedKeys(keys, groupOf, q.group);
          const expected = all
            .filter((k) => k[0] >= q.minGpu && k[1] >= q.minCpu && rooms.get(k[2])! >= q.minRoom && stamps[k[2]] !== 7)
            .filter((k) => k[0] <= q.untilGpu)
            .slice(0, q.stopAfter);
          const seen: Key[] = [];
          index.scan(q.group, q.minGpu, q.minCpu, (g, c, i) => (seen.push([g, c, i]), seen.length >= q.stopAfter), {
            stamps,
            stamp: 7,
            minGpuRoom: q.minRoom,
            untilGpuMilli: q.untilGpu,
          });
          expect(seen).toEqual(expected);
          expect(walked(index.descending(q.group, q.minCpu))).toEqual(all.filter((k) => k[1] >= q.minCpu).reverse());
        }
      }),
      { numRuns: 300 },
    );
  });

  it('passes over stamped nodes as a plain filter does while stamps grow between scans, the stamp changes and nodes move', () => {
    // One scratch after another: each step stamps more nodes (a scratch touching them), scans,
    // and now and then moves a node in the index or starts a new stamp (the runs it recorded go).
    // Few nodes, keys and bounds, so that stamped runs are long and scans meet them again.
    const dense = fc.record({
      node: fc.integer({ min: 0, max: 39 }),
      remove: fc.boolean(),
      gpuMilli: fc.constantFrom(0, 1000, 1050, 2000),
      cpuMilli: fc.constantFrom(0, 4000, 64_000),
      room: fc.constantFrom(-1, 1000, 2000),
    });
    const step = fc.record({
      stampMore: fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 8 }),
      move: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: dense, weight: 1 }),
      newStamp: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
      query: fc.record({
        group: fc.constantFrom('a', 'b', ''),
        minGpu: fc.constantFrom(0, 1000, 2000),
        minCpu: fc.constantFrom(0, 4000),
        minRoom: fc.constantFrom(-1, 1000),
        untilGpu: fc.constantFrom(Infinity, 1000),
        stopAfter: fc.integer({ min: 1, max: 40 }),
      }),
    });
    fc.assert(
      fc.property(fc.array(dense, { maxLength: 120 }), fc.array(step, { minLength: 1, maxLength: 40 }), (changes, steps) => {
        const index = new FitIndex(groupOf, true);
        const { keys, rooms } = applyChanges(index, changes);
        const stamps = new Uint32Array(40);
        let stamp = 1;
        for (const s of steps) {
          if (s.newStamp) stamp++;
          for (const i of s.stampMore) stamps[i] = stamp;
          if (s.move !== undefined) {
            const moved = applyChanges(index, [s.move]);
            if (s.move.remove) keys.delete(s.move.node);
            else {
              keys.set(s.move.node, moved.keys.get(s.move.node)!);
              rooms.set(s.move.node, moved.rooms.get(s.move.node)!);
            }
          }
          const q = s.query;
          const expected = sortedKeys(keys, groupOf, q.group)
            .filter((k) => k[0] >= q.minGpu && k[1] >= q.minCpu && rooms.get(k[2])! >= q.minRoom && stamps[k[2]] !== stamp && k[0] <= q.untilGpu)
            .slice(0, q.stopAfter);
          const seen: Key[] = [];
          index.scan(q.group, q.minGpu, q.minCpu, (g, c, i) => (seen.push([g, c, i]), seen.length >= q.stopAfter), {
            stamps,
            stamp,
            minGpuRoom: q.minRoom,
            untilGpuMilli: q.untilGpu,
          });
          expect(seen).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('forgets the stamped runs it passed over once the stamp changes or a node moves', () => {
    const index = new FitIndex(() => 'a', true);
    for (let i = 0; i < 6; i++) index.set(i, 1000, 4000, 1000);
    const stamps = new Uint32Array(6);
    const scan = (stamp: number): number[] => {
      const seen: number[] = [];
      index.scan('a', 0, 0, (_g, _c, i) => (seen.push(i), false), { stamps, stamp, minGpuRoom: -1, untilGpuMilli: Infinity });
      return seen;
    };
    stamps[0] = stamps[1] = stamps[2] = 1;
    expect(scan(1)).toEqual([3, 4, 5]);
    // A new scratch stamps only the first of that run.
    stamps[0] = 2;
    expect(scan(2)).toEqual([1, 2, 3, 4, 5]);
    expect(scan(2)).toEqual([1, 2, 3, 4, 5]);
    // Node 0 leaves: every node after it moves down one place.
    stamps[1] = stamps[2] = 2;
    expect(scan(2)).toEqual([3, 4, 5]);
    index.remove(0);
    expect(scan(2)).toEqual([3, 4, 5]);
    stamps[3] = 2;
    expect(scan(2)).toEqual([4, 5]);
  });

  it('walks down visiting a run of nodes of one key and kind once, as its lowest-numbered, and every other node', () => {
    // Few keys, so that runs of one key are long; kinds -1 (walked one by one), 0 and 1.
    const alike = fc.record({
      node: fc.integer({ min: 0, max: 149 }),
      remove: fc.boolean(),
      gpuMilli: fc.constantFrom(0, 1000, 8000),
      cpuMilli: fc.constantFrom(0, 64_000),
    });
    fc.assert(
      fc.property(fc.array(alike, { maxLength: 400 }), fc.array(fc.constantFrom(-1, 0, 1), { minLength: 150, maxLength: 150 }), fc.constantFrom('a', 'b', ''), fc.constantFrom(0, 64_000), (changes, kinds, group, minCpu) => {
        const index = new FitIndex(groupOf, true);
        const { keys } = applyChanges(index, changes);
        const kindOf = (i: number): number => kinds[i]!;
        // The reference: the walk down, a node left out when the next one has its key and its kind (>= 0).
        const down = sortedKeys(keys, groupOf, group).filter((k) => k[1] >= minCpu).reverse();
        const expected = down.filter((k, n) => {
          const next = down[n + 1];
          return next === undefined || next[0] !== k[0] || next[1] !== k[1] || kindOf(k[2]) < 0 || kindOf(next[2]) !== kindOf(k[2]);
        });
        const cursor = index.descending(group, minCpu);
        const seen: Key[] = [];
        while (cursor.next()) {
          const kind = kindOf(cursor.nodeIndex);
          if (kind >= 0) cursor.lastOfKind!(kindOf, kind);
          seen.push([cursor.freeGpuMilli, cursor.freeCpuMilli, cursor.nodeIndex]);
        }
        expect(seen).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores the room bound in an index not given rooms', () => {
    const index = new FitIndex(groupOf);
    index.set(1, 1000, 1000, 0);
    const seen: number[] = [];
    index.scan('a', 0, 0, (_g, _c, i) => (seen.push(i), false), { stamps: null, stamp: 0, minGpuRoom: 1000, untilGpuMilli: Infinity });
    expect(seen).toEqual([1]);
  });
});
