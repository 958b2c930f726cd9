import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { jobsCsv } from '../../src/report/jobs-csv.js';
import { timelineCsv } from '../../src/report/timeline-csv.js';
import { invariantChecksByDefault } from '../../src/sim/invariants.js';
import { simulate } from '../../src/sim/simulation.js';
import { ScenarioFiles, scenarioDocArb } from './scenarios.js';

const files = new ScenarioFiles();
afterAll(() => files.remove());

describe('random small scenarios (every job kind, every preset, heavy faults or none)', () => {
  it('run with invariants checked after every instant, end, and give the same outputs for the same seed', async () => {
    expect(invariantChecksByDefault()).toBe(true);
    await fc.assert(
      fc.asyncProperty(scenarioDocArb, async (doc) => {
        const scenario = await files.load(doc);
        const first = simulate(scenario);
        const second = simulate(scenario);
        expect(JSON.stringify(second.summary)).toBe(JSON.stringify(first.summary));
        expect(jobsCsv(second.jobs, second.endS)).toBe(jobsCsv(first.jobs, first.endS));
        expect(timelineCsv(second.timeline)).toBe(timelineCsv(first.timeline));
        // Without a horizon every job ends: it completes, or it can never fit and fails at once.
        if (doc.sim === undefined) {
          expect(first.summary.jobs.unfinished).toBe(0);
          for (const job of first.jobs) expect(job.phase === 'completed' || job.failureReason === 'unschedulable').toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
