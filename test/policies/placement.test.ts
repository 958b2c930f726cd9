import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { placementRequestOf, type PlacementRequest, type ReplicaRequest } from '../../src/policies/types.js';
import { simulate } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, gpuDemand, scenarioOf } from '../helpers.js';

function workers(count: number, demand: ReplicaDemand): ReplicaRequest[] {
  return Array.from({ length: count }, () => ({ role: 'worker' as const, demand }));
}

function request(replicas: ReplicaRequest[], jobKind: PlacementRequest['jobKind'] = 'batch'): PlacementRequest {
  return { jobId: 'j', jobKind, gpuTypes: [], replicas };
}

/** Occupies `gpus` GPUs of node `nodeIndex` (the lowest-numbered ones). */
function occupy(cluster: ClusterState, nodeIndex: number, gpus: number): void {
  const gpuIndices = Array.from({ length: gpus }, (_, g) => g);
  cluster.allocate(`fill-${nodeIndex}`, [{ role: 'worker', nodeIndex, gpuIndices, demand: gpuDemand(gpus) }]);
}

const nodes = (tasks: readonly TaskPlacement[] | null): number[] => (tasks ?? []).map((t) => t.nodeIndex);
const racks = (cluster: ClusterState, tasks: readonly TaskPlacement[] | null): string[] => [
  ...new Set((tasks ?? []).filter((t) => t.role === 'worker').map((t) => cluster.nodes[t.nodeIndex]!.rack)),
];

/** An all-reduce job of `replicas` x 8 GPUs: 1000 steps of 1 s at its requested size (10% all-reduce). */
function rackJob(id: string, submitS: number, replicas: number): JobSpec {
  return allreduceJob(id, { submitS, workers: replicas, totalSteps: 1000, computeS: 0.9, commS: 0.1 });
}

describe('spread placement', () => {
  it('puts a task on the emptiest node where pack puts it on the fullest', () => {
    const cluster = new ClusterState(gpuCluster(3, 8));
    occupy(cluster, 0, 2);
    occupy(cluster, 1, 6);
    const one = request(workers(1, gpuDemand(1)));
    expect(nodes(packPlacement.place(new CapacityScratch(cluster), one))).toEqual([1]);
    expect(nodes(spreadPlacement.place(new CapacityScratch(cluster), one))).toEqual([2]);
  });

  it('spreads a gang over nodes (most free GPUs, then most free CPU, then lowest index)', () => {
    const cluster = new ClusterState(gpuCluster(3, 8));
    cluster.allocate('cpu', [{ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1 } }]);
    const gang = request(workers(3, gpuDemand(2)));
    // All have 8 GPUs free, node 0 less CPU: node 1 first, then node 2 (8 GPUs), then node 0 (8 against 6).
    expect(nodes(spreadPlacement.place(new CapacityScratch(cluster), gang))).toEqual([1, 2, 0]);
    expect(nodes(packPlacement.place(new CapacityScratch(cluster), gang))).toEqual([0, 0, 0]);
  });
});

