import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, gpuCluster, scenarioOf } from '../helpers.js';

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
  it('resumes on time when its speed changes during the pause', () => {
    const sim = simulation([]);
    sim.scheduleSpeedFactor(300, 'llm', 0.5);
    const result = sim.run();
    const done = result.jobs[0]!;
    expect(done.phase).toBe('completed');
    expect(done.endS).toBe(STARTUP_S + STEPS / 0.5);
  });
});
