import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import { youngDalyIntervalS } from '../../src/model/checkpoint.js';
import type { CheckpointSpec, JobSpec } from '../../src/model/job-spec.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf, faultType } from '../helpers.js';


const CRASH = faultType('software-bug', { kind: 'crash' });
const SDC = faultType('silent-data-corruption', { kind: 'silent-corruption' });

function checkpointed(job: JobSpec, checkpoint: CheckpointSpec): JobSpec {
  return { ...job, checkpoint };
}

function run(scenario: Scenario, replay: FaultOccurrence[], recovery?: string) {
  const withFaults: Scenario = {
    ...scenario,
    ...(recovery === undefined ? {} : { recovery }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay, hangTimeoutS: 600 },
  };
  return new Simulation(withFaults, { checkInvariants: true }).run();
}

describe('checkpoints', () => {
  it('block training for each save, every interval of training', () => {
    const job = checkpointed(batchJob('a', 0, 8, 1000), { intervalS: 300, saveS: 10, loadS: 60, flash: false });
    const result = run(scenarioOf(gpuCluster(1, 8), [job]), []);
    const a = result.jobs[0]!;
    // Saves after 300, 600 and 900 s of training: 1000 s of training + 3 x 10 s.
    expect(a.endS).toBe(1030);
    expect(a.checkpointingS).toBe(30);
    expect(a.checkpointedSteps).toBe(900);
    expect(result.summary.ettr).toBeCloseTo(1000 / 1030, 6);
    expect(result.summary.runtimeRatio).toBe(1);
  });

  it('flash checkpoints block only half a second', () => {
    const job = checkpointed(batchJob('a', 0, 8, 1000), { intervalS: 300, saveS: 60, loadS: 60, flash: true });
    expect(run(scenarioOf(gpuCluster(1, 8), [job]), []).jobs[0]!.endS).toBeCloseTo(1001.5, 9);
  });

  it('Young/Daly gives sqrt(2 x save x MTBF)', () => {
    expect(youngDalyIntervalS(60, 1 / 86_400)).toBeCloseTo(Math.sqrt(2 * 60 * 86_400), 9);
    expect(youngDalyIntervalS(60, 0)).toBe(Infinity);
  });
});

describe('manual recovery', () => {
  it('rolls back to the last checkpoint, resubmits at the next poll, and pays pod scheduling and loading', () => {
    const job = checkpointed(batchJob('a', 0, 8, 1000), { intervalS: 300, saveS: 10, loadS: 60, flash: false });
    const crash = { timeS: 500, type: CRASH, nodeIndex: 0, gpuIndex: 1, repairS: 0 };
    const result = run(scenarioOf(gpuCluster(1, 8), [job]), [crash], 'manual');
    const a = result.jobs[0]!;
    // At 500 s: 490 steps done, checkpoint at 300 -> 190 lost. Noticed at the 600 s poll, starts at
    // once, 300 s pod scheduling + 60 s load -> trains from 960 s with 700 steps left and two more
    // saves (at 1260 and 1570): ends at 1680 s.
    expect(a.phase).toBe('completed');
    expect(a.endS).toBe(1680);
    expect(a.restarts).toBe(1);
    expect(a.lostSteps).toBe(190);
    expect(a.detectingS).toBe(100);
    expect(a.pausedByKindS).toEqual({ detecting: 0, 'health-check': 0, rescheduling: 300, starting: 0, loading: 60, resizing: 0 });
    expect(result.summary.restarts).toBe(1);
    expect(result.summary.lostGpuHours).toBeCloseTo((8 * 190) / 3600, 6);
    expect(result.timeline.map((r) => `${r.timeS} ${r.event}`)).toEqual(['500 fault', '500 job-crash', '600 job-resubmitted']);
  });

  it('after silent data corruption rolls back one checkpoint further', () => {
    const job = checkpointed(batchJob('a', 0, 8, 1000), { intervalS: 300, saveS: 10, loadS: 0, flash: false });
    const sdc = { timeS: 700, type: SDC, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const a = run(scenarioOf(gpuCluster(1, 8), [job]), [sdc], 'manual').jobs[0]!;
    // At 700 s: 680 steps, checkpoints at 300 and 600: back to 300, 380 steps lost.
    expect(a.lostSteps).toBe(380);
    expect(a.phase).toBe('completed');
  });

  it('without checkpoints loses all progress but still completes', () => {
    const crash = { timeS: 500, type: CRASH, nodeIndex: 0, gpuIndex: 1, repairS: 0 };
    const a = run(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 1000)]), [crash], 'manual').jobs[0]!;
    expect(a.lostSteps).toBe(500);
    expect(a.endS).toBe(600 + 300 + 1000);
  });
});
