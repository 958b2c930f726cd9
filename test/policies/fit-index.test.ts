import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import type { PlacementPolicy, PlacementRequest } from '../../src/policies/types.js';
import { diagnoseUnplaced } from '../../src/policies/wait-diagnosis.js';

/** The same scratch, made to answer by scanning every node instead of reading the fit index, and to score every node on its own. */
class ScanningScratch extends CapacityScratch {
  override get indexed(): boolean {
    return false;
  }

  override emptyNodeKind(): number {
    return -1;
  }
}

const TYPES = ['A', 'B'] as const;

const nodeArb = fc.record({
  gpuType: fc.constantFrom<string | null>(null, ...TYPES),
  gpus: fc.constantFrom(0, 1, 2, 4, 8),
  // Often one of a few sizes, so that empty nodes of one hardware kind meet.
  cores: fc.oneof(fc.constantFrom(16, 64), fc.integer({ min: 4, max: 64 })),
});

const demandArb: fc.Arbitrary<ReplicaDemand> = fc.oneof(
  fc.record({ gpus: fc.constant(0), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 1, max: 32 }).map((c) => c * 1000), memMiB: fc.constant(1024) }),
  fc.record({ gpus: fc.constantFrom(1, 2, 4, 8), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 0, max: 16 }).map((c) => c * 1000), memMiB: fc.constant(1024) }),
  fc.record({ gpus: fc.constant(1), gpuMilli: fc.integer({ min: 1, max: 9 }).map((m) => m * 100), cpuMilli: fc.integer({ min: 0, max: 8 }).map((c) => c * 1000), memMiB: fc.constant(512) }),
);

const requestArb = fc.record({
  demand: demandArb,
  replicas: fc.integer({ min: 1, max: 3 }),
  gpuTypes: fc.constantFrom<string[]>([], ['A'], ['B'], ['A', 'B']),
  // Parameter servers (CPU-only) before the workers: none, one, or several (a gang of mixed shapes).
  ps: fc.constantFrom(0, 0, 1, 2, 3),
});

function nodesOf(specs: readonly { gpuType: string | null; gpus: number; cores: number }[]): NodeSpec[] {
  return specs.map((s, i) => {
    const gpus = s.gpuType === null ? 0 : s.gpus;
    return { name: `n${i}`, group: 'g', gpuType: gpus === 0 ? null : s.gpuType, gpus, cpuMilli: s.cores * 1000, memMiB: 65_536, rack: `r${i % 2}` };
  });
}

const PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 1024 };

/** A gang of identical workers, with `ps` CPU-only parameter servers first (a gang of mixed shapes). */
function requestOf(id: string, r: { demand: ReplicaDemand; replicas: number; gpuTypes: string[]; ps?: number }): PlacementRequest {
  const workers = Array.from({ length: r.replicas }, () => ({ role: 'worker' as const, demand: r.demand }));
  const ps = Array.from({ length: r.ps ?? 0 }, () => ({ role: 'ps' as const, demand: PS_DEMAND }));
  return { jobId: id, gpuTypes: r.gpuTypes, replicas: [...ps, ...workers] };
}

/** A cluster's nodes, the jobs already running on it, the nodes then closed, and the requests one pass takes in turn. */
const passArbs = [
  fc.array(nodeArb, { minLength: 1, maxLength: 12 }),
  fc.array(requestArb, { maxLength: 8 }),
  fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
  fc.array(requestArb, { minLength: 1, maxLength: 24 }),
] as const;

