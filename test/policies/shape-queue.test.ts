import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { topologyPlacement } from '../../src/policies/placement/topology.js';
import { EMPTY_CLASSES_KEPT, ShapeQueue } from '../../src/policies/scheduling/shape-queue.js';
import { placementRequestOf, type JobView, type PlacementPolicy, type SchedulingAction } from '../../src/policies/types.js';
import { withoutViews } from '../helpers.js';
import { PassDriver, stepArb, type FakeJob } from './pass-steps.js';

/** The pass every backfilling policy used to run: sort the whole queue, try every job in order. */
function walkWholeQueue(queued: readonly FakeJob[], placement: PlacementPolicy, scratch: CapacityScratch): SchedulingAction[] {
  const order = [...queued].sort((a, b) => a.rank - b.rank || a.queuePosition - b.queuePosition);
  const actions: SchedulingAction[] = [];
  for (const job of order) {
    const tasks = placement.place(scratch, placementRequestOf(job.request));
    if (tasks !== null) actions.push({ kind: 'start', jobId: job.request.id, tasks });
  }
  return actions;
}

describe('ShapeQueue: a backfilling pass over shape classes', () => {
  for (const placement of [packPlacement, spreadPlacement, topologyPlacement]) {
    it(`starts exactly the jobs a walk over the whole sorted queue starts, pass after pass (${placement.name})`, () => {
      fc.assert(
        // Classes emptied are kept for their next job: none, a few (evicted often), or the default bound.
        fc.property(fc.integer({ min: 1, max: 8 }), fc.array(stepArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(0, 1, 3, EMPTY_CLASSES_KEPT), (nodeCount, steps, kept) => {
          const driver = new PassDriver(nodeCount);
          const queue = new ShapeQueue<FakeJob & JobView>((job, tie) => [job.rank, job.queuePosition, tie], kept);
          for (const step of [...steps, { kind: 'pass' as const }]) {
            if (step.kind !== 'pass') driver.apply(step);
            // A pass after every step: both ways must start the same jobs on the same tasks.
            const expected = walkWholeQueue(driver.queued, placement, new CapacityScratch(driver.cluster));
            const actual = queue.backfill(driver.context(placement));
            expect(withoutViews(actual)).toEqual(expected);
            driver.startAll(actual);
          }
        }),
        { numRuns: 250 },
      );
    });
  }
});
