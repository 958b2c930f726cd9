import { describe, expect, it } from 'vitest';
import { buildComparison, comparisonTable } from '../../src/report/compare.js';
import { summaryTable } from '../../src/report/summary-table.js';
import { createTiresias } from '../../src/policies/scheduling/tiresias.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

// One 8-GPU node under tiresias: "long" crosses the queue threshold and is preempted by "short",
// so it waits in the queue after it first started.
const jobs = [batchJob('long', 0, 8, 2000), batchJob('short', 500, 8, 300)];
const result = new Simulation(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'tiresias' }), {
  schedulingPolicy: createTiresias(),
  checkInvariants: true,
}).run();
const { summary } = result;

describe('waitS: all time spent queued', () => {
  it('counts waits after preemptions, which the first-start delay leaves out', () => {
    const long = result.jobs.find((j) => j.spec.id === 'long')!;
    expect(long.preemptions).toBeGreaterThan(0);
    expect(long.queuedS).toBeGreaterThan(0);
    // Both jobs started at once on arrival: no first-start delay.
    expect(summary.queueDelayS.mean).toBe(0);
    const completed = result.jobs.filter((j) => j.phase === 'completed');
    expect(completed).toHaveLength(2);
    const meanQueuedS = completed.reduce((sum, j) => sum + j.queuedS, 0) / completed.length;
    expect(summary.waitS.mean).toBeCloseTo(meanQueuedS, 3);
    expect(summary.waitS.mean).toBeGreaterThan(summary.queueDelayS.mean);
    expect(Object.keys(summary.waitS)).toEqual(['mean', 'p50', 'p90', 'p99']);
    expect(summary.waitS.p99).toBeGreaterThanOrEqual(summary.waitS.p50);
  });

  it('is shown in the run table and the compare table', () => {
    expect(summaryTable(summary)).toMatch(/\nqueued, all waits\s+\S+/);
    const table = comparisonTable(buildComparison('s', ['tiresias'], [{ policy: 'tiresias', seed: 1, summary }]));
    expect(table).toMatch(/\nqueued mean \(all waits\)\s+\S+/);
  });
});
