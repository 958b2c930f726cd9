import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobRequest, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { queuedCandidate } from '../../src/policies/scheduling/drf.js';
import { capacityOf } from '../../src/policies/scheduling/drf-fill.js';
import { progressiveFill } from './drf-reference.js';
import type { PlacementPolicy } from '../../src/policies/types.js';

const DEMANDS: ReplicaDemand[] = [
  { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 },
  { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 },
  { gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 512 },
  { gpus: 0, gpuMilli: 1000, cpuMilli: 12_000, memMiB: 1024 },
];

/** Pack without its completeness claim: the fill then tries every job, as it did before skipping likes of a failed gang. */
const packTryingAll: PlacementPolicy = { name: 'pack', place: (scratch, request) => packPlacement.place(scratch, request) };

function requestOf(k: number, j: { demand: number; replicas: number; user: number; elastic: boolean }): JobRequest {
  const roles = [{ role: 'worker' as const, replicas: j.replicas, demand: DEMANDS[j.demand]! }];
  const elastic = j.elastic ? { minReplicas: 1, maxReplicas: j.replicas + 2, unit: 1 } : null;
  return { id: `j${k}`, kind: 'batch', submitS: k, user: `u${j.user}`, gpuTypes: [], roles, elastic, declaredSteps: null, targetLoss: null } as unknown as JobRequest;
}

describe('the whole-queue DRF fill the incremental one is held to', () => {
  it('gives the same grants whether or not it skips the likes of a gang that failed', () => {
    const jobArb = fc.record({ demand: fc.integer({ min: 0, max: DEMANDS.length - 1 }), replicas: fc.integer({ min: 1, max: 3 }), user: fc.integer({ min: 0, max: 3 }), elastic: fc.boolean() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(jobArb, { minLength: 1, maxLength: 30 }), (nodeCount, jobs) => {
        const nodes = Array.from({ length: nodeCount }, (_, i) => ({ name: `n${i}`, group: 'g', gpuType: i % 3 === 2 ? null : 'A', gpus: i % 3 === 2 ? 0 : 4, cpuMilli: 24_000, memMiB: 65_536, rack: 'r' }));
        const cluster = new ClusterState({ nodes });
        const fill = (placement: PlacementPolicy) => {
          const candidates = jobs.map((j, k) => queuedCandidate(requestOf(k, j)));
          const grants = progressiveFill(candidates, { capacity: capacityOf(cluster), weights: {}, usersHeld: new Map(), placement, scratch: new CapacityScratch(cluster) });
          return grants.map((g) => [g.candidate.request.id, g.tasks]);
        };
        expect(fill(packPlacement)).toEqual(fill(packTryingAll));
      }),
      { numRuns: 300 },
    );
  });
});
