import { describe, expect, it } from 'vitest';
import { allreduceStepTimeS } from '../../src/model/speed.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, PS_SPEED, psJob, scenarioOf } from '../helpers.js';

describe('fluid job progress', () => {
  it('finishes a job slowed mid-run at the exact analytic time', () => {
    const sim = new Simulation(scenarioOf(gpuCluster(1, 8), [batchJob('j', 0, 8, 3600)]));
    sim.scheduleSpeedFactor(1000, 'j', 0.5);
    const result = sim.run();
    // 1000 s at full speed, the remaining 2600 s of work at half speed: 1000 + 5200.
    expect(result.jobs[0]!.endS).toBe(6200);
    expect(result.summary.jctS.mean).toBe(6200);
    expect(result.summary.ettr).toBeCloseTo(3600 / 6200, 6);
    expect(result.summary.runtimeRatio).toBe(1);
    // Utilisation counts the slowed GPUs as half busy; allocation does not.
    expect(result.summary.gpuAllocationRate).toBe(1);
    expect(result.summary.gpuUtilization).toBeCloseTo((1000 + 0.5 * 5200) / 6200, 6);
    // The stale finish event at 3600 s was dropped, not dispatched.
    expect(result.summary.events).toBe(3);
  });

  it('follows several speed changes, including a speed-up back to full speed', () => {
    const sim = new Simulation(scenarioOf(gpuCluster(1, 8), [batchJob('j', 100, 8, 1000)]));
    sim.scheduleSpeedFactor(300, 'j', 0.25); // 200 s of work done
    sim.scheduleSpeedFactor(700, 'j', 1); // +100 s of work
    const result = sim.run();
    expect(result.jobs[0]!.endS).toBe(700 + 700);
  });

  it('runs an all-reduce job at the step time of its speed model', () => {
    const job = allreduceJob('llm', { workers: 4, totalSteps: 1000, computeS: 1.8, commS: 0.2 });
    const result = new Simulation(scenarioOf(gpuCluster(4, 8), [job])).run();
    expect(allreduceStepTimeS(1.8, 0.2, 4, 4)).toBeCloseTo(2, 12);
    expect(result.jobs[0]!.endS).toBeCloseTo(2000, 6);
    expect(result.summary.ettr).toBeCloseTo(1, 6);
  });

  it('runs a PS job at the Optimus async speed of its PS and worker counts', () => {
    const t = PS_SPEED;
    const job = psJob('rec', 4, { replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 16_384 } }, 10_000);
    const result = new Simulation(scenarioOf(gpuCluster(1, 8), [job])).run();
    const stepsPerS = 4 / (t.t0 + (t.t1 * 4) / 2 + t.t2 * 4 + t.t3 * 2);
    expect(result.jobs[0]!.endS).toBeCloseTo(10_000 / stepsPerS, 6);
    // A CPU-only workload weights the time ratios by CPU time.
    expect(result.summary.ettr).toBeCloseTo(1, 6);
    expect(result.summary.gpuAllocationRate).toBe(0);
    expect(result.summary.cpuAllocationRate).toBeCloseTo(32_000 / 96_000, 6);
  });
});
