import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { firstFitPlacement } from '../../src/policies/placement/first-fit.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { createFifo } from '../../src/policies/scheduling/fifo.js';
import { placementRequestOf, type JobView, type PlacementPolicy, type SchedulingAction, type WaitExplainer } from '../../src/policies/types.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf, withoutViews } from '../helpers.js';
import { PassDriver, stepArb, type FakeJob } from './pass-steps.js';

function startTimes(result: ReturnType<typeof simulate>): Record<string, number | null> {
  return Object.fromEntries(result.jobs.map((j) => [j.spec.id, j.firstStartS]));
}

describe('fifo scheduling', () => {
  it('blocks jobs behind a head job that does not fit (head-of-line blocking)', () => {
    // 2 nodes x 8 GPUs. "big" holds 12 GPUs; "gang" needs 2x8 and waits for it; "small" (1 GPU)
    // would fit beside "big" but must wait behind "gang".
    const jobs = [
      batchJob('big', 0, 4, 100, 3),
      batchJob('gang', 10, 8, 50, 2),
      batchJob('small', 20, 1, 10),
    ];
    const result = simulate(scenarioOf(gpuCluster(2, 8), jobs), { checkInvariants: true });
    expect(startTimes(result)).toEqual({ big: 0, gang: 100, small: 150 });
    expect(result.jobs.map((j) => j.endS)).toEqual([100, 150, 160]);
  });

  it('starts a gang only with all its replicas at once', () => {
    // 3 nodes; a 3x8 gang arrives while one node is busy: it must not start partially.
    const jobs = [batchJob('busy', 0, 8, 30), batchJob('gang', 5, 8, 20, 3)];
    const result = simulate(scenarioOf(gpuCluster(3, 8), jobs), { checkInvariants: true });
    expect(startTimes(result)).toEqual({ busy: 0, gang: 30 });
    expect(result.jobs[1]!.gpusWhenRunning).toBe(24);
  });

  it('starts every job that fits in arrival order at the same instant', () => {
    const jobs = [batchJob('a', 0, 4, 10), batchJob('b', 0, 4, 10), batchJob('c', 0, 4, 10)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs), { checkInvariants: true });
    expect(startTimes(result)).toEqual({ a: 0, b: 0, c: 10 });
  });

  it('fails a job that could never fit the installed cluster instead of blocking the queue', () => {
    const jobs = [batchJob('huge', 0, 8, 10, 3), batchJob('ok', 1, 8, 10)];
    const result = simulate(scenarioOf(gpuCluster(2, 8), jobs));
    expect(result.jobs[0]!.phase).toBe('failed');
    expect(result.jobs[0]!.failureReason).toBe('unschedulable');
    expect(startTimes(result)).toEqual({ huge: null, ok: 1 });
    expect(result.summary.jobs).toEqual({ submitted: 2, completed: 1, failed: 1, unfinished: 0 });
  });
});

describe('fifo with backfilling', () => {
  it('starts a later job that fits while the head job waits, where strict fifo blocks it', () => {
    // "big" holds 12 of 16 GPUs; "gang" (2x8) waits for it; "small" (1 GPU) fits beside "big".
    const jobs = [batchJob('big', 0, 4, 100, 3), batchJob('gang', 10, 8, 50, 2), batchJob('small', 20, 1, 10)];
    const backfilled = simulate(scenarioOf(gpuCluster(2, 8), jobs, { policy: 'fifo-backfill' }), { checkInvariants: true });
    expect(startTimes(backfilled)).toEqual({ big: 0, gang: 100, small: 20 });
    const strict = simulate(scenarioOf(gpuCluster(2, 8), jobs), { checkInvariants: true });
    expect(startTimes(strict)).toEqual({ big: 0, gang: 100, small: 150 });
  });

  it('is fifo with the backfill option, from a scenario', () => {
    const jobs = [batchJob('big', 0, 4, 100, 3), batchJob('gang', 10, 8, 50, 2), batchJob('small', 20, 1, 10)];
    const viaOption = simulate(scenarioOf(gpuCluster(2, 8), jobs, { policies: { scheduling: { name: 'fifo', options: { backfill: true } } } }), { checkInvariants: true });
    expect(startTimes(viaOption)).toEqual({ big: 0, gang: 100, small: 20 });
  });
});

/** Strict FIFO as a plain walk: every pass tries the queue from its head and stops at the first job that does not fit. */
function headFirst(queued: readonly FakeJob[], placement: PlacementPolicy, scratch: CapacityScratch): { actions: SchedulingAction[]; blocked: FakeJob | null } {
  const actions: SchedulingAction[] = [];
  for (const job of queued) {
    const tasks = placement.place(scratch, placementRequestOf(job.request));
    if (tasks === null) return { actions, blocked: job };
    actions.push({ kind: 'start', jobId: job.request.id, tasks });
  }
  return { actions, blocked: null };
}

describe('fifo: a blocked head is not tried again until a node it could use grows', () => {
  // Tries saved over all runs of a placement: the property must meet blocked heads it skips.
  const saved = new Map<string, number>();
  for (const placement of [packPlacement, spreadPlacement, topologyPlacement, firstFitPlacement]) {
    it(`starts exactly the jobs a walk from the head starts, pass after pass, and diagnoses the blocked head at each (${placement.name})`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 8 }), fc.array(stepArb, { minLength: 1, maxLength: 40 }), (nodeCount, steps) => {
          const driver = new PassDriver(nodeCount);
          const fifo = createFifo();
          let tries = 0;
          const counted: PlacementPolicy = { ...placement, place: (scratch, request) => (tries++, placement.place(scratch, request)) };
          let diagnosed: string[] = [];
          const why = {
            unplaced: (job: JobView) => (diagnosed.push(job.request.id), 'no-gpus'),
            others: () => {},
          } as unknown as WaitExplainer;
          for (const step of [...steps, { kind: 'pass' as const }]) {
            if (step.kind !== 'pass') driver.apply(step);
            const expected = headFirst(driver.queued, placement, new CapacityScratch(driver.cluster));
            const walkTries = expected.actions.length + (expected.blocked === null ? 0 : 1);
            tries = 0;
            diagnosed = [];
            const actual = fifo.schedule({ ...driver.context(counted), why });
            expect(withoutViews(actual)).toEqual(expected.actions);
            expect(diagnosed).toEqual(expected.blocked === null ? [] : [expected.blocked.request.id]);
            expect(tries).toBeLessThanOrEqual(walkTries);
            saved.set(placement.name, (saved.get(placement.name) ?? 0) + walkTries - tries);
            driver.startAll(actual);
          }
        }),
        { numRuns: 250 },
      );
      // Only a placement complete for identical replicas lets a failed head stand for its next tries.
      expect((saved.get(placement.name) ?? 0) > 0).toBe(placement.completeForIdentical === true);
    });
  }
});
