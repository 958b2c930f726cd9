import { describe, expect, it } from 'vitest';
import { loadCatalog, scaledCatalog, type FaultType } from '../../src/faults/catalog.js';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { stepsPerS } from '../../src/model/speed.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, PS_SPEED, scenarioOf } from '../helpers.js';

/** A scenario whose faults are exactly `replay`, under the given recovery. */
function withFaults(scenario: Scenario, replay: FaultOccurrence[], recovery = 'none'): Scenario {
  return {
    ...scenario,
    recovery,
    faults: { catalog: { name: 'test', description: '', source: '', types: [] }, replay: [...replay].sort((a, b) => a.timeS - b.timeS), hangTimeoutS: 600 },
  };
}

const HALF = faultType('thermal', { kind: 'slowdown', factor: 0.5 });
const SLOW_49 = faultType('thermal-49', { kind: 'slowdown', factor: 0.49 });
const NODE_DOWN = faultType('psu', { kind: 'node-down' });

/** A batch job of one task holding half of one GPU, running `durationS` at full speed. */
function halfGpuJob(id: string, durationS: number): JobSpec {
  const job = batchJob(id, 0, 1, durationS);
  return { ...job, roles: [{ role: 'worker', replicas: 1, demand: { gpus: 1, gpuMilli: 500, cpuMilli: 1000, memMiB: 1024 } }] };
}

describe('a slowdown belongs to the hardware', () => {
  it('its repair restores every job sharing the throttled GPU', () => {
    // Both jobs share GPU 0 of the only node: 1,000 s at full speed, 1,000 s at half (500 s of
    // work), then the other 8,500 s at full speed.
    const jobs = [halfGpuJob('a', 10_000), halfGpuJob('b', 10_000)];
    const replay = [{ timeS: 1000, type: HALF, nodeIndex: 0, gpuIndex: 0, repairS: 1000 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 1), jobs), replay), { checkInvariants: true }).run();
    expect(result.jobs.map((j) => j.endS)).toEqual([10_500, 10_500]);
  });

  it('a slowdown on an idle GPU slows the job that starts on it later, until the repair', () => {
    // The GPU is throttled from 0 s to 5,000 s; the job starts at 1,000 s: 4,000 s at half speed
    // (2,000 s of work), then 8,000 s at full speed.
    const jobs = [batchJob('late', 1000, 1, 10_000)];
    const replay = [{ timeS: 0, type: HALF, nodeIndex: 0, gpuIndex: 0, repairS: 5000 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 1), jobs), replay), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBe(13_000);
    expect(result.summary.faults.total).toBe(1);
  });

  it('a throttled job that restarts on healthy hardware runs at full speed', () => {
    // "a" holds n0 (GPU 0 throttled from 1,000 s for good). n0 goes down at 2,000 s; under manual
    // recovery the job is noticed at the 2,400 s poll and restarts from scratch (no checkpoint) on
    // n1 after 300 s of pod scheduling: 10,000 s at full speed from 2,700 s.
    const jobs = [batchJob('a', 0, 8, 10_000)];
    const replay = [
      { timeS: 1000, type: HALF, nodeIndex: 0, gpuIndex: 0, repairS: 1e9 },
      { timeS: 2000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 1e9 },
    ];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(2, 8), jobs), replay, 'manual'), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBe(12_700);
  });

  it('a job that lands on a throttled node after a restart is slowed by it', () => {
    // n1 is throttled (node scope) from 0 s for good; "a" starts on n0, which goes down at
    // 2,000 s, and restarts on n1 at 2,700 s (as above): 10,000 s of work at half speed.
    const nodeSlow = { ...HALF, scope: 'node' as const };
    const jobs = [batchJob('a', 0, 8, 10_000)];
    const replay = [
      { timeS: 0, type: nodeSlow, nodeIndex: 1, gpuIndex: null, repairS: 1e9 },
      { timeS: 2000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 1e9 },
    ];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(2, 8), jobs), replay, 'manual'), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBe(22_700);
  });
});

