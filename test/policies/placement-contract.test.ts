import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { ClusterSpec, NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand, Role } from '../../src/model/job-spec.js';
import { policyEntry, policyIds } from '../../src/policies/registry.js';
import type { PlacementRequest, ReplicaRequest } from '../../src/policies/types.js';
import { TEST_HANDLE } from '../helpers.js';

const GiB = 1024;

function node(name: string, rack: string, gpuType: string | null, gpus: number, cores: number, memGiB: number): NodeSpec {
  return { name, group: name.split('-')[0]!, gpuType, gpus, cpuMilli: cores * 1000, memMiB: memGiB * GiB, rack };
}

/** Two racks of mixed nodes: A100 and V100 GPU nodes and a CPU node. */
const clusterSpec: ClusterSpec = {
  nodes: [
    node('a100-0', 'r0', 'A100', 8, 64, 512),
    node('a100-1', 'r0', 'A100', 8, 64, 512),
    node('v100-0', 'r1', 'V100', 4, 32, 256),
    node('v100-1', 'r1', 'V100', 4, 32, 256),
    node('cpu-0', 'r1', null, 0, 32, 128),
  ],
};

const gpu = (gpus: number, cores = 4, memGiB = 16, gpuMilli = 1000): ReplicaDemand => ({ gpus, gpuMilli, cpuMilli: cores * 1000, memMiB: memGiB * GiB });
const cpu = (cores: number, memGiB = 4): ReplicaDemand => ({ gpus: 0, gpuMilli: 1000, cpuMilli: cores * 1000, memMiB: memGiB * GiB });

function replicas(count: number, demand: ReplicaDemand, role: Role = 'worker'): ReplicaRequest[] {
  return Array.from({ length: count }, () => ({ role, demand }));
}

function req(jobId: string, jobKind: PlacementRequest['jobKind'], list: ReplicaRequest[], gpuTypes: string[] = []): PlacementRequest {
  return { jobId, jobKind, gpuTypes, replicas: list };
}

/** A busy cluster: a shared GPU, a partly used A100 node, and a cordoned V100 node. */
function busyCluster(): ClusterState {
  const cluster = new ClusterState(clusterSpec);
  cluster.allocate('shared', [{ role: 'worker', nodeIndex: 1, gpuIndices: [0], demand: gpu(1, 2, 8, 500) }]);
  cluster.allocate('half', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2], demand: gpu(3, 24, 128) }]);
  cluster.setNodeHealth(3, 'cordoned');
  return cluster;
}

/** A mixed sequence of requests, planned one after another in one scratch. */
const sequence: PlacementRequest[] = [
  req('one', 'batch', replicas(1, gpu(1))),
  req('ring', 'allreduce', replicas(2, gpu(4, 8, 32))),
  req('v100', 'batch', replicas(1, gpu(2)), ['V100']),
  req('shares', 'batch', replicas(3, gpu(1, 1, 4, 300))),
  req('cpu', 'batch', replicas(2, cpu(8, 16))),
  req('ps', 'ps', [...replicas(2, gpu(1, 4, 16)), ...replicas(1, cpu(4, 32), 'ps')]),
  req('chief', 'allreduce', [...replicas(2, gpu(1)), ...replicas(1, cpu(2), 'chief')]),
  req('too-big', 'allreduce', replicas(4, gpu(8))),
  req('wide', 'batch', replicas(6, gpu(1, 2, 8))),
  req('a100', 'batch', replicas(1, gpu(1, 1, 4, 400)), ['A100']),
  req('fill', 'batch', replicas(8, cpu(4, 8))),
];

/** Free resources of every node and the whole-GPU total, as the scratch sees them. */
function scratchSnapshot(scratch: CapacityScratch): string {
  return JSON.stringify({ nodes: scratch.nodes.map((_, i) => scratch.free(i)), whole: scratch.freeWholeGpusTotal });
}

