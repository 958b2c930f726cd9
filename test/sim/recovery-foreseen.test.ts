import { describe, expect, it } from 'vitest';
import type { FaultCatalog, FaultType } from '../../src/faults/catalog.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation, type SimResult } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

/** A busy small cluster under DLRover, with hidden GPU and network faults repaired within its 5-minute detection. */
function run(seed: number): SimResult {
  const repair = { kind: 'fixed', seconds: 120 } as const;
  const types: FaultType[] = [
    { ...faultType('gpu-dbe', { kind: 'gpu-down' }), ratePerGpuDay: 1.5, repair },
    { ...faultType('link-down', { kind: 'network-down' }), scope: 'node', ratePerNodeDay: 4, repair },
  ];
  const catalog: FaultCatalog = { name: 't', description: '', source: '', types };
  const jobs = Array.from({ length: 600 }, (_, k) => batchJob(`j${k}`, k * 120, 1 + (k % 3), 900));
  const scenario: Scenario = { ...scenarioOf(gpuCluster(3, 8), jobs), seed, recovery: 'dlrover', faults: { catalog, replay: [], hangTimeoutS: 600 } };
  return new Simulation(scenario, { checkInvariants: true }).run();
}

describe('dlrover: hardware its node check finds', () => {
  it('is back at once when its repair time has passed, and replacements go where capacity really is', () => {
    let backAtOnce = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const { timeline } = run(seed);
      const found = timeline.filter((r) => r.event === 'isolated' && r.detail === 'found by the node check');
      backAtOnce += found.filter((f) => timeline.some((r) => r.event === 'repair' && r.timeS === f.timeS && r.node === f.node && r.gpu === f.gpu)).length;
    }
    expect(backAtOnce).toBeGreaterThan(0);
  });
});

describe('torch-elastic: a pod on a GPU taken out of service', () => {
  it('is not replaced onto that GPU: without another node the job waits in the queue', () => {
    // The broken GPU looks healthy until the daily SRE round finds it, so the replacement pod lands on it again and again.
    const gpu = { timeS: 1000, type: faultType('gpu-dbe', { kind: 'gpu-down' }), nodeIndex: 1, gpuIndex: 3, repairS: 200_000 };
    const catalog: FaultCatalog = { name: 't', description: '', source: '', types: [] };
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(2, 8), [allreduceJob('llm', { workers: 2, totalSteps: 100_000 })]),
      recovery: 'torch-elastic',
      faults: { catalog, replay: [gpu], hangTimeoutS: 600 },
    };
    const { timeline, jobs } = new Simulation(scenario, { checkInvariants: true }).run();
    const isolated = timeline.find((r) => r.event === 'isolated')!;
    expect(isolated.timeS).toBe(86_400);
    const then = timeline.filter((r) => r.timeS === 86_400 && r.jobId === 'llm').map((r) => r.event);
    expect(then).toEqual(['job-crash', 'job-waiting']);
    expect(jobs[0]!.phase).toBe('completed');
    expect(jobs[0]!.endS).toBeGreaterThan(201_000);
  });
});