describe('topology placement', () => {
  it('keeps an all-reduce gang in one rack where pack straddles two', () => {
    // Racks of 2 nodes: r0 = n0 (4 GPUs free), n1 (8); r1 = n2 (8), n3 (8).
    const cluster = new ClusterState(gpuCluster(4, 8, 2));
    occupy(cluster, 0, 4);
    const gang = request(workers(2, gpuDemand(8)), 'allreduce');
    const packed = packPlacement.place(new CapacityScratch(cluster), gang);
    expect(racks(cluster, packed)).toEqual(['r0', 'r1']);
    const topo = topologyPlacement.place(new CapacityScratch(cluster), gang);
    expect(nodes(topo)).toEqual([2, 3]);
  });

  it('chooses the rack with the least free GPUs that fits (best fit), packing within it', () => {
    // r0 = n0, n1 all free (16); r1 = n2 (2 used), n3 free: 14 free. A 2 x 4 gang fits both racks.
    const cluster = new ClusterState(gpuCluster(4, 8, 2));
    occupy(cluster, 2, 2);
    const tasks = topologyPlacement.place(new CapacityScratch(cluster), request(workers(2, gpuDemand(4)), 'allreduce'));
    // Within r1, pack puts both on n3 (the node that takes the whole gang).
    expect(nodes(tasks)).toEqual([3, 3]);
  });

  it('falls back to the fewest racks when no rack can take the gang', () => {
    // Racks of 2: r0 = n0 (8 free), n1 (full); r1 = n2 (8), n3 (full); r2 = n4 (8), n5 (8).
    const cluster = new ClusterState(gpuCluster(6, 8, 2));
    occupy(cluster, 1, 8);
    occupy(cluster, 3, 8);
    const gang = request(workers(3, gpuDemand(8)), 'allreduce');
    expect(racks(cluster, packPlacement.place(new CapacityScratch(cluster), gang))).toEqual(['r0', 'r1', 'r2']);
    const tasks = topologyPlacement.place(new CapacityScratch(cluster), gang);
    expect(racks(cluster, tasks)).toEqual(['r0', 'r2']);
    expect(nodes(tasks).sort()).toEqual([0, 4, 5]);
  });

  it('keeps the workers in one rack and puts a chief elsewhere when the rack has no room for it', () => {
    // r1 = n2, n3: 8 GPUs each but only 4 cores free each, enough for the workers but not the chief.
    const cluster = new ClusterState(gpuCluster(4, 8, 2));
    occupy(cluster, 1, 4);
    for (const i of [2, 3]) {
      cluster.allocate(`cpu-${i}`, [{ role: 'worker', nodeIndex: i, gpuIndices: [], demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 92_000, memMiB: 1 } }]);
    }
    const gang: PlacementRequest = {
      jobId: 'j',
      jobKind: 'allreduce',
      gpuTypes: [],
      replicas: [...workers(2, gpuDemand(8)), { role: 'chief', demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 1024 } }],
    };
    const tasks = topologyPlacement.place(new CapacityScratch(cluster), gang)!;
    expect(racks(cluster, tasks)).toEqual(['r1']);
    expect(tasks.find((t) => t.role === 'chief')!.nodeIndex).toBeLessThan(2);
  });

  it('places other kinds exactly like pack', () => {
    const cluster = new ClusterState(gpuCluster(4, 8, 2));
    occupy(cluster, 0, 4);
    for (const kind of ['batch', 'ps', undefined] as const) {
      const r = request(workers(2, gpuDemand(8)), kind);
      expect(topologyPlacement.place(new CapacityScratch(cluster), r)).toEqual(packPlacement.place(new CapacityScratch(cluster), r));
    }
  });

  it('in the simulation: an all-reduce job straddling racks under pack finishes later (cross-rack slowdown)', () => {
    // 4 nodes in racks of 2. "filler" (4 GPUs, batch) lands on n0, leaving r0 with 4 + 8 free.
    // The 2 x 8 all-reduce job runs 1000 s in one rack, 1250 s across racks (slowdown 1.25).
    const jobs = [batchJob('filler', 0, 4, 10_000), rackJob('ring', 1, 2)];
    const run = (policy: string) => simulate(scenarioOf(gpuCluster(4, 8, 2), jobs, { policy }), { checkInvariants: true });
    const packed = run('fifo').jobs.find((j) => j.spec.id === 'ring')!;
    const topo = run('fifo-topology').jobs.find((j) => j.spec.id === 'ring')!;
    expect(packed.endS).toBeCloseTo(1251, 6);
    expect(topo.endS).toBeCloseTo(1001, 6);
    // The same request, planned on the cluster as it was at t=1, shows where each put it.
    const cluster = new ClusterState(gpuCluster(4, 8, 2));
    occupy(cluster, 0, 4);
    const r = placementRequestOf(rackJob('ring', 1, 2));
    expect(racks(cluster, packPlacement.place(new CapacityScratch(cluster), r))).toHaveLength(2);
    expect(racks(cluster, topologyPlacement.place(new CapacityScratch(cluster), r))).toEqual(['r1']);
  });
});
