import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const HANG = faultType('nccl-timeout', { kind: 'hang' });
const NODE_DOWN = faultType('psu', { kind: 'node-down' });
const CRASH = faultType('software-bug', { kind: 'crash' });
const HANG_TIMEOUT_S = 1800;
const STARTUP_S = 600;
const STEPS = 5000;

/** A 2-worker all-reduce job (1 s steps) that takes `STARTUP_S` to start its processes. */
function job(): JobSpec {
  return { ...allreduceJob('llm', { workers: 2, totalSteps: STEPS }), startupS: STARTUP_S };
}

function simulation(replay: FaultOccurrence[], policy = 'fifo'): Simulation {
  const scenario: Scenario = {
    ...scenarioOf(gpuCluster(3, 8, 100), [job()], { policy }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay, hangTimeoutS: HANG_TIMEOUT_S },
  };
  return new Simulation(scenario, { checkInvariants: true });
}

describe('a paused job', () => {
  it('is not hung by a hang fault during its start-up: its processes are not in a collective yet', () => {
    const hang = { timeS: 300, type: HANG, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const result = simulation([hang]).run();
    const done = result.jobs[0]!;
    expect(done.phase).toBe('completed');
    expect(done.endS).toBe(STARTUP_S + STEPS);
    expect(done.hangs).toBe(0);
    expect(done.restarts).toBe(0);
    expect(done.pausedByKindS.detecting).toBe(0);
    expect(result.timeline.map((r) => r.event)).not.toContain('job-hang');
    expect(result.summary.faults.byType['nccl-timeout'] ?? 0).toBe(0);
  });

  it('resumes at the end of its recovery pause when a hang strikes during it', () => {
    const crash = { timeS: 1000, type: CRASH, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const quiet = simulation([crash], 'dlrover').run();
    const resumeS = quiet.timeline.find((r) => r.event === 'job-recovering')!;
    const pauseS = Number(/resumes in (\d+) s/.exec(resumeS.detail)![1]);
    expect(pauseS).toBeGreaterThan(200);
    const hang = { timeS: 1000 + pauseS / 2, type: HANG, nodeIndex: 1, gpuIndex: 0, repairS: 0 };
    const result = simulation([crash, hang], 'dlrover').run();
    const done = result.jobs[0]!;
    expect(done.hangs).toBe(0);
    expect(done.restarts).toBe(1);
    expect(done.endS).toBe(quiet.jobs[0]!.endS);
    expect(done.pausedS).toBe(quiet.jobs[0]!.pausedS);
  });

  it('still hangs when training, until the watchdog crashes it', () => {
    const hang = { timeS: STARTUP_S + 100, type: HANG, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const result = simulation([hang]).run();
    const done = result.jobs[0]!;
    expect(done.hangs).toBe(1);
    expect(done.restarts).toBe(1);
    expect(result.timeline.map((r) => r.event).slice(0, 3)).toEqual(['fault', 'job-hang', 'job-crash']);
    expect(result.timeline[2]!.timeS).toBe(STARTUP_S + 100 + HANG_TIMEOUT_S);
  });

  it('resumes on time when its speed changes during the pause', () => {
    const sim = simulation([]);
    sim.scheduleSpeedFactor(300, 'llm', 0.5);
    const result = sim.run();
    const done = result.jobs[0]!;
    expect(done.phase).toBe('completed');
    expect(done.endS).toBe(STARTUP_S + STEPS / 0.5);
  });

  it('resumes on time when a checkpoint save completes during the pause', () => {
    // Torch Elastic shrinks the job to 3 workers at 100 s (60 s restart + 100 s load): training from
    // 260 s, a 500 s save from 860 s. The node is back at 1300 s: the job grows back and pauses
    // 160 s, and its save completes at 1360 s, inside that pause.
    const elastic = allreduceJob('llm', {
      workers: 4,
      totalSteps: STEPS,
      elastic: { minReplicas: 2, maxReplicas: 4, unit: 1 },
      checkpoint: { intervalS: 600, saveS: 500, loadS: 100, flash: false },
    });
    const down = { timeS: 100, type: NODE_DOWN, nodeIndex: 3, gpuIndex: null, repairS: 1200 };
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(4, 8, 100), [elastic], { policy: 'fifo' }),
      recovery: 'torch-elastic',
      faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [down], hangTimeoutS: HANG_TIMEOUT_S },
    };
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    const done = result.jobs[0]!;
    expect(result.timeline.find((r) => r.event === 'job-scaled-up')!.timeS).toBe(1300);
    expect(done.phase).toBe('completed');
    expect(done.pausedByKindS.loading).toBe(200);
  });
});