describe('slowdowns of one job', () => {
  it('a synchronous job runs at its slowest GPU: three 0.49x slowdowns leave it at 0.49x, not 0.12x', () => {
    const job = allreduceJob('sync', { workers: 4, totalSteps: 10_000 });
    const replay = [0, 1, 2].map((nodeIndex) => ({ timeS: 1000, type: SLOW_49, nodeIndex, gpuIndex: nodeIndex, repairS: 1e9 }));
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(4, 8), [job]), replay), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBeCloseTo(1000 + 9000 / 0.49, 6);
  });

  it('two slowdowns of one GPU: it runs at the tighter one', () => {
    const job = batchJob('one', 0, 1, 10_000);
    const replay = [
      { timeS: 1000, type: HALF, nodeIndex: 0, gpuIndex: 0, repairS: 1e9 },
      { timeS: 1000, type: SLOW_49, nodeIndex: 0, gpuIndex: 0, repairS: 1e9 },
    ];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 1), [job]), replay), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBeCloseTo(1000 + 9000 / 0.49, 6);
  });

  it('an asynchronous PS job runs at the mean of its workers: one of two workers at half speed gives 0.75x', () => {
    // Two 8-GPU workers (one per node) and a CPU-only PS; worker GPUs on n0 are throttled.
    const ps: JobSpec = {
      id: 'ps',
      kind: 'ps',
      submitS: 0,
      user: '',
      gpuTypes: [],
      roles: [
        { role: 'worker', replicas: 2, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 } },
        { role: 'ps', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 } },
      ],
      elastic: null,
      totalSteps: 100_000,
      speed: { kind: 'ps-async', ...PS_SPEED },
      source: 'test:ps',
    };
    const rate = stepsPerS(ps, { workers: 2, ps: 1 });
    const replay = [{ timeS: 1000, type: HALF, nodeIndex: 0, gpuIndex: 3, repairS: 1e9 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(2, 8), [ps]), replay), { checkInvariants: true }).run();
    expect(result.jobs[0]!.endS).toBeCloseTo(1000 + (100_000 - 1000 * rate) / (0.75 * rate), 6);
  });
});

describe('the node check and the catalog agree on slowdowns', () => {
  const CRASH = faultType('bug', { kind: 'crash' });
  const ant = loadCatalog('ant-2023');
  const thermal = ant.types.find((t) => t.name === 'gpu-thermal-slowdown')!;
  const hotter = scaledCatalog(ant, 1, { 'gpu-thermal-slowdown': { effect: { kind: 'slowdown', factor: 0.3 } } }).types.find((t) => t.name === 'gpu-thermal-slowdown')!;

  /** Nodes the node check cordoned after a crash while node 1 of a 4-node job is slowed by `type`. */
  function cordonedWith(type: FaultType): string[] {
    const job = allreduceJob('llm', { workers: 4, totalSteps: 5000, elastic: { minReplicas: 2, maxReplicas: 4, unit: 2 } });
    const replay = [
      { timeS: 500, type, nodeIndex: 1, gpuIndex: 0, repairS: 1e6 },
      { timeS: 1000, type: CRASH, nodeIndex: 2, gpuIndex: 0, repairS: 0 },
    ];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(5, 8, 100), [job]), replay, 'dlrover'), { checkInvariants: true }).run();
    return result.timeline.filter((r) => r.event === 'node-cordoned').map((r) => r.node);
  }

  it('a slowdown the catalog says the check finds is found and cordoned', () => {
    expect(hotter.foundByNodeCheck).toBe(true);
    expect(cordonedWith(hotter)).toEqual(['n1']);
  });

  it('a thermal slowdown the catalog says the check does not find is not found', () => {
    expect(thermal.foundByNodeCheck).toBe(false);
    expect(cordonedWith(thermal)).toEqual([]);
  });
});
