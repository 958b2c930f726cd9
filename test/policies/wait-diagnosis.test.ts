import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import type { PlacementRequest } from '../../src/policies/types.js';
import { RandomStream } from '../../src/engine/random.js';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { DiagnosisMemo, diagnoseUnplaced } from '../../src/policies/wait-diagnosis.js';
import { gpuCluster, gpuDemand } from '../helpers.js';

function gang(replicas: number, demand: ReplicaDemand, gpuTypes: string[] = []): PlacementRequest {
  return { jobId: 'j', jobKind: 'batch', gpuTypes, replicas: Array.from({ length: replicas }, () => ({ role: 'worker' as const, demand })) };
}

/** Three 4-GPU nodes with 1, 2 and 2 GPUs taken: 3, 2 and 2 free (7 in all). */
function partlyFull(): ClusterState {
  const cluster = new ClusterState(gpuCluster(3, 4));
  const taken = [1, 2, 2];
  taken.forEach((gpus, nodeIndex) => {
    cluster.allocate(`fill-${nodeIndex}`, [{ role: 'worker', nodeIndex, gpuIndices: Array.from({ length: gpus }, (_, g) => g), demand: gpuDemand(gpus) }]);
  });
  return cluster;
}

describe('why a gang that does not fit waits', () => {
  const diagnose = (request: PlacementRequest) => {
    const scratch = new CapacityScratch(partlyFull());
    const reason = diagnoseUnplaced(scratch, packPlacement, request);
    // The diagnosis leaves the scratch as it found it.
    expect(scratch.freeWholeGpusTotal).toBe(7);
    return reason;
  };

  it('no-gpus: fewer GPUs free in all than the gang needs', () => {
    expect(diagnose(gang(2, gpuDemand(4)))).toBe('no-gpus');
    expect(diagnose(gang(1, gpuDemand(1), ['H100']))).toBe('no-gpus');
  });

  it('fragmented: enough GPUs in all, but no node holds one replica', () => {
    expect(diagnose(gang(1, gpuDemand(4)))).toBe('fragmented');
  });

  it('gang: some replicas fit, not all together', () => {
    expect(diagnose(gang(2, gpuDemand(3)))).toBe('gang');
  });

  it('a gang of mixed GPU shapes is placed to tell gang from cpu-memory', () => {
    const mixed = (...demands: ReplicaDemand[]): PlacementRequest => ({ jobId: 'j', jobKind: 'batch', gpuTypes: [], replicas: demands.map((demand) => ({ role: 'worker' as const, demand })) });
    expect(diagnose(mixed(gpuDemand(3), gpuDemand(3), gpuDemand(1)))).toBe('gang');
    expect(diagnose(mixed(gpuDemand(3), gpuDemand(2, 95_000)))).toBe('cpu-memory');
  });

  it('cpu-memory: the GPUs fit, their CPU does not', () => {
    expect(diagnose(gang(1, gpuDemand(1, 200_000)))).toBe('cpu-memory');
    expect(diagnose(gang(3, gpuDemand(2, 95_000)))).toBe('cpu-memory');
    expect(diagnose(gang(1, { gpus: 0, gpuMilli: 0, cpuMilli: 500_000, memMiB: 1 }))).toBe('cpu-memory');
  });
});

