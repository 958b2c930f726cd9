import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const NODE_DOWN = faultType('psu', { kind: 'node-down' });

// "big" trains on 8 nodes (64 GPUs) for 10,000 s, then loses 5 of them for good and carries on
// on what is left under DLRover (no spare capacity: "small" holds the ninth node). Its last GPU count
// says little about the GPU time it held.
const big = allreduceJob('big', {
  workers: 8,
  totalSteps: 1e9,
  elastic: { minReplicas: 1, maxReplicas: 8, unit: 1 },
  checkpoint: { intervalS: 600, saveS: 60, loadS: 60, flash: false },
});
const small = batchJob('small', 0, 8, 1e9);
const lost = [1, 2, 3, 4, 5].map((nodeIndex) => ({ timeS: 10_000, type: NODE_DOWN, nodeIndex, gpuIndex: null, repairS: 1e9 }));
const scenario: Scenario = {
  ...scenarioOf(gpuCluster(9, 8, 100), [big, small], { policy: 'dlrover', horizonS: 40_000 }),
  faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: lost, hangTimeoutS: 600 },
};
const result = new Simulation(scenario, { checkInvariants: true }).run();

describe('ETTR and runtime ratio weights', () => {
  it('weight each job by the GPU time it held, not by its last GPU count', () => {
    const [bigJob, smallJob] = result.jobs;
    expect(bigJob!.gpusWhenRunning).toBeLessThan(64);
    // It held 64 GPUs for a quarter of its life, well above its last GPU count times its wall time.
    expect(bigJob!.attainedGpuS).toBeGreaterThan(1.2 * bigJob!.gpusWhenRunning * bigJob!.wallSinceStartS(result.endS));
    const ratio = (value: number, wallS: number) => Math.min(1, value / wallS);
    const weighted = (pick: (j: typeof bigJob) => number, weight: (j: typeof bigJob) => number) => {
      let sum = 0;
      let weights = 0;
      for (const job of [bigJob, smallJob]) {
        sum += weight(job) * ratio(pick(job), job!.wallSinceStartS(result.endS));
        weights += weight(job);
      }
      return sum / weights;
    };
    const byGpuTime = (j: typeof bigJob) => j!.attainedGpuS;
    const byLastGpus = (j: typeof bigJob) => j!.gpusWhenRunning * j!.wallSinceStartS(result.endS);
    expect(result.summary.ettr).toBeCloseTo(weighted((j) => j!.effectiveS(), byGpuTime), 5);
    expect(result.summary.runtimeRatio).toBeCloseTo(weighted((j) => j!.processRuntimeS(), byGpuTime), 5);
    // The two weightings differ here by more than the summary's rounding.
    expect(Math.abs(weighted((j) => j!.effectiveS(), byGpuTime) - weighted((j) => j!.effectiveS(), byLastGpus))).toBeGreaterThan(0.01);
  });
});
