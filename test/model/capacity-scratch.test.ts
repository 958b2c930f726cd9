import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import type { PlacementRequest } from '../../src/policies/types.js';
import { gpuCluster } from '../helpers.js';

function task(nodeIndex: number, gpuIndices: number[], gpuMilli = 1000): TaskPlacement {
  return { role: 'worker', nodeIndex, gpuIndices, demand: { gpus: gpuIndices.length, gpuMilli, cpuMilli: 4000, memMiB: 1024 } };
}

/** Everything a placement policy reads of a scratch, node by node. */
function reading(scratch: CapacityScratch): unknown {
  const demand = { gpus: 1, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 };
  const share = { gpus: 1, gpuMilli: 250, cpuMilli: 1000, memMiB: 1024 };
  return {
    total: scratch.freeWholeGpusTotal,
    nodes: scratch.nodes.map((_, i) => [scratch.schedulable(i), scratch.free(i), scratch.fitCount(i, demand), scratch.fitCount(i, share), scratch.freeGpuMilli(i)]),
  };
}

/** A busy cluster: a whole-GPU job on node 0, a shared-GPU job on node 1, node 2 empty. */
function busy(): { cluster: ClusterState; held: TaskPlacement[] } {
  const cluster = new ClusterState(gpuCluster(3, 4));
  const held = [task(0, [0, 1]), task(1, [2], 500)];
  cluster.allocate('a', held);
  return { cluster, held };
}

