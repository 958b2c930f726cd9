import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { gpuCluster, gpuDemand } from '../helpers.js';

function task(nodeIndex: number, gpuIndices: number[], gpuMilli = 1000, cpuMilli = 4000): TaskPlacement {
  return { role: 'worker', nodeIndex, gpuIndices, demand: { gpus: gpuIndices.length, gpuMilli, cpuMilli, memMiB: 1024 } };
}

describe('ClusterState', () => {
  it('tracks allocation and frees it on release', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    cluster.allocate('a', [task(0, [0, 1, 2, 3]), task(1, [0])]);
    expect(cluster.freeWholeGpus(0)).toBe(4);
    expect(cluster.freeWholeGpus(1)).toBe(7);
    expect(cluster.allocatedGpus).toBe(5);
    expect(cluster.schedulableFreeWholeGpus).toBe(11);
    expect(cluster.jobsOnNode(1)).toEqual(['a']);
    cluster.release('a');
    expect(cluster.allocatedGpus).toBe(0);
    expect(cluster.schedulableFreeWholeGpus).toBe(16);
    cluster.checkInvariants();
  });

  it('throws on a GPU given twice and changes nothing', () => {
    const cluster = new ClusterState(gpuCluster(1, 8));
    cluster.allocate('a', [task(0, [0, 1])]);
    expect(() => cluster.allocate('b', [task(0, [1, 2])])).toThrow(InvariantError);
    expect(() => cluster.allocate('c', [task(0, [3]), task(0, [3])])).toThrow(/over-allocated/);
    expect(() => cluster.allocate('d', [task(0, [4, 4])])).toThrow(/twice/);
    expect(cluster.freeWholeGpus(0)).toBe(6);
    expect(cluster.tasksOf('b')).toBeUndefined();
    // A refused call leaves nothing pending: the GPUs it named go whole to the next call.
    cluster.allocate('e', [task(0, [3]), task(0, [4])]);
    expect(cluster.freeWholeGpus(0)).toBe(4);
    cluster.checkInvariants();
  });

  it('throws on CPU or memory over-allocation', () => {
    const cluster = new ClusterState(gpuCluster(1, 8));
    expect(() => cluster.allocate('a', [task(0, [0], 1000, 97_000)])).toThrow(/CPU .* over-allocated/);
    const big = { role: 'worker' as const, nodeIndex: 0, gpuIndices: [], demand: { ...gpuDemand(0), memMiB: 2 * 1024 * 1024 } };
    expect(() => cluster.allocate('b', [big])).toThrow(/memory .* over-allocated/);
  });

  it('shares a GPU up to 1000 milli and no further', () => {
    const cluster = new ClusterState(gpuCluster(1, 2));
    cluster.allocate('a', [task(0, [0], 600)]);
    cluster.allocate('b', [task(0, [0], 400)]);
    expect(cluster.gpuFreeMilli(0, 0)).toBe(0);
    expect(cluster.freeWholeGpus(0)).toBe(1);
    expect(cluster.allocatedGpus).toBe(1);
    expect(() => cluster.allocate('c', [task(0, [0], 100)])).toThrow(/over-allocated/);
  });

  it('refuses tasks on down or cordoned nodes and on down GPUs', () => {
    const cluster = new ClusterState(gpuCluster(3, 8));
    cluster.setNodeHealth(0, 'down');
    cluster.setNodeHealth(1, 'cordoned');
    cluster.setGpuUp(2, 5, false);
    expect(() => cluster.allocate('a', [task(0, [0])])).toThrow(/down/);
    expect(() => cluster.allocate('a', [task(1, [0])])).toThrow(/cordoned/);
    expect(() => cluster.allocate('a', [task(2, [5])])).toThrow(/GPU 5 .* down/);
    expect(cluster.schedulableFreeWholeGpus).toBe(7);
    cluster.setNodeHealth(0, 'up');
    expect(cluster.schedulableFreeWholeGpus).toBe(15);
  });

  it('reports a job left on a down node as a broken invariant', () => {
    const cluster = new ClusterState(gpuCluster(1, 8));
    cluster.allocate('a', [task(0, [0])]);
    cluster.setNodeHealth(0, 'down');
    expect(() => cluster.checkInvariants()).toThrow(/down node/);
  });
});
