import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import { compareFreeKeys, Descending, freeKey } from '../../src/policies/scheduling/tetris-descending.js';

const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 2000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 300, cpuMilli: 1000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 2048 },
];

function nodes(count: number): NodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ name: `n${i}`, group: 'g', gpuType: i % 3 === 2 ? 'B' : 'A', gpus: i % 4 === 3 ? 0 : 4, cpuMilli: 32_000, memMiB: 65_536, rack: 'r' }));
}

/** Every machine of the list, reading it to the end. */
function readAll(list: Descending): number[] {
  while (list.readMore());
  return Array.from({ length: list.length }, (_, at) => list.node(at));
}

/** The schedulable machines sorted by standing, highest first (what the list must hold). */
function sortedByStanding(scratch: CapacityScratch): number[] {
  const all: number[] = [];
  for (let i = 0; i < scratch.nodes.length; i++) if (scratch.schedulable(i)) all.push(i);
  return all.sort((a, b) => compareFreeKeys(freeKey(scratch, b), freeKey(scratch, a)));
}

describe('tetris: a pass\'s machine list in standing order', () => {
  it('stays in standing order as reservations take capacity, read from the fit index or, unindexed, by a scan', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ node: fc.nat(), demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }) }), { maxLength: 30 }),
        fc.boolean(),
        (count, firstRead, reservations, cordonFirst) => {
          const cluster = new ClusterState({ nodes: nodes(count) });
          if (cordonFirst) cluster.setNodeHealth(0, 'cordoned');
          const scratch = new CapacityScratch(cluster);
          const list = new Descending(scratch, scratch.fitGroups(false, []), firstRead);
          for (const r of reservations) {
            const i = r.node % count;
            if (scratch.reserve(i, 'worker', DEMANDS[r.demand]!) === null) continue;
            list.moved(i);
            // What is listed is the top of the standing order, each machine where positionOf finds it.
            const listed = Array.from({ length: list.length }, (_, at) => list.node(at));
            expect(listed).toEqual(sortedByStanding(scratch).slice(0, list.length));
            for (let at = 0; at < list.length; at++) expect(list.positionOf(list.node(at))).toBe(at);
          }
          expect(readAll(list)).toEqual(sortedByStanding(scratch));
          // An unindexed scratch (every machine empty) is listed by a scan in the same order.
          const empty = new CapacityScratch(cluster, 'empty');
          expect(readAll(new Descending(empty, empty.fitGroups(false, []), firstRead))).toEqual(sortedByStanding(empty));
        },
      ),
      { numRuns: 200 },
    );
  });
});
