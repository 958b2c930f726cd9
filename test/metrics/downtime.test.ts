import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { DLROVER } from '../../src/policies/recovery/dlrover.js';
import { MANUAL_RECOVERY } from '../../src/policies/recovery/manual.js';
import { createTiresias } from '../../src/policies/scheduling/tiresias.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const NODE_DOWN = faultType('psu', { kind: 'node-down' });
const CRASH = faultType('software-bug', { kind: 'crash' });
const LOAD_S = 480;

/** An all-reduce job of `workers` 8-GPU workers that checkpoints every 600 s of training. */
function llm(workers: number, steps: number, elastic = false): JobSpec {
  return allreduceJob('llm', {
    workers,
    totalSteps: steps,
    elastic: elastic ? { minReplicas: 2, maxReplicas: workers, unit: 2 } : null,
    checkpoint: { intervalS: 600, saveS: 60, loadS: LOAD_S, flash: false },
  });
}

function run(nodes: number, jobs: JobSpec[], replay: FaultOccurrence[], policy: string) {
  const scenario: Scenario = {
    ...scenarioOf(gpuCluster(nodes, 8, 100), jobs, { policy }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay, hangTimeoutS: 600 },
  };
  return new Simulation(scenario, { checkInvariants: true }).run();
}

describe('downtimeGpuHours: GPU-hours faults kept jobs from training', () => {
  it('is zero without faults, preemptions and their waits included', () => {
    const jobs = [batchJob('long', 0, 8, 2000), batchJob('short', 500, 8, 300)];
    const result = new Simulation(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'tiresias' }), { schedulingPolicy: createTiresias() }).run();
    expect(result.jobs[0]!.preemptions).toBeGreaterThan(0);
    expect(result.summary.downtimeGpuHours).toBe(0);
  });

  it('manual recovery: the requested GPUs through detection, the queue after resubmission, pod scheduling and the load', () => {
    // "llm" crashes at 1,000 s; "other" takes the node while it waits for the poll at 1,200 s,
    // so the resubmitted job queues until "other" ends at 1,500 s.
    const crash = { timeS: 1000, type: CRASH, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const result = run(1, [llm(1, 5000), batchJob('other', 100, 8, 500)], [crash], 'fifo');
    const job = result.jobs.find((j) => j.spec.id === 'llm')!;
    expect(job.phase).toBe('completed');
    const detectS = 2 * MANUAL_RECOVERY.pollS - 1000;
    expect(job.detectingS).toBe(detectS);
    expect(job.queuedS).toBe(1500 - 1000 - detectS);
    const downS = detectS + job.queuedS + MANUAL_RECOVERY.rescheduleS + LOAD_S;
    expect(result.summary.downtimeGpuHours).toBeCloseTo((8 * downS) / 3600, 6);
    // Rolled-back work is the other key: 1,000 s trained, saved at 600-660 s, 340 steps lost.
    expect(result.summary.lostGpuHours).toBeCloseTo((8 * 340) / 3600, 6);
  });

  it('DLRover scale-down: all requested GPUs while paused, the missing ones while running shrunk', () => {
    // 4 workers, node 0 down 1,000-3,000 s, no spare: 2 workers until the repair, then back to 4.
    const down = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 2000 };
    const result = run(4, [llm(4, 20_000, true)], [down], 'dlrover');
    const job = result.jobs[0]!;
    expect(job.scaledDownS).toBe(2000);
    const growBackPauseS = DLROVER.scaleDownS + DLROVER.checkpointLoadS;
    const firstPauseS = job.pausedS - growBackPauseS;
    expect(firstPauseS).toBeGreaterThan(DLROVER.detectS);
    const expectedGpuS = 32 * job.pausedS + 16 * (job.scaledDownS - firstPauseS);
    expect(result.summary.downtimeGpuHours).toBeCloseTo(expectedGpuS / 3600, 6);
  });
});

describe('downtime in the tables', () => {
  it('is a row of the run table and of the compare table, beside the rolled-back hours', async () => {
    const { summaryTable } = await import('../../src/report/summary-table.js');
    const { buildComparison, comparisonTable } = await import('../../src/report/compare.js');
    const down = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 2000 };
    const { summary } = run(4, [llm(4, 20_000, true)], [down], 'dlrover');
    expect(summaryTable(summary)).toMatch(new RegExp(`\\ndowntime GPU hours\\s+${summary.downtimeGpuHours.toFixed(1)}\\n`));
    const table = comparisonTable(buildComparison('s', ['dlrover'], [{ policy: 'dlrover', seed: 1, summary }]));
    expect(table).toMatch(/\nlost GPU hours\s+\S+/);
    expect(table).toMatch(new RegExp(`\\ndowntime GPU hours\\s+${Math.round(summary.downtimeGpuHours * 10) / 10}\\b`));
  });
});