describe('a diagnosis kept while the cluster only grows', () => {
  const owner = {};
  const take = (cluster: ClusterState, jobId: string, nodeIndex: number, gpus: number, cpuMilli = 4000): void => {
    cluster.allocate(jobId, [{ role: 'worker', nodeIndex, gpuIndices: Array.from({ length: gpus }, (_, g) => 4 - gpus + g), demand: gpuDemand(gpus, cpuMilli) }]);
  };

  it('fragmented holds over growth that gives no node a replica', () => {
    const cluster = partlyFull();
    const memo = new DiagnosisMemo();
    const one = gang(1, gpuDemand(4));
    take(cluster, 'extra', 0, 1);
    // 2, 2 and 2 GPUs free: no node holds the 4-GPU replica.
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, one, owner)).toBe('fragmented');
    // Node 0 grows to 3 free: still none.
    cluster.release('extra');
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, one, owner)).toBe('fragmented');
  });

  it('fragmented ends when a grown node holds a replica\'s GPUs though not its CPU', () => {
    const cluster = partlyFull();
    const memo = new DiagnosisMemo();
    const one = gang(1, gpuDemand(4, 50_000));
    take(cluster, 'cpu-0', 0, 0, 60_000);
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, one, owner)).toBe('fragmented');
    // Node 0's four GPUs free, 36 of its 96 cores: the same request, which still does not fit, now waits for CPU.
    cluster.release('fill-0');
    expect(packPlacement.place(new CapacityScratch(cluster), one)).toBeNull();
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, one, owner)).toBe('cpu-memory');
  });

  it('cpu-memory holds over growth and is worked out again after a node shrank', () => {
    const cluster = partlyFull();
    const memo = new DiagnosisMemo();
    const hungry = gang(2, gpuDemand(2, 95_000));
    take(cluster, 'cpu-0', 0, 0, 10_000);
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, hungry, owner)).toBe('cpu-memory');
    cluster.release('cpu-0');
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, hungry, owner)).toBe('cpu-memory');
    // GPUs taken on two nodes: only one node holds a replica's GPUs now.
    take(cluster, 'more-1', 1, 1);
    take(cluster, 'more-2', 2, 1);
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, hungry, owner)).toBe(diagnoseUnplaced(new CapacityScratch(cluster), packPlacement, hungry));
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, hungry, owner)).toBe('gang');
  });

  it('gives what a fresh diagnosis gives, over random allocations, releases, GPU and node failures', () => {
    const random = new RandomStream('diagnosis-memo');
    const cluster = new ClusterState(gpuCluster(6, 4));
    // The memo's scratches read the cluster through this view, which counts the index reads a diagnosis makes.
    let indexReads = 0;
    const counted = new Proxy(cluster, {
      get(target, key) {
        if (key === 'fitIndex') indexReads++;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const memo = new DiagnosisMemo();
    const requests = [gang(1, gpuDemand(4, 70_000)), gang(1, gpuDemand(4)), gang(2, gpuDemand(3)), gang(3, gpuDemand(2, 60_000)), gang(1, gpuDemand(1, 97_000)), gang(4, gpuDemand(4))];
    const held = new Map<string, TaskPlacement[]>();
    let jobs = 0;
    let diagnosed = 0;
    let kept = 0;
    for (let step = 0; step < 3000; step++) {
      const roll = random.uniform();
      if (roll < 0.45) {
        const gpus = 1 + random.int(3);
        const tasks = packPlacement.place(new CapacityScratch(cluster), gang(1, gpuDemand(gpus, 1000 * (1 + random.int(40)))));
        if (tasks !== null) {
          cluster.allocate(`j${jobs}`, tasks);
          held.set(`j${jobs++}`, tasks);
        }
      } else if (roll < 0.9 && held.size > 0) {
        const jobId = [...held.keys()][random.int(held.size)]!;
        cluster.release(jobId);
        held.delete(jobId);
      } else if (roll < 0.95) {
        // A GPU goes down only while nothing is on it.
        const nodeIndex = random.int(6);
        const gpuIndex = random.int(4);
        if (!cluster.gpuUp(nodeIndex, gpuIndex) || cluster.gpuFreeMilli(nodeIndex, gpuIndex) === 1000) cluster.setGpuUp(nodeIndex, gpuIndex, !cluster.gpuUp(nodeIndex, gpuIndex));
      } else {
        const nodeIndex = random.int(6);
        cluster.setNodeHealth(nodeIndex, cluster.schedulable(nodeIndex) ? 'cordoned' : 'up');
      }
      // One request, the first that does not fit, asked at each step (as a blocked head is).
      const request = requests.find((r) => packPlacement.place(new CapacityScratch(cluster), r) === null);
      if (request === undefined) continue;
      const fresh = diagnoseUnplaced(new CapacityScratch(cluster), packPlacement, request);
      const reads = indexReads;
      expect(memo.diagnose(cluster, new CapacityScratch(counted), packPlacement, request, owner)).toBe(fresh);
      diagnosed++;
      if (indexReads === reads) kept++;
    }
    // The check ran on many states, and the memo gave a kept reason in some of them (and not in others).
    expect(diagnosed).toBeGreaterThan(1000);
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(diagnosed);
  });

  it('a scratch that reserved something is diagnosed afresh', () => {
    const cluster = partlyFull();
    const memo = new DiagnosisMemo();
    const one = gang(1, gpuDemand(4));
    expect(memo.diagnose(cluster, new CapacityScratch(cluster), packPlacement, one, owner)).toBe('fragmented');
    const scratch = new CapacityScratch(cluster);
    // Taking node 0's three free GPUs and node 1's two in the scratch leaves 2 free in all: no-gpus, which a kept reason would miss.
    expect(packPlacement.place(scratch, gang(1, gpuDemand(3)))).not.toBeNull();
    expect(packPlacement.place(scratch, gang(1, gpuDemand(2)))).not.toBeNull();
    expect(scratch.untouched).toBe(false);
    expect(memo.diagnose(cluster, scratch, packPlacement, one, owner)).toBe('no-gpus');
  });
});
