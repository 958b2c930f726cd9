import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestOf, type JobRequest } from '../../src/model/job-spec.js';
import { ShapeIds, sameGang } from '../../src/model/shape-ids.js';
import { shapeSignature } from '../../src/policies/scheduling/tetris-class.js';
import { batchJob } from '../helpers.js';

/** Requests from a few kinds, GPU models, roles and demands, so that gangs repeat and differ by one field. */
const request = fc
  .record({
    kind: fc.constantFrom('allreduce' as const, 'ps' as const),
    gpuTypes: fc.constantFrom([], ['V100'], ['V100', 'T4'], ['T4', 'V100']),
    workers: fc.integer({ min: 1, max: 3 }),
    ps: fc.integer({ min: 0, max: 2 }),
    gpus: fc.constantFrom(0, 1, 2),
    gpuMilli: fc.constantFrom(250, 500, 1000),
    cpuMilli: fc.constantFrom(1000, 1500, 1500.5, 4000),
    memMiB: fc.constantFrom(1024, 2048),
  })
  .map(({ kind, gpuTypes, workers, ps, gpus, gpuMilli, cpuMilli, memMiB }): JobRequest => {
    const worker = { role: 'worker' as const, replicas: workers, demand: { gpus, gpuMilli: gpus === 0 ? 0 : gpuMilli, cpuMilli, memMiB } };
    const roles = kind === 'ps' ? [worker, { role: 'ps' as const, replicas: ps, demand: { gpus: 0, gpuMilli: 0, cpuMilli: 2000, memMiB } }] : [worker];
    return requestOf({ ...batchJob('j', 0, 1, 60), kind, gpuTypes, roles });
  });

describe('ShapeIds', () => {
  it('numbers two requests alike exactly when their gangs are written alike', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 60 }), (requests) => {
        const ids = new ShapeIds();
        const numbered = requests.map((r) => ids.idOf(r));
        for (let a = 0; a < requests.length; a++) {
          for (let b = 0; b < requests.length; b++) {
            const alike = shapeSignature(requests[a]!) === shapeSignature(requests[b]!);
            expect(numbered[a] === numbered[b]).toBe(alike);
            expect(sameGang(requests[a]!, requests[b]!)).toBe(alike);
          }
        }
        // Numbers are handed out from 0, one per gang seen.
        expect(ids.size).toBe(new Set(requests.map(shapeSignature)).size);
        expect(Math.max(...numbered)).toBe(ids.size - 1);
      }),
      { numRuns: 200 },
    );
  });

  it('numbers alike requests that share one list of roles (as a generated trace\'s jobs do) exactly when their gangs are written alike', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 6 }),
        fc.array(fc.record({ from: fc.nat(), kind: fc.constantFrom('allreduce' as const, 'ps' as const), gpuTypes: fc.constantFrom([], ['V100'], ['V100', 'T4'], ['T4', 'V100']) }), { minLength: 1, maxLength: 60 }),
        (pool, picks) => {
          // Each request takes the very roles list of one of the pool's, with a kind and GPU models of its own.
          const requests = picks.map(({ from, kind, gpuTypes }) => ({ kind, gpuTypes: [...gpuTypes], roles: pool[from % pool.length]!.roles }) as unknown as JobRequest);
          const ids = new ShapeIds();
          const numbered = requests.map((r) => ids.idOf(r));
          // Asked again, in another order: the same numbers.
          expect([...requests].reverse().map((r) => ids.idOf(r))).toEqual([...numbered].reverse());
          for (let a = 0; a < requests.length; a++) {
            for (let b = 0; b < requests.length; b++) expect(numbered[a] === numbered[b]).toBe(shapeSignature(requests[a]!) === shapeSignature(requests[b]!));
          }
          expect(ids.size).toBe(new Set(requests.map(shapeSignature)).size);
        },
      ),
      { numRuns: 300 },
    );
  });
});
