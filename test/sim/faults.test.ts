import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf, faultType } from '../helpers.js';


/** A scenario whose faults are exactly `replay` (no rate injection). */
function withFaults(scenario: Scenario, replay: FaultOccurrence[], hangTimeoutS = 600): Scenario {
  return {
    ...scenario,
    recovery: 'none',
    faults: { catalog: { name: 'test', description: '', source: '', types: [] }, replay: [...replay].sort((a, b) => a.timeS - b.timeS), hangTimeoutS },
  };
}

const GPU_DOWN = faultType('gpu-dbe', { kind: 'gpu-down' });
const NODE_DOWN = faultType('psu', { kind: 'node-down' });
const CRASH = faultType('software-bug', { kind: 'crash' });
const HANG = faultType('nccl-timeout', { kind: 'hang' });
const SLOW = faultType('thermal', { kind: 'slowdown', factor: 0.5 });

describe('faults in the simulation (no recovery policy)', () => {
  it('a GPU failure kills the job on it; the broken GPU looks healthy until located, so the next job dies on it too', () => {
    // Node 0 runs "a" (8 GPUs); its GPU 3 breaks at 100 s and, as the replayed trace says, is back
    // 100,000 s later. Nothing tells the scheduler: "b" starts on the node at 200 s and crashes at
    // once. SREs take the GPU out of service at their next round (daily) until then.
    const jobs = [batchJob('a', 0, 8, 1000), batchJob('b', 200, 8, 100)];
    const replay = [{ timeS: 100, type: GPU_DOWN, nodeIndex: 0, gpuIndex: 3, repairS: 100_000 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 8), jobs), replay), { checkInvariants: true }).run();
    const [a, b] = result.jobs;
    expect(a!.phase).toBe('failed');
    expect(a!.failureReason).toBe('fault');
    expect(a!.endS).toBe(100);
    expect(b!.phase).toBe('failed');
    expect(b!.endS).toBe(200);
    // The run lasts past one whole day (the repair), but neither job lived a whole day: no day of a job to count.
    expect(result.summary.faults).toEqual({ total: 1, byType: { 'gpu-dbe': 1 }, daysWithFault: 0 });
    expect(result.summary.lostGpuHours).toBeCloseTo((8 * 100) / 3600, 6);
    expect(result.timeline.map((r) => `${r.timeS} ${r.event} ${r.jobId}`)).toEqual([
      '100 fault ',
      '100 job-crash a',
      '100 job-failed a',
      '200 job-crash b',
      '200 job-failed b',
      '86400 isolated ',
      '100100 repair ',
    ]);
  });

  it('faults hit idle hardware too: a node down delays a job until the last overlapping fault is repaired', () => {
    const jobs = [batchJob('a', 50, 8, 100)];
    const replay = [
      { timeS: 10, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 100 },
      { timeS: 20, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 200 },
    ];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 8), jobs), replay), { checkInvariants: true }).run();
    expect(result.jobs[0]!.firstStartS).toBe(220);
    expect(result.summary.faults.total).toBe(2);
  });

  it('a process crash on an idle GPU changes nothing and is not counted', () => {
    const jobs = [batchJob('a', 0, 4, 100)];
    const replay = [{ timeS: 10, type: CRASH, nodeIndex: 0, gpuIndex: 7, repairS: 0 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 8), jobs), replay)).run();
    expect(result.jobs[0]!.phase).toBe('completed');
    expect(result.summary.faults.total).toBe(0);
  });

  it('a slowdown stretches the job exactly until its repair', () => {
    const jobs = [batchJob('a', 0, 8, 1000)];
    const replay = [{ timeS: 100, type: SLOW, nodeIndex: 0, gpuIndex: 0, repairS: 400 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 8), jobs), replay)).run();
    // 100 s full speed, 400 s at half speed (200 s of work), then 700 s of work at full speed.
    expect(result.jobs[0]!.endS).toBe(1200);
    expect(result.summary.gpuUtilization).toBeCloseTo((100 + 200 + 700) / 1200, 6);
  });

  it('a hang stalls the job, holding its GPUs, until the watchdog turns it into a crash', () => {
    const jobs = [batchJob('a', 0, 8, 1000), batchJob('b', 10, 8, 100)];
    const replay = [{ timeS: 100, type: HANG, nodeIndex: 0, gpuIndex: 2, repairS: 0 }];
    const result = new Simulation(withFaults(scenarioOf(gpuCluster(1, 8), jobs), replay, 600), { checkInvariants: true }).run();
    const [a, b] = result.jobs;
    expect(a!.endS).toBe(700);
    expect(a!.phase).toBe('failed');
    // The job failed: the 100 steps it made are lost.
    expect(a!.progressSteps).toBe(0);
    expect(a!.lostSteps).toBe(100);
    expect(b!.firstStartS).toBe(700);
    expect(result.timeline.map((r) => r.event)).toEqual(['fault', 'job-hang', 'job-crash', 'job-failed']);
  });

  it('under dlrover a hang ends at the heartbeat timeout (600 s) when the watchdog is slower', () => {
    const replay = [{ timeS: 100, type: HANG, nodeIndex: 0, gpuIndex: 2, repairS: 0 }];
    const crashAt = (hangTimeoutS: number) => {
      const scenario = { ...withFaults(scenarioOf(gpuCluster(2, 8), [batchJob('a', 0, 8, 5000)]), replay, hangTimeoutS), recovery: 'dlrover' };
      const result = new Simulation(scenario, { checkInvariants: true }).run();
      return result.timeline.find((r) => r.event === 'job-crash')!.timeS;
    };
    expect(crashAt(1800)).toBe(700);
    expect(crashAt(300)).toBe(400);
  });
});
