import { describe, expect, it } from 'vitest';
import { loadCatalog, scaledCatalog } from '../../src/faults/catalog.js';
import { Simulation, simulate } from '../../src/sim/simulation.js';
import { allreduceJob, gpuCluster, scenarioOf } from '../helpers.js';

/** An elastic all-reduce job asking for 4 one-GPU workers that may run with 2. */
const elastic = allreduceJob('e', { workers: 4, gpus: 1, totalSteps: 100, elastic: { minReplicas: 2, maxReplicas: 4, unit: 1 } });

describe('runs that could stall for good', () => {
  it.each(['fifo', 'sjf', 'tetris', 'tiresias'])(
    '%s, which starts jobs at their requested size, fails at once a job that fits only below it',
    (policy) => {
      const result = simulate(scenarioOf(gpuCluster(1, 2), [elastic], { policy }));
      expect(result.jobs[0]!.phase).toBe('failed');
      expect(result.jobs[0]!.failureReason).toBe('unschedulable');
    },
  );

  it.each(['edl', 'drf', 'drf-dynamic'])('%s, which starts elastic jobs at their minimum, runs that job', (policy) => {
    const result = simulate(scenarioOf(gpuCluster(1, 2), [elastic], { policy }));
    expect(result.jobs[0]!.phase).toBe('completed');
  });

  it('a checkpoint that costs nothing to save, at interval auto, is taken at most once per step', () => {
    const job = allreduceJob('c', { workers: 1, totalSteps: 200, computeS: 2, checkpoint: { intervalS: 'auto', saveS: 0, loadS: 0, flash: false } });
    const faults = { catalog: scaledCatalog(loadCatalog('ant-2023'), 100), replay: [], hangTimeoutS: 600 };
    const sim = new Simulation(scenarioOf(gpuCluster(1, 8), [job], { faults }));
    // A zero interval would make the save due again at once, for ever, in one instant.
    expect(sim['jobs'][0]!.checkpointIntervalS).toBeGreaterThanOrEqual(2);
    const result = sim.run();
    expect(result.jobs[0]!.phase).toBe('completed');
  });
});
