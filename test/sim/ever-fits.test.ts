import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { firstFitPlacement } from '../../src/policies/placement/first-fit.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { placementRequestOf, type PlacementPolicy } from '../../src/policies/types.js';
import { requestOf } from '../../src/model/job-spec.js';
import { EverFits } from '../../src/sim/ever-fits.js';

const TYPES = ['A', 'B'] as const;

// Few hardware kinds, repeated: what the count over kinds relies on.
const nodeArb = fc.record({
  gpuType: fc.constantFrom<string | null>(null, ...TYPES),
  gpus: fc.constantFrom(0, 1, 2, 4, 8),
  cores: fc.constantFrom(8, 16, 32, 64),
  memGiB: fc.constantFrom(16, 64, 256),
});

const demandArb: fc.Arbitrary<ReplicaDemand> = fc.oneof(
  fc.record({ gpus: fc.constant(0), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 1, max: 64 }).map((c) => c * 1000), memMiB: fc.integer({ min: 1, max: 300 }).map((g) => g * 1024) }),
  fc.record({ gpus: fc.constantFrom(1, 2, 4, 8), gpuMilli: fc.constant(1000), cpuMilli: fc.integer({ min: 0, max: 40 }).map((c) => c * 1000), memMiB: fc.integer({ min: 1, max: 100 }).map((g) => g * 1024) }),
  fc.record({ gpus: fc.constant(1), gpuMilli: fc.integer({ min: 1, max: 9 }).map((m) => m * 100), cpuMilli: fc.integer({ min: 0, max: 16 }).map((c) => c * 1000), memMiB: fc.constant(512) }),
);

function nodesOf(specs: readonly { gpuType: string | null; gpus: number; cores: number; memGiB: number }[]): NodeSpec[] {
  return specs.map((s, i) => {
    const gpus = s.gpuType === null ? 0 : s.gpus;
    return { name: `n${i}`, group: 'g', gpuType: gpus === 0 ? null : s.gpuType, gpus, cpuMilli: s.cores * 1000, memMiB: s.memGiB * 1024, rack: `r${i % 2}` };
  });
}

function specOf(demand: ReplicaDemand, replicas: number, gpuTypes: string[], ps: ReplicaDemand | null): JobSpec {
  const roles = [...(ps ? [{ role: 'ps' as const, replicas: 1, demand: ps }] : []), { role: 'worker' as const, replicas, demand }];
  return { id: 'j', kind: 'batch', submitS: 0, user: '', gpuTypes, roles, elastic: null, totalSteps: 10, speed: { kind: 'fixed' }, source: 'test' };
}

describe('whether a job ever fits the empty cluster', () => {
  for (const policy of [packPlacement, spreadPlacement, firstFitPlacement] as PlacementPolicy[]) {
    it(`under ${policy.name}, counting room over the node kinds says what placing into the empty cluster says`, () => {
      fc.assert(
        fc.property(
          fc.array(nodeArb, { minLength: 1, maxLength: 10 }),
          fc.array(fc.record({ demand: demandArb, replicas: fc.integer({ min: 1, max: 24 }), gpuTypes: fc.constantFrom<string[]>([], ['A'], ['B']), ps: fc.option(demandArb, { nil: null }) }), { minLength: 1, maxLength: 12 }),
          (specs, jobs) => {
            const cluster = { nodes: nodesOf(specs) };
            const everFits = new EverFits(cluster, policy);
            for (const j of jobs) {
              const spec = specOf(j.demand, j.replicas, j.gpuTypes, j.ps);
              const request = placementRequestOf(requestOf(spec));
              const placed = policy.place(new CapacityScratch(new ClusterState(cluster)), request) !== null;
              expect(everFits.fits(spec, request)).toBe(placed);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('does not place a gang that enough empty nodes each taking any one of its replicas surely hold', () => {
    let placements = 0;
    const counted: PlacementPolicy = { ...packPlacement, place: (scratch, request) => (placements++, packPlacement.place(scratch, request)) };
    const cluster = { nodes: nodesOf(Array.from({ length: 6 }, () => ({ gpuType: 'A', gpus: 8, cores: 64, memGiB: 256 }))) };
    const everFits = new EverFits(cluster, counted);
    const ps: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 };
    const worker = (gpus: number): ReplicaDemand => ({ gpus, gpuMilli: 1000, cpuMilli: 8000, memMiB: 4096 });
    // Five replicas (a PS and four workers), six nodes that each take either: no placement needed.
    expect(everFits.fits(specOf(worker(2), 4, [], ps), null)).toBe(true);
    expect(placements).toBe(0);
    // Nine replicas on six nodes: placed to be sure (they fit, two workers a node).
    expect(everFits.fits(specOf(worker(4), 8, [], ps), null)).toBe(true);
    expect(placements).toBe(1);
    // Workers of a GPU model the nodes lack: no node takes them.
    expect(everFits.fits(specOf(worker(1), 2, ['B'], ps), null)).toBe(false);
    expect(placements).toBe(2);
  });
});
