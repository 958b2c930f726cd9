import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import type { PlacementRequest } from '../../src/policies/types.js';
import { gpuCluster, gpuDemand } from '../helpers.js';

function request(replicas: number, gpus: number, gpuTypes: string[] = []): PlacementRequest {
  return { jobId: 'j', gpuTypes, replicas: Array.from({ length: replicas }, () => ({ role: 'worker' as const, demand: gpuDemand(gpus) })) };
}

describe('pack placement', () => {
  it('puts a gang on the fewest nodes', () => {
    const cluster = new ClusterState(gpuCluster(4, 8));
    // Fragment nodes 0 and 1 so that best fit per replica alone would spread the job.
    cluster.allocate('x', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3, 4, 5], demand: gpuDemand(6) }]);
    cluster.allocate('y', [{ role: 'worker', nodeIndex: 1, gpuIndices: [0, 1, 2, 3, 4, 5], demand: gpuDemand(6) }]);
    const tasks = packPlacement.place(new CapacityScratch(cluster), request(4, 2))!;
    expect(new Set(tasks.map((t) => t.nodeIndex)).size).toBe(1);
  });

  it('best-fits a small task into the fullest node that takes it', () => {
    const cluster = new ClusterState(gpuCluster(3, 8));
    cluster.allocate('x', [{ role: 'worker', nodeIndex: 1, gpuIndices: [0, 1, 2, 3, 4, 5, 6], demand: gpuDemand(7) }]);
    const tasks = packPlacement.place(new CapacityScratch(cluster), request(1, 1))!;
    expect(tasks.map((t) => [t.nodeIndex, t.gpuIndices])).toEqual([[1, [7]]]);
  });

  it('returns null and reserves nothing when the gang does not fit', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    const scratch = new CapacityScratch(cluster);
    expect(packPlacement.place(scratch, request(3, 8))).toBeNull();
    expect(scratch.freeWholeGpusTotal).toBe(16);
    expect(scratch.fitCount(0, gpuDemand(8))).toBe(1);
    // A request of 12 GPUs in 8-GPU replicas cannot use 4+4 leftovers either.
    const tasks = packPlacement.place(scratch, request(1, 4));
    expect(tasks).not.toBeNull();
    expect(packPlacement.place(scratch, request(2, 8))).toBeNull();
    expect(scratch.freeWholeGpusTotal).toBe(12);
  });

  it('honours allowed GPU types', () => {
    const spec = gpuCluster(2, 8);
    const nodes = [spec.nodes[0]!, { ...spec.nodes[1]!, gpuType: 'V100' }];
    const cluster = new ClusterState({ nodes });
    const tasks = packPlacement.place(new CapacityScratch(cluster), request(1, 1, ['V100']))!;
    expect(tasks[0]!.nodeIndex).toBe(1);
    expect(packPlacement.place(new CapacityScratch(cluster), request(1, 1, ['H100']))).toBeNull();
  });

  it('packs GPU shares onto the fullest GPU that still fits', () => {
    const cluster = new ClusterState(gpuCluster(1, 2));
    cluster.allocate('x', [{ role: 'worker', nodeIndex: 0, gpuIndices: [1], demand: { gpus: 1, gpuMilli: 500, cpuMilli: 1000, memMiB: 1 } }]);
    const shared: PlacementRequest = {
      jobId: 's',
      gpuTypes: [],
      replicas: [{ role: 'worker', demand: { gpus: 1, gpuMilli: 300, cpuMilli: 1000, memMiB: 1 } }],
    };
    const tasks = packPlacement.place(new CapacityScratch(cluster), shared)!;
    expect(tasks[0]!.gpuIndices).toEqual([1]);
  });

  it('plans in the scratch without touching the cluster', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    const scratch = new CapacityScratch(cluster);
    packPlacement.place(scratch, request(2, 8));
    expect(cluster.allocatedGpus).toBe(0);
    expect(cluster.freeWholeGpus(0)).toBe(8);
    expect(scratch.freeWholeGpusTotal).toBe(0);
  });
});
