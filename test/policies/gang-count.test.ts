import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { GangCount } from '../../src/policies/scheduling/gang-count.js';
import type { PlacementRequest } from '../../src/policies/types.js';
import { gpuCluster } from '../helpers.js';

/** A gang of `replicas` identical replicas of `demand`. */
function gang(replicas: number, demand: ReplicaDemand): PlacementRequest {
  return { jobId: 'g', replicas: Array.from({ length: replicas }, () => ({ role: 'worker', demand })), gpuTypes: [] };
}

/** True when the gang is placed on a scratch of the cluster with `given` handed back. */
function placesWith(cluster: ClusterState, given: readonly (readonly TaskPlacement[])[], request: PlacementRequest): boolean {
  const scratch = new CapacityScratch(cluster);
  for (const tasks of given) scratch.unreserve(tasks);
  return packPlacement.place(scratch, request) !== null;
}

/** A cluster of `nodes` 4-GPU nodes with one job a fill step placed (whole GPUs, or a share of one). */
function filled(nodes: number, jobs: readonly { gpus: number; share: boolean }[]): { cluster: ClusterState; held: TaskPlacement[][] } {
  const cluster = new ClusterState(gpuCluster(nodes, 4));
  const held: TaskPlacement[][] = [];
  jobs.forEach((job, k) => {
    const demand: ReplicaDemand = job.share ? { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 1024 } : { gpus: job.gpus, gpuMilli: 1000, cpuMilli: 2000 * job.gpus, memMiB: 1024 };
    const tasks = packPlacement.place(new CapacityScratch(cluster), gang(1, demand));
    if (tasks === null) return;
    cluster.allocate(`j${k}`, tasks);
    held.push(tasks);
  });
  return { cluster, held };
}

describe('GangCount', () => {
  it('says a gang fits exactly when placing it on the scratch with the given-back tasks does, through gives, takes and fitsWithout', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.record({ gpus: fc.integer({ min: 1, max: 4 }), share: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 6 }),
        fc.boolean(),
        (nodes, jobs, gpusEach, replicas, share) => {
          const { cluster, held } = filled(nodes, jobs);
          const demand: ReplicaDemand = share ? { gpus: 1, gpuMilli: 500, cpuMilli: 1000, memMiB: 512 } : { gpus: gpusEach, gpuMilli: 1000, cpuMilli: 1000, memMiB: 512 };
          const request = gang(replicas, demand);
          const count = GangCount.of(new CapacityScratch(cluster), packPlacement, request)!;
          expect(count).not.toBeNull();
          const given: TaskPlacement[][] = [];
          for (const tasks of held) {
            count.give(tasks);
            given.push(tasks);
            expect(count.fits()).toBe(placesWith(cluster, given, request));
          }
          // Each given job left out again, then taken back for good from the last.
          for (let i = 0; i < given.length; i++) {
            const others = given.filter((_, j) => j !== i);
            expect(count.fitsWithout(given[i]!)).toBe(placesWith(cluster, others, request));
          }
          while (given.length > 0) {
            count.take(given.pop()!);
            expect(count.fits()).toBe(placesWith(cluster, given, request));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses to be used once a newer count was made (they share their per-node store)', () => {
    const { cluster, held } = filled(2, [{ gpus: 4, share: false }, { gpus: 4, share: false }]);
    const request = gang(2, { gpus: 4, gpuMilli: 1000, cpuMilli: 1000, memMiB: 512 });
    const older = GangCount.of(new CapacityScratch(cluster), packPlacement, request)!;
    older.give(held[0]!);
    const newer = GangCount.of(new CapacityScratch(cluster), packPlacement, request)!;
    newer.give(held[0]!);
    newer.give(held[1]!);
    expect(newer.fits()).toBe(true);
    expect(() => older.give(held[1]!)).toThrow(InvariantError);
    expect(() => older.fitsWithout(held[0]!)).toThrow(InvariantError);
  });
});
