import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
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
});
