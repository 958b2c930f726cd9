import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { gpuCluster } from '../helpers.js';

/** Everything a placement policy reads of a scratch, node by node. */
function reading(scratch: CapacityScratch): unknown {
  const whole = { gpus: 2, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 };
  const share = { gpus: 1, gpuMilli: 300, cpuMilli: 1000, memMiB: 1024 };
  return {
    total: scratch.freeWholeGpusTotal,
    nodes: scratch.nodes.map((_, i) => [scratch.schedulable(i), scratch.free(i), scratch.fitCount(i, whole), scratch.fitCount(i, share), scratch.freeGpuMilli(i), scratch.freeCpuMilli(i)]),
  };
}

describe('CapacityScratch.copyAll', () => {
  it('a scratch with every node copied reads, reserves and gives back exactly as one without', () => {
    const cluster = new ClusterState(gpuCluster(4, 4));
    cluster.allocate('held', [{ role: 'worker', nodeIndex: 2, gpuIndices: [1], demand: { gpus: 1, gpuMilli: 600, cpuMilli: 2000, memMiB: 2048 } }]);
    const plain = new CapacityScratch(cluster);
    const copied = new CapacityScratch(cluster);
    copied.copyAll();
    expect(reading(copied)).toEqual(reading(plain));
    const steps: [number, { gpus: number; gpuMilli: number; cpuMilli: number; memMiB: number }][] = [
      [0, { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 4096 }],
      [2, { gpus: 1, gpuMilli: 300, cpuMilli: 1000, memMiB: 1024 }],
      [2, { gpus: 1, gpuMilli: 400, cpuMilli: 1000, memMiB: 1024 }],
      [3, { gpus: 4, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 }],
    ];
    const taken = [];
    for (const [node, demand] of steps) {
      const a = plain.reserve(node, 'worker', demand);
      const b = copied.reserve(node, 'worker', demand);
      expect(b).toEqual(a);
      taken.push(b!);
      expect(reading(copied)).toEqual(reading(plain));
    }
    plain.unreserve(taken.slice(1, 3));
    copied.unreserve(taken.slice(1, 3));
    expect(reading(copied)).toEqual(reading(plain));
    // The cluster itself is untouched by either.
    expect(cluster.freeWholeGpus(0)).toBe(4);
    expect(copied.freeWholeGpusTotal).toBe(plain.freeWholeGpusTotal);
  });
});