describe('CapacityScratch foreseen changes', () => {
  it('closing, releasing and taking GPUs down in a scratch reads as a fresh scratch of the cluster so changed', () => {
    const { cluster, held } = busy();
    const scratch = new CapacityScratch(cluster);
    scratch.setSchedulable(2, false);
    scratch.unreserve(held);
    scratch.takeGpuDown(0, 1);
    scratch.takeGpuDown(1, 3);
    scratch.takeGpuDown(1, 2);

    cluster.setNodeHealth(2, 'cordoned');
    cluster.releaseTasks('a', held);
    cluster.setGpuUp(0, 1, false);
    cluster.setGpuUp(1, 3, false);
    cluster.setGpuUp(1, 2, false);
    expect(reading(scratch)).toEqual(reading(new CapacityScratch(cluster)));
  });

  it('reopening a closed node and closing an open one match the cluster, whole GPUs included', () => {
    const { cluster, held } = busy();
    cluster.setNodeHealth(1, 'cordoned');
    const scratch = new CapacityScratch(cluster);
    scratch.unreserve([held[1]!]);
    scratch.setSchedulable(1, true);
    scratch.setSchedulable(0, false);
    scratch.setSchedulable(0, false);

    cluster.releaseTasks('a', [held[1]!]);
    cluster.setNodeHealth(1, 'up');
    cluster.setNodeHealth(0, 'down');
    expect(reading(scratch)).toEqual(reading(new CapacityScratch(cluster)));
  });

  it('a change foreseen in a scratch leaves the cluster as it was', () => {
    const { cluster } = busy();
    const scratch = new CapacityScratch(cluster);
    scratch.takeGpuDown(0, 2);
    scratch.setSchedulable(2, false);
    expect(scratch.free(0).gpuFreeMilli[2]).toBe(0);
    expect(scratch.fitCount(0, { gpus: 2, gpuMilli: 1000, cpuMilli: 0, memMiB: 0 })).toBe(0);
    expect(scratch.fitCount(2, { gpus: 1, gpuMilli: 1000, cpuMilli: 0, memMiB: 0 })).toBe(0);
    expect([cluster.freeWholeGpus(0), cluster.gpuUp(0, 2), cluster.schedulable(2), cluster.schedulableFreeWholeGpus]).toEqual([2, true, true, 9]);
  });

  it('a copy reads and places as its scratch does, and each goes on without changing the other', () => {
    const request = (gpus: number, gpuMilli: number, replicas: number): PlacementRequest => ({
      jobId: 'trial',
      jobKind: 'allreduce',
      gpuTypes: [],
      replicas: Array.from({ length: replicas }, () => ({ role: 'worker' as const, demand: { gpus, gpuMilli, cpuMilli: 8000, memMiB: 1024 } })),
    });
    const gang = fc.record({ gpus: fc.constantFrom(1, 2, 4), gpuMilli: fc.constantFrom(250, 1000), replicas: fc.integer({ min: 1, max: 6 }) });
    const step = fc.oneof(
      gang.map((g) => ({ kind: 'place' as const, ...g })),
      fc.record({ kind: fc.constant('close' as const), node: fc.integer({ min: 0, max: 5 }), open: fc.boolean() }),
      fc.record({ kind: fc.constant('down' as const), node: fc.integer({ min: 0, max: 5 }), gpu: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('free' as const), which: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), fc.array(gang, { minLength: 1, maxLength: 6 }), (before, after) => {
        const cluster = new ClusterState(gpuCluster(6, 4));
        cluster.allocate('held', [task(0, [0, 1]), task(3, [2], 500)]);
        const scratch = new CapacityScratch(cluster);
        const placed: TaskPlacement[][] = [];
        for (const op of before) {
          if (op.kind === 'place') {
            const tasks = packPlacement.place(scratch, request(op.gpus, op.gpuMilli, op.replicas));
            if (tasks !== null) placed.push(tasks);
          } else if (op.kind === 'close') scratch.setSchedulable(op.node, op.open);
          else if (op.kind === 'down') scratch.takeGpuDown(op.node, op.gpu);
          else if (placed.length > 0) scratch.unreserve(placed.splice(op.which % placed.length, 1)[0]!);
        }
        const seen = reading(scratch);
        const copy = scratch.copy();
        expect(reading(copy)).toEqual(seen);
        // The copy places first (it is the newest scratch), then the scratch itself: the same tasks.
        const inCopy = after.map((g) => packPlacement.place(copy, request(g.gpus, g.gpuMilli, g.replicas)));
        expect(reading(scratch)).toEqual(seen);
        const inScratch = after.map((g) => packPlacement.place(scratch, request(g.gpus, g.gpuMilli, g.replicas)));
        expect(inScratch).toEqual(inCopy);
        expect(reading(scratch)).toEqual(reading(copy));
      }),
      { numRuns: 200 },
    );
  });

  it('counts whole-GPU replicas the allowed nodes hold from the count of nodes by kind and free GPUs, as node by node, whatever the cluster and the scratch changed', () => {
    const nodeArb = fc.record({ gpuType: fc.constantFrom<string | null>('A', 'B', null), gpus: fc.constantFrom(0, 2, 4, 8) });
    const step = fc.oneof(
      fc.record({ kind: fc.constant('place' as const), gpus: fc.constantFrom(1, 2, 4), gpuMilli: fc.constantFrom(250, 1000), replicas: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('close' as const), node: fc.nat(), open: fc.boolean() }),
      fc.record({ kind: fc.constant('down' as const), node: fc.nat(), gpu: fc.nat() }),
      fc.record({ kind: fc.constant('free' as const), which: fc.nat() }),
    );
    const request = (gpus: number, gpuMilli: number, replicas: number): PlacementRequest => ({
      jobId: 'x',
      gpuTypes: [],
      // A share of a GPU is a share of one.
      replicas: Array.from({ length: replicas }, () => ({ role: 'worker' as const, demand: { gpus: gpuMilli < 1000 ? 1 : gpus, gpuMilli, cpuMilli: 1000, memMiB: 1024 } })),
    });
    const allowed: ((node: { gpuType: string | null; gpus: number }) => boolean)[] = [(n) => n.gpuType !== null && n.gpus > 0, (n) => n.gpuType === 'A' && n.gpus > 0, (n) => n.gpus === 8];
    fc.assert(
      fc.property(fc.array(nodeArb, { minLength: 1, maxLength: 10 }), fc.array(step, { maxLength: 10 }), fc.array(step, { maxLength: 10 }), (specs, inCluster, inScratch) => {
        const cluster = new ClusterState({
          nodes: specs.map((n, i) => ({ name: `n${i}`, group: 'g', gpuType: n.gpus === 0 ? null : n.gpuType, gpus: n.gpus, cpuMilli: 32_000, memMiB: 65_536, rack: 'r' })),
        });
        // The cluster changes first (jobs start and end, nodes close, GPUs go down and come back), then a scratch of it.
        const held: string[] = [];
        const apply = (scratch: CapacityScratch | null, op: (typeof inCluster)[number], k: number): void => {
          const node = op.kind === 'close' || op.kind === 'down' ? op.node % specs.length : 0;
          if (op.kind === 'place') {
            const tasks = packPlacement.place(scratch ?? new CapacityScratch(cluster), request(op.gpus, op.gpuMilli, op.replicas));
            if (tasks !== null && scratch === null) {
              cluster.allocate(`j${k}`, tasks);
              held.push(`j${k}`);
            }
          } else if (op.kind === 'close') {
            if (scratch !== null) scratch.setSchedulable(node, op.open);
            else cluster.setNodeHealth(node, op.open ? 'up' : 'cordoned');
          } else if (op.kind === 'down') {
            const gpus = specs[node]!.gpuType === null ? 0 : specs[node]!.gpus;
            if (gpus === 0) return;
            if (scratch !== null) scratch.takeGpuDown(node, op.gpu % gpus);
            else cluster.setGpuUp(node, op.gpu % gpus, !cluster.gpuUp(node, op.gpu % gpus));
          } else if (held.length > 0) {
            const id = held[op.which % held.length]!;
            if (scratch !== null) scratch.unreserve(cluster.tasksOf(id)!);
            else {
              cluster.release(id);
              held.splice(held.indexOf(id), 1);
            }
          }
        };
        inCluster.forEach((op, k) => apply(null, op, k));
        cluster.checkInvariants();
        const scratch = new CapacityScratch(cluster);
        inScratch.forEach((op, k) => apply(scratch, op, k));
        for (const allows of allowed) {
          for (const gpus of [1, 2, 3, 4]) {
            let nodeByNode = 0;
            for (let i = 0; i < specs.length; i++) if (allows(cluster.nodes[i]!) && scratch.schedulable(i)) nodeByNode += Math.floor(scratch.freeWholeGpus(i) / gpus);
            expect(scratch.wholeGpuReplicas(gpus, allows)).toBe(nodeByNode);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
