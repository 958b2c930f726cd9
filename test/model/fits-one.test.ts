import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';

/** Four small nodes, one without GPUs, so CPU, memory, whole GPUs and GPU shares all run out. */
const CLUSTER: ClusterSpec = {
  nodes: [
    { name: 'a', group: 'g', gpuType: 'A100', gpus: 4, cpuMilli: 16_000, memMiB: 64 * 1024, rack: 'r0' },
    { name: 'b', group: 'g', gpuType: 'A100', gpus: 2, cpuMilli: 8_000, memMiB: 16 * 1024, rack: 'r0' },
    { name: 'c', group: 'g', gpuType: 'T4', gpus: 8, cpuMilli: 32_000, memMiB: 128 * 1024, rack: 'r1' },
    { name: 'd', group: 'g', gpuType: null, gpus: 0, cpuMilli: 16_000, memMiB: 64 * 1024, rack: 'r1' },
  ],
};

const demandArb: fc.Arbitrary<ReplicaDemand> = fc.oneof(
  fc.record({ gpus: fc.constant(0), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 0, max: 12_000 }), memMiB: fc.integer({ min: 0, max: 40_000 }) }),
  fc.record({ gpus: fc.integer({ min: 1, max: 4 }), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 0, max: 12_000 }), memMiB: fc.integer({ min: 0, max: 40_000 }) }),
  fc.record({ gpus: fc.constant(1), gpuMilli: fc.integer({ min: 1, max: 999 }), cpuMilli: fc.integer({ min: 0, max: 12_000 }), memMiB: fc.integer({ min: 0, max: 40_000 }) }),
);

/** A change of the cluster: a job placed on a node (what fits of it), a job's tasks freed, a GPU or a node going down or up. */
const opArb = fc.oneof(
  fc.record({ kind: fc.constant('place' as const), node: fc.nat(3), demand: demandArb, replicas: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('release' as const), job: fc.nat(20) }),
  fc.record({ kind: fc.constant('gpu' as const), node: fc.nat(2), gpu: fc.nat(7), up: fc.constantFrom(false, false, true) }),
  fc.record({ kind: fc.constant('health' as const), node: fc.nat(3), up: fc.boolean() }),
);

describe('CapacityScratch.fitsOne', () => {
  it('says a node fits one replica exactly when fitCount counts at least one, on scratches the pass changed or not', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), fc.array(demandArb, { minLength: 1, maxLength: 6 }), fc.nat(3), (ops, probes, touchedNode) => {
        const cluster = new ClusterState(CLUSTER);
        let jobs = 0;
        for (const op of ops) {
          if (op.kind === 'place') {
            const scratch = new CapacityScratch(cluster);
            const tasks = [];
            for (let r = 0; r < op.replicas; r++) {
              const task = scratch.reserve(op.node, 'worker', op.demand);
              if (task !== null) tasks.push(task);
            }
            if (tasks.length > 0) cluster.allocate(`j${jobs++}`, tasks);
          } else if (op.kind === 'release') cluster.release(`j${op.job}`);
          else if (op.kind === 'gpu') cluster.setGpuUp(op.node, op.gpu % CLUSTER.nodes[op.node]!.gpus, op.up);
          else cluster.setNodeHealth(op.node, op.up ? 'up' : 'cordoned');
        }
        const fresh = new CapacityScratch(cluster);
        const changed = new CapacityScratch(cluster);
        // A pass that already reserved on one node: that node is read from the scratch's own copy.
        changed.reserve(touchedNode, 'worker', { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 });
        const empty = new CapacityScratch(cluster, 'empty');
        for (const scratch of [fresh, changed, empty]) {
          for (const demand of probes) {
            for (let i = 0; i < CLUSTER.nodes.length; i++) expect(scratch.fitsOne(i, demand)).toBe(scratch.fitCount(i, demand) > 0);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('does not count a share on a GPU that went down, nor a node whose GPUs are all down', () => {
    const cluster = new ClusterState(CLUSTER);
    const share: ReplicaDemand = { gpus: 1, gpuMilli: 500, cpuMilli: 1000, memMiB: 1024 };
    // Node b: GPU 0 three-quarters used, then GPU 1 (the only one with room for the share) goes down.
    const held = new CapacityScratch(cluster).reserve(1, 'worker', { gpus: 1, gpuMilli: 750, cpuMilli: 1000, memMiB: 1024 })!;
    expect(held.gpuIndices).toEqual([0]);
    cluster.allocate('held', [held]);
    expect(new CapacityScratch(cluster).fitsOne(1, share)).toBe(true);
    cluster.setGpuUp(1, 1, false);
    expect(new CapacityScratch(cluster).fitsOne(1, share)).toBe(false);
    // Node a: every GPU down.
    for (let g = 0; g < 4; g++) cluster.setGpuUp(0, g, false);
    expect(new CapacityScratch(cluster).fitsOne(0, share)).toBe(false);
    cluster.setGpuUp(0, 2, true);
    expect(new CapacityScratch(cluster).fitsOne(0, share)).toBe(true);
  });
});