function sameDemand(a: ReplicaDemand, b: ReplicaDemand): boolean {
  return a.gpus === b.gpus && a.gpuMilli === b.gpuMilli && a.cpuMilli === b.cpuMilli && a.memMiB === b.memMiB;
}

describe.each(policyIds('placement'))('placement policy %s (contract)', (name) => {
  const policy = policyEntry('placement', name)!.create(TEST_HANDLE, {});

  /** Plans the whole sequence in one scratch over a fresh busy cluster. */
  function planSequence(): { cluster: ClusterState; results: (TaskPlacement[] | null)[] } {
    const cluster = busyCluster();
    const scratch = new CapacityScratch(cluster);
    return { cluster, results: sequence.map((r) => policy.place(scratch, r)) };
  }

  it('returns exactly the requested replicas, on schedulable allowed nodes, within capacity', () => {
    const { cluster, results } = planSequence();
    let placed = 0;
    results.forEach((tasks, k) => {
      const request = sequence[k]!;
      if (tasks === null) return;
      placed++;
      expect(tasks).toHaveLength(request.replicas.length);
      const wanted = [...request.replicas];
      for (const task of tasks) {
        const at = wanted.findIndex((r) => r.role === task.role && sameDemand(r.demand, task.demand));
        expect(at, `${request.jobId}: unexpected ${task.role} task`).toBeGreaterThanOrEqual(0);
        wanted.splice(at, 1);
        const n = cluster.nodes[task.nodeIndex]!;
        expect(cluster.schedulable(task.nodeIndex)).toBe(true);
        expect(task.gpuIndices).toHaveLength(task.demand.gpus);
        if (task.demand.gpus > 0) {
          expect(n.gpus).toBeGreaterThan(0);
          if (request.gpuTypes.length > 0) expect(request.gpuTypes).toContain(n.gpuType);
        }
      }
    });
    // The busy cluster leaves room for most of the sequence; the 32-GPU request never fits.
    expect(placed).toBeGreaterThanOrEqual(7);
    expect(results[sequence.findIndex((r) => r.jobId === 'too-big')]).toBeNull();
    // Applied to the real cluster (which checks every allocation), nothing is over-allocated.
    results.forEach((tasks, k) => {
      if (tasks) cluster.allocate(sequence[k]!.jobId, tasks);
    });
    cluster.checkInvariants();
  });

  it('returns null and leaves the scratch unchanged when the gang does not fit', () => {
    const cluster = busyCluster();
    const scratch = new CapacityScratch(cluster);
    // Reserve something first so some nodes are copied in the scratch.
    expect(policy.place(scratch, req('first', 'batch', replicas(2, cpu(1, 1))))).not.toBeNull();
    expect(scratch.freeWholeGpusTotal).toBe(16);
    const failing = [
      // 16 whole GPUs are free (5 + 7 + 4), enough by count for 3 x 5, but only two nodes hold 5:
      // a policy reserves two replicas before it finds no room for the third.
      req('three-fives', 'batch', replicas(3, gpu(5))),
      req('three-fives-ring', 'allreduce', replicas(3, gpu(5))),
      // The workers fit but the chief's memory does not fit anywhere.
      req('fat-chief', 'allreduce', [...replicas(2, gpu(2)), ...replicas(1, cpu(1, 600), 'chief')]),
      req('fat-ps', 'ps', [...replicas(3, gpu(1)), ...replicas(1, cpu(1, 600), 'ps')]),
      // No such GPU model; no GPU share that large left on a shared GPU once whole GPUs are gone.
      req('h100', 'batch', replicas(1, gpu(1)), ['H100']),
      req('cores', 'batch', replicas(3, cpu(60))),
    ];
    for (const request of failing) {
      const before = scratchSnapshot(scratch);
      expect(policy.place(scratch, request), request.jobId).toBeNull();
      expect(scratchSnapshot(scratch), request.jobId).toBe(before);
    }
  });

  it('honours gpuTypes and never gives a GPU share more than the GPU has left', () => {
    const cluster = busyCluster();
    const scratch = new CapacityScratch(cluster);
    const v100 = policy.place(scratch, req('v', 'batch', replicas(2, gpu(1)), ['V100']))!;
    expect(v100.map((t) => cluster.nodes[t.nodeIndex]!.name)).toEqual(['v100-0', 'v100-0']);
    // Only v100-0 takes V100 work (v100-1 is cordoned): 2 GPUs left there, so 3 more do not fit.
    expect(policy.place(scratch, req('v3', 'batch', replicas(3, gpu(1)), ['V100']))).toBeNull();
    // A one-GPU node with 500 and 300 milli left: 600 fits nowhere, 400 only on GPU 0.
    const small = new ClusterState({ nodes: [node('s-0', 'r0', 'T4', 2, 16, 64)] });
    small.allocate('x', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0], demand: gpu(1, 1, 1, 500) }]);
    small.allocate('y', [{ role: 'worker', nodeIndex: 0, gpuIndices: [1], demand: gpu(1, 1, 1, 700) }]);
    const shares = new CapacityScratch(small);
    expect(policy.place(shares, req('big-share', 'batch', replicas(1, gpu(1, 1, 1, 600))))).toBeNull();
    const fits = policy.place(shares, req('share', 'batch', replicas(1, gpu(1, 1, 1, 400))))!;
    expect(fits.map((t) => t.gpuIndices)).toEqual([[0]]);
    const two = policy.place(shares, req('two', 'batch', replicas(2, gpu(1, 1, 1, 100))))!;
    small.allocate('share', fits);
    small.allocate('two', two);
    small.checkInvariants();
    // 200 milli are left in all (800 - 400 - 2 x 100), so no GPU has 250.
    expect(policy.place(shares, req('none-left', 'batch', replicas(1, gpu(1, 1, 1, 250))))).toBeNull();
  });

  it('is deterministic', () => {
    expect(JSON.stringify(planSequence().results)).toBe(JSON.stringify(planSequence().results));
  });
});

