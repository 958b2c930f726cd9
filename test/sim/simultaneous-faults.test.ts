import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { ElasticSpec } from '../../src/model/job-spec.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation, type SimResult } from '../../src/sim/simulation.js';
import { allreduceJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const NODE_DOWN = faultType('psu', { kind: 'node-down' });
const FAULT_S = 1000;
const REPAIR_S = 3000;

/** An 8-worker elastic all-reduce job, one 8-GPU worker per node of an 8-node cluster, whose nodes in `lost` all go down at 1000 s. */
function loseNodes(lost: readonly number[], elastic: ElasticSpec, policy = 'dlrover'): SimResult {
  const job = allreduceJob('llm', { workers: 8, totalSteps: 20_000, elastic });
  const replay: FaultOccurrence[] = lost.map((nodeIndex) => ({ timeS: FAULT_S, type: NODE_DOWN, nodeIndex, gpuIndex: null, repairS: REPAIR_S }));
  const scenario: Scenario = {
    ...scenarioOf(gpuCluster(8, 8, 100), [job], { policy }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay, hangTimeoutS: 600 },
  };
  return new Simulation(scenario, { checkInvariants: true }).run();
}

/** The recovery rows of the run's timeline: event and detail up to the first ';'. */
function recoveries(result: SimResult): string[] {
  return result.timeline
    .filter((r) => r.event === 'job-recovering' || r.event === 'job-waiting' || r.event === 'job-scaled-up')
    .map((r) => `${r.timeS} ${r.event}: ${r.detail.split(';')[0]}`);
}

const UNIT_1: ElasticSpec = { minReplicas: 1, maxReplicas: 8, unit: 1 };

describe('nodes lost in one instant', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('dlrover: %i nodes down at once scale the job down once to the workers left, and it grows back at the repair', (count) => {
    const lost = Array.from({ length: count }, (_, i) => i);
    const result = loseNodes(lost, UNIT_1);
    const job = result.jobs[0]!;
    expect(recoveries(result)).toEqual([`${FAULT_S} job-recovering: scaled down to ${8 - count} workers`, `${FAULT_S + REPAIR_S} job-scaled-up: back to 8 workers`]);
    expect(result.timeline.filter((r) => r.event === 'job-crash')).toHaveLength(count);
    expect(job.restarts).toBe(1);
    expect(job.phase).toBe('completed');
  });

  it.each([
    [[0, 2, 3, 4, 5, 6]],
    [[1, 2, 3, 4, 5, 6, 7]],
    [[0, 1, 3, 4, 6, 7]],
    [[7, 5, 3, 1]],
  ])('dlrover: whichever nodes go down (%j), the healthy ones keep training', (lost) => {
    const result = loseNodes(lost, UNIT_1);
    expect(recoveries(result)[0]).toBe(`${FAULT_S} job-recovering: scaled down to ${8 - lost.length} workers`);
    const kept = result.timeline.find((r) => r.event === 'job-recovering')!;
    expect(kept.timeS).toBe(FAULT_S);
    expect(result.jobs[0]!.restarts).toBe(1);
  });

  it('dlrover: the job keeps a multiple of its node unit, at least its minimum', () => {
    // 5 healthy workers left, unit 2: 4 of them train.
    const unit2 = loseNodes([0, 1, 2], { minReplicas: 2, maxReplicas: 8, unit: 2 });
    expect(recoveries(unit2)[0]).toBe(`${FAULT_S} job-recovering: scaled down to 4 workers`);
    // 1 healthy worker left, minimum 2: nothing to shrink to, the job waits for the repair.
    const belowMin = loseNodes([0, 1, 2, 3, 4, 5, 6], { minReplicas: 2, maxReplicas: 8, unit: 2 });
    expect(recoveries(belowMin)).toEqual([`${FAULT_S} job-waiting: no healthy capacity: queued`]);
    expect(belowMin.jobs[0]!.phase).toBe('completed');
  });

  it('torch-elastic: nodes lost at once are one membership change', () => {
    // Rank 0 (node 0) stays; the other six go.
    const result = loseNodes([1, 2, 3, 4, 5, 6], UNIT_1, 'torch-elastic');
    expect(recoveries(result)[0]).toBe(`${FAULT_S} job-recovering: scaled down to 2 workers`);
    expect(result.jobs[0]!.restarts).toBe(1);
  });
});
