import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import type { PlacementRequest } from '../../src/policies/types.js';
import { diagnoseUnplaced } from '../../src/policies/wait-diagnosis.js';
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
