import { describe, expect, it } from 'vitest';
import type { FaultCatalog, FaultType } from '../../src/faults/catalog.js';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const GPU_DOWN = faultType('gpu-dbe', { kind: 'gpu-down' });
const NETWORK_DOWN = faultType('link-down', { kind: 'network-down' });
const EMPTY: FaultCatalog = { name: 't', description: '', source: '', types: [] };

/** Replays `replay` (a fault trace's occurrences) under `recovery`. */
function replayed(scenario: Scenario, replay: FaultOccurrence[], recovery: string): Scenario {
  return { ...scenario, recovery, faults: { catalog: EMPTY, replay, hangTimeoutS: 600 } };
}

describe('a replayed fault keeps the end time of its trace', () => {
  it('manual: a GPU the trace returns at 9,200 s is back then, though the SRE round would find it only at 43,200 s', () => {
    const gpu = { timeS: 2000, type: GPU_DOWN, nodeIndex: 0, gpuIndex: 3, repairS: 7200 };
    const result = new Simulation(replayed(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 20_000)]), [gpu], 'manual'), { checkInvariants: true }).run();
    const crashes = result.timeline.filter((r) => r.event === 'job-crash').map((r) => r.timeS);
    // Each cycle: noticed at the next 10-minute poll, restarted, crashes at once on the broken GPU.
    expect(crashes.length).toBeGreaterThan(1);
    expect(crashes.every((t) => t < 9200)).toBe(true);
    const repair = result.timeline.find((r) => r.event === 'repair')!;
    expect(repair.timeS).toBe(9200);
    expect(result.timeline.some((r) => r.event === 'isolated')).toBe(false);
    expect(result.jobs[0]!.phase).toBe('completed');
    // Training starts after 300 s of pod scheduling, and crashes then while the GPU is broken: the
    // restart of the 9,000 s poll starts training at 9,300 s, after the repair, and runs to the end.
    expect(crashes.at(-1)).toBe(8700);
    expect(result.jobs[0]!.endS).toBe(9000 + 300 + 20_000);
  });

  it('torch-elastic: a network fault shorter than the 2 h search ends at its trace time', () => {
    const job = allreduceJob('llm', { workers: 2, totalSteps: 10_000 });
    const link = { timeS: 1000, type: NETWORK_DOWN, nodeIndex: 1, gpuIndex: null, repairS: 1800 };
    const result = new Simulation(replayed(scenarioOf(gpuCluster(2, 8), [job]), [link], 'torch-elastic'), { checkInvariants: true }).run();
    expect(result.timeline.find((r) => r.event === 'repair')!.timeS).toBe(2800);
    expect(result.timeline.filter((r) => r.event === 'job-crash').every((r) => r.timeS < 2800)).toBe(true);
    expect(result.jobs[0]!.phase).toBe('completed');
  });

  it('a fault located before its trace end is out of service from then until the end', () => {
    const gpu = { timeS: 100, type: GPU_DOWN, nodeIndex: 0, gpuIndex: 3, repairS: 100_000 };
    const result = new Simulation(replayed(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 1000)]), [gpu], 'none'), { checkInvariants: true }).run();
    expect(result.timeline.filter((r) => r.event === 'isolated' || r.event === 'repair').map((r) => `${r.timeS} ${r.event}`)).toEqual(['86400 isolated', '100100 repair']);
  });
});

describe('a rate fault found late', () => {
  /** Timeline rows of the faults a catalog of one hidden GPU fault injects over 40 days under manual recovery. */
  function hiddenFaults(repair: FaultType['repair']) {
    const type: FaultType = { ...GPU_DOWN, ratePerGpuDay: 0.01, repair };
    const jobs = [batchJob('long', 0, 1, 40 * 86_400)];
    const scenario: Scenario = { ...scenarioOf(gpuCluster(2, 8), jobs), recovery: 'manual', faults: { catalog: { ...EMPTY, types: [type] }, replay: [], hangTimeoutS: 600 } };
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    const key = (r: { node: string; gpu: number | null }) => `${r.node}/${r.gpu}`;
    const rows = result.timeline.filter((r) => r.event === 'fault' || r.event === 'isolated' || r.event === 'repair');
    // One fault at a time per GPU, so each fault's rows are the next isolated and repair rows of its GPU.
    return rows
      .filter((r) => r.event === 'fault')
      .map((fault) => {
        const later = rows.filter((r) => key(r) === key(fault) && r.timeS >= fault.timeS);
        const repairS = Number(/repair in (\d+) s/.exec(fault.detail)![1]);
        return { faultS: fault.timeS, repairS, isolatedS: later.find((r) => r.event === 'isolated')?.timeS, repairedS: later.find((r) => r.event === 'repair')?.timeS };
      })
      .filter((f) => f.repairedS !== undefined);
  }

  it('is back at its repair time counted from the fault when that comes after the SRE round', () => {
    const faults = hiddenFaults({ kind: 'fixed', seconds: 172_800 });
    expect(faults.length).toBeGreaterThan(2);
    for (const f of faults) {
      expect(f.isolatedS! - f.faultS).toBeLessThanOrEqual(86_400);
      expect(f.repairedS).toBeCloseTo(f.faultS + 172_800, 6);
    }
  });

  it('is back as soon as it is located when its repair time has passed by then (no second repair)', () => {
    const faults = hiddenFaults({ kind: 'fixed', seconds: 600 });
    expect(faults.length).toBeGreaterThan(2);
    for (const f of faults) {
      expect(f.repairedS).toBe(Math.max(f.isolatedS!, f.faultS + 600));
      expect(f.repairedS! - f.isolatedS!).toBeLessThan(600);
    }
  });
});