/** The placement policies that say they fail only when no node takes one more replica. */
const neverStranding = policyIds('placement').filter((name) => policyEntry('placement', name)!.create(TEST_HANDLE, {}).failsOnlyWhenNoNodeTakesOne === true);

describe.each(neverStranding)('placement policy %s (contract: fails only when no node takes one more replica)', (name) => {
  const policy = policyEntry('placement', name)!.create(TEST_HANDLE, {});

  it('places every gang with at least as many nodes as replicas that each take any one of them', () => {
    const demands = [gpu(1), gpu(2, 8, 32), gpu(4, 8, 32), gpu(1, 1, 4, 300), cpu(4, 8), cpu(16, 64)];
    fc.assert(
      fc.property(
        fc.array(fc.record({ demand: fc.constantFrom(...demands), count: fc.integer({ min: 1, max: 4 }), role: fc.constantFrom<Role>('worker', 'ps', 'chief') }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom<string[]>([], ['A100'], ['V100']),
        (groups, gpuTypes) => {
          const request = req('g', 'batch', groups.flatMap((g) => replicas(g.count, g.demand, g.role)), gpuTypes);
          const scratch = new CapacityScratch(busyCluster());
          const takesAny = (i: number): boolean =>
            scratch.schedulable(i) && request.replicas.every((r) => (r.demand.gpus === 0 || (scratch.nodes[i]!.gpuType !== null && (gpuTypes.length === 0 || gpuTypes.includes(scratch.nodes[i]!.gpuType!)))) && scratch.fitCount(i, r.demand) >= 1);
          const nodes = scratch.nodes.filter((_, i) => takesAny(i)).length;
          fc.pre(nodes >= request.replicas.length);
          expect(policy.place(scratch, request)).not.toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