describe('best fit and worst fit through the fit index', () => {
  // Made newest, the indexed scratch passes over its own nodes by its stamps; made first, by its maps.
  for (const [policy, indexedNewest] of [packPlacement, spreadPlacement].flatMap((p) => [[p, true], [p, false]] as [PlacementPolicy, boolean][])) {
    it(`${policy.name} places every request on the nodes a scan of the cluster picks, whatever the cluster and the scratch hold (indexed scratch made ${indexedNewest ? 'last' : 'first'})`, () => {
      fc.assert(
        fc.property(
          ...passArbs,
          (specs, held, cordoned, asked) => {
            const cluster = new ClusterState({ nodes: nodesOf(specs) });
            // Jobs already running (placed by the policy itself), then some nodes closed.
            held.forEach((r, k) => {
              const tasks = policy.place(new ScanningScratch(cluster), requestOf(`held${k}`, r));
              if (tasks) cluster.allocate(`held${k}`, tasks);
            });
            for (const i of cordoned) if (i < specs.length) cluster.setNodeHealth(i, i % 2 === 0 ? 'cordoned' : 'down');
            // One pass: both scratches take the same requests in turn; a foreseen closure half way.
            const scannedFirst = indexedNewest ? new ScanningScratch(cluster) : null;
            const indexed = new CapacityScratch(cluster);
            const scanned = scannedFirst ?? new ScanningScratch(cluster);
            asked.forEach((r, k) => {
              if (k === 3) for (const s of [indexed, scanned]) s.setSchedulable(0, !s.schedulable(0));
              // A running job the plan stops: its tasks are free in the scratch, not yet in the cluster.
              const stopped = cluster.tasksOf(`held${k}`);
              if (stopped && k % 2 === 0) for (const s of [indexed, scanned]) s.unreserve(stopped);
              const a = policy.place(indexed, requestOf(`ask${k}`, r));
              const b = policy.place(scanned, requestOf(`ask${k}`, r));
              expect(a).toEqual(b);
              // A released gang frees its nodes again in both.
              if (a && k % 3 === 1) {
                indexed.unreserve(a);
                scanned.unreserve(b!);
              }
            });
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  for (const policy of [packPlacement, spreadPlacement]) {
    it(`${policy.name} places and diagnoses every request alike whether the fit index groups GPU nodes by model or keeps all in one group`, () => {
      fc.assert(
        fc.property(
          ...passArbs,
          (specs, held, cordoned, asked) => {
            // One cluster of each grouping, holding the same jobs, with the same nodes closed.
            const byModel = new ClusterState({ nodes: nodesOf(specs) });
            const oneGroup = new ClusterState({ nodes: nodesOf(specs) });
            oneGroup.groupFitByGpuModel(false);
            held.forEach((r, k) => {
              const tasks = policy.place(new CapacityScratch(byModel), requestOf(`held${k}`, r));
              expect(policy.place(new CapacityScratch(oneGroup), requestOf(`held${k}`, r))).toEqual(tasks);
              if (tasks) for (const cluster of [byModel, oneGroup]) cluster.allocate(`held${k}`, tasks);
            });
            for (const i of cordoned) if (i < specs.length) for (const cluster of [byModel, oneGroup]) cluster.setNodeHealth(i, i % 2 === 0 ? 'cordoned' : 'down');
            // One pass each: requests naming models (which the single group holds with the others) and not.
            const a = new CapacityScratch(byModel);
            const b = new CapacityScratch(oneGroup);
            asked.forEach((r, k) => {
              const request = requestOf(`ask${k}`, r);
              const placed = policy.place(a, request);
              expect(policy.place(b, request)).toEqual(placed);
              if (placed === null) expect(diagnoseUnplaced(b, policy, request)).toBe(diagnoseUnplaced(a, policy, request));
            });
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('scores an empty node that a gang\'s walk passed over as its kind, not as the parameter servers alone would', () => {
    // Two empty nodes of one kind (the walk scores the lower one for both) and a small CPU node.
    // Workers come first and take 16 cores each: an empty node takes 2 workers and no parameter
    // server, though it would take 3 parameter servers alone, and the CPU node takes 2 of them.
    const cluster = new ClusterState({ nodes: nodesOf([{ gpuType: 'A', gpus: 8, cores: 32 }, { gpuType: 'A', gpus: 8, cores: 32 }, { gpuType: null, gpus: 0, cores: 5 }]) });
    const worker = { role: 'worker' as const, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 } };
    const ps = { role: 'ps' as const, demand: PS_DEMAND };
    const gang: PlacementRequest = { jobId: 'g', gpuTypes: [], replicas: [worker, worker, ps, ps, ps] };
    const indexed = packPlacement.place(new CapacityScratch(cluster), gang);
    expect(indexed).toEqual(packPlacement.place(new ScanningScratch(cluster), gang));
    // The most replicas a node takes is 2, and of those taking 2 the CPU node is left with the least GPU.
    expect(indexed!.map((t) => `${t.role}@${t.nodeIndex}`).sort()).toEqual(['ps@1', 'ps@2', 'ps@2', 'worker@0', 'worker@0']);
  });

  it('answers for the cluster as it is now after tasks end and nodes return', () => {
    const cluster = new ClusterState({ nodes: nodesOf([{ gpuType: 'A', gpus: 8, cores: 64 }, { gpuType: 'A', gpus: 8, cores: 64 }]) });
    const one = { demand: { gpus: 4, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 }, replicas: 1, gpuTypes: [], ps: 0 };
    const first = packPlacement.place(new CapacityScratch(cluster), requestOf('a', one))!;
    cluster.allocate('a', first);
    // Best fit: the next 4-GPU task goes to the same, fuller node.
    expect(packPlacement.place(new CapacityScratch(cluster), requestOf('b', one))![0]!.nodeIndex).toBe(first[0]!.nodeIndex);
    cluster.setNodeHealth(first[0]!.nodeIndex, 'down');
    expect(packPlacement.place(new CapacityScratch(cluster), requestOf('b', one))![0]!.nodeIndex).not.toBe(first[0]!.nodeIndex);
    cluster.setNodeHealth(first[0]!.nodeIndex, 'up');
    cluster.release('a');
    expect(packPlacement.place(new CapacityScratch(cluster), requestOf('b', one))![0]!.nodeIndex).toBe(0);
  });
});
