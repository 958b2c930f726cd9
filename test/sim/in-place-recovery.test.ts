import { describe, expect, it } from 'vitest';
import type { FaultOccurrence } from '../../src/faults/occurrence.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { runNodeCheck } from '../../src/policies/recovery/node-check.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';


const NODE_DOWN = faultType('psu', { kind: 'node-down' });
const GPU_DOWN = faultType('xid-79', { kind: 'gpu-down' });
const CRASH = faultType('software-bug', { kind: 'crash' });
const SLOW = faultType('thermal', { kind: 'slowdown', factor: 0.3 });

/** An elastic all-reduce job of `workers` 8-GPU workers (min 2, unit 2) that checkpoints every 600 s of training. */
function llm(workers: number, steps: number): JobSpec {
  return allreduceJob('llm', {
    workers,
    totalSteps: steps,
    elastic: { minReplicas: 2, maxReplicas: workers, unit: 2 },
    checkpoint: { intervalS: 600, saveS: 600, loadS: 480, flash: false },
  });
}

function run(nodes: number, job: JobSpec, replay: FaultOccurrence[], policy: string) {
  const scenario: Scenario = {
    ...scenarioOf(gpuCluster(nodes, 8, 100), [job], { policy }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay, hangTimeoutS: 600 },
  };
  return new Simulation(scenario, { checkInvariants: true }).run();
}

/** The node check's duration on `nodes` job nodes with the given faulty ones (all tests 10 s). */
function checkS(nodes: number, faulty: number[] = [], slow: Record<number, number> = {}): number {
  return runNodeCheck(Array.from({ length: nodes }, (_, i) => ({ nodeIndex: i, faulty: faulty.includes(i), testS: 10 / (slow[i] ?? 1) }))).durationS;
}

describe('dlrover recovery', () => {
  it('replaces the pod of a failed node on a spare healthy node after the node check', () => {
    const node0 = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 5000 };
    const result = run(5, llm(4, 5000), [node0], 'dlrover');
    const job = result.jobs[0]!;
    expect(job.phase).toBe('completed');
    expect(job.restarts).toBe(1);
    // DLRover's checkpoint costs replace the job's: saves block 60 s, loads take 240 s.
    // At 1000 s: saved at 600-660, 340 steps lost; 300 s detection, check, 120 s pod, 240 s load.
    // The dead node takes no part in the check: the three live ones pass it in one round.
    const pauseS = 300 + checkS(3) + 120 + 240;
    expect(job.lostSteps).toBe(340);
    expect(job.pausedByKindS).toEqual({ detecting: 300, 'health-check': checkS(3), rescheduling: 120, starting: 0, loading: 240, resizing: 0 });
    expect(job.detectingS).toBe(300);
    expect(result.timeline.map((r) => r.event)).toEqual(['fault', 'job-crash', 'job-recovering', 'repair']);
    expect(result.timeline[2]!.detail).toBe(`1 pods replaced; training resumes in ${Math.round(pauseS)} s`);
    // 5000 steps + 340 redone, 8 saves of 60 s (one before the crash, 7 in the 4400 s after).
    expect(job.endS).toBeCloseTo(5000 + 340 + pauseS + 8 * 60, 6);
  });

  it('without a healthy spare scales down to the node unit, then grows back when the node is repaired', () => {
    const node0 = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 2000 };
    const result = run(4, llm(4, 20_000), [node0], 'dlrover');
    const job = result.jobs[0]!;
    expect(job.phase).toBe('completed');
    const events = result.timeline.map((r) => `${r.event}${r.event === 'job-recovering' || r.event === 'job-scaled-up' ? `: ${r.detail.split(';')[0]}` : ''}`);
    expect(events).toEqual(['fault', 'job-crash', 'job-recovering: scaled down to 2 workers', 'repair', 'job-scaled-up: back to 4 workers']);
    expect(result.timeline[4]!.timeS).toBe(3000);
    expect(job.scaledDownS).toBe(2000);
    expect(job.workers).toBe(0);
    expect(job.gpusWhenRunning).toBe(32);
  });

  it('a job that must queue for capacity still pays the detection and the node check', () => {
    // Rigid job on all 4 nodes: n0 fails at 1000 s, no spare and no scale-down, so it waits for the repair at 3000 s.
    const node0 = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 2000 };
    const rigid = { ...llm(4, 5000), elastic: null };
    const result = run(4, rigid, [node0], 'dlrover');
    const job = result.jobs[0]!;
    expect(result.timeline.map((r) => r.event)).toEqual(['fault', 'job-crash', 'job-waiting', 'repair']);
    expect(job.phase).toBe('completed');
    expect(job.pausedByKindS).toEqual({ detecting: 300, 'health-check': checkS(3), rescheduling: 120, starting: 0, loading: 240, resizing: 0 });
    expect(job.detectingS).toBe(300);
  });

  it('a broken GPU leaves its node alive: the node takes part in the check, fails both rounds and its pod is replaced', () => {
    const gpu0 = { timeS: 1000, type: GPU_DOWN, nodeIndex: 0, gpuIndex: 2, repairS: 5000 };
    const result = run(5, llm(4, 5000), [gpu0], 'dlrover');
    const job = result.jobs[0]!;
    expect(checkS(4, [0])).toBeGreaterThan(checkS(4));
    expect(job.pausedByKindS['health-check']).toBe(checkS(4, [0]));
    expect(result.timeline.find((r) => r.event === 'job-recovering')!.detail.startsWith('1 pods replaced')).toBe(true);
    expect(job.phase).toBe('completed');
  });

  it('restarts processes in place after a software crash: a one-round check and the load', () => {
    const crash = { timeS: 1000, type: CRASH, nodeIndex: 1, gpuIndex: 3, repairS: 0 };
    const result = run(4, llm(4, 5000), [crash], 'dlrover');
    expect(result.timeline[2]!.detail).toBe(`processes restarted; training resumes in ${Math.round(300 + checkS(4) + 240)} s`);
    expect(checkS(4)).toBe(60);
  });

  it('pays the job start-up at its first start and at every restart', () => {
    const crash = { timeS: 1000, type: CRASH, nodeIndex: 1, gpuIndex: 3, repairS: 0 };
    const result = run(4, { ...llm(4, 5000), startupS: 200 }, [crash], 'dlrover');
    const job = result.jobs[0]!;
    // Training starts at 200 s; at 1000 s: 800 steps, saved at 600 (60 s, so 740 steps trained);
    // 140 steps lost, then detection, check, start-up and load.
    expect(result.timeline[2]!.detail).toBe(`processes restarted; training resumes in ${Math.round(300 + checkS(4) + 200 + 240)} s`);
    expect(job.pausedByKindS.starting).toBe(400);
    expect(job.lostSteps).toBe(140);
  });

  it('finds a slow node with the node check, cordons it and moves the job off it', () => {
    const slow = { timeS: 500, type: SLOW, nodeIndex: 1, gpuIndex: 0, repairS: 100_000 };
    const crash = { timeS: 1000, type: CRASH, nodeIndex: 2, gpuIndex: 0, repairS: 0 };
    const result = run(5, llm(4, 5000), [slow, crash], 'dlrover');
    const events = result.timeline.map((r) => r.event);
    expect(events.slice(0, 5)).toEqual(['fault', 'fault', 'job-crash', 'node-cordoned', 'job-recovering']);
    expect(result.timeline[3]!.node).toBe('n1');
    expect(result.timeline[4]!.detail.startsWith('1 pods replaced')).toBe(true);
    expect(checkS(4, [], { 1: 0.3 })).toBeGreaterThan(checkS(4));
  });
});

describe('dlrover exit classes', () => {
  const FATAL = { ...CRASH, name: 'bug', exit: 'fatal' as const };

  it('does not relaunch a fatal exit of a job that is not all-reduce', () => {
    const crash = { timeS: 100, type: FATAL, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(2, 8, 100), [batchJob('b', 0, 8, 1000)], { policy: 'dlrover' }),
      faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [crash], hangTimeoutS: 600 },
    };
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    expect(result.jobs[0]!.phase).toBe('failed');
    expect(result.timeline.at(-1)!.detail).toBe('recovery dlrover: fatal exit: not relaunched');
  });

  it('relaunches a fatal exit of an all-reduce job, as DLRover always does', () => {
    const crash = { timeS: 1000, type: FATAL, nodeIndex: 1, gpuIndex: 0, repairS: 0 };
    const result = run(4, llm(4, 5000), [crash], 'dlrover');
    expect(result.timeline[2]!.detail.startsWith('processes restarted')).toBe(true);
    expect(result.jobs[0]!.phase).toBe('completed');
  });

  it('restarts processes on a node in place three times; the fourth crash there relaunches its pod', () => {
    const crashes = [2000, 4000, 6000, 8000].map((timeS) => ({ timeS, type: CRASH, nodeIndex: 1, gpuIndex: 0, repairS: 0 }));
    const result = run(5, llm(4, 20_000), crashes, 'dlrover');
    const details = result.timeline.filter((r) => r.event === 'job-recovering').map((r) => r.detail.split(';')[0]);
    expect(details).toEqual(['processes restarted', 'processes restarted', 'processes restarted', '1 pods replaced']);
  });

  it('relaunches a pod lineage three times; after that the worker is dropped and the job goes on smaller', () => {
    // The lineage of the pod on n0 moves to the spares n4, n5, n6 (pack takes the lowest free node),
    // and each of those fails in turn.
    const downs = [1000, 3000, 5000, 7000].map((timeS, i) => ({ timeS, type: NODE_DOWN, nodeIndex: [0, 4, 5, 6][i]!, gpuIndex: null, repairS: 1e6 }));
    const result = run(8, llm(4, 50_000), downs, 'dlrover');
    const details = result.timeline.filter((r) => r.event === 'job-recovering').map((r) => r.detail.split(';')[0]);
    expect(details).toEqual(['1 pods replaced', '1 pods replaced', '1 pods replaced', 'relaunches exhausted: scaled down to 2 workers']);
    // n7 stays free: the dropped worker is not replaced, so the job never grows back.
    expect(result.timeline.some((r) => r.event === 'job-scaled-up')).toBe(false);
    expect(result.jobs[0]!.phase).toBe('completed');
    // Below its requested workers from the drop at 7000 s to the end.
    expect(result.jobs[0]!.scaledDownS).toBeCloseTo(result.jobs[0]!.endS! - 7000, 6);
  });
});

describe('torch-elastic recovery', () => {
  it('fails the job when the rank-0 node holding the rendezvous store is lost; a user resubmits it', () => {
    const node0 = { timeS: 1000, type: NODE_DOWN, nodeIndex: 0, gpuIndex: null, repairS: 100 };
    const result = run(5, llm(4, 5000), [node0], 'torch-elastic');
    expect(result.timeline.map((r) => r.event)).toEqual(['fault', 'job-crash', 'repair', 'job-resubmitted']);
    expect(result.jobs[0]!.phase).toBe('completed');
  });

  it('replaces another lost node in place without a node check', () => {
    const node2 = { timeS: 1000, type: NODE_DOWN, nodeIndex: 2, gpuIndex: null, repairS: 100 };
    const result = run(5, llm(4, 5000), [node2], 'torch-elastic');
    // No node check: 300 s pod + the job's own 480 s load.
    expect(result.timeline[2]!.detail).toBe('1 pods replaced; training resumes in 780 s');
  });
});

describe('broken hardware the scheduler cannot see', () => {
  const GPU_DOWN = faultType('xid-74-nvlink', { kind: 'gpu-down' });

  it('dlrover: the node check finds the broken GPU at once, takes it out of service and replaces the pod', () => {
    const gpu = { timeS: 1000, type: GPU_DOWN, nodeIndex: 1, gpuIndex: 5, repairS: 3600 };
    const result = run(5, llm(4, 5000), [gpu], 'dlrover');
    expect(result.timeline.slice(0, 4).map((r) => `${r.timeS} ${r.event}`)).toEqual([
      '1000 fault',
      '1000 job-crash',
      '1000 isolated',
      '1000 job-recovering',
    ]);
    expect(result.timeline[3]!.detail.startsWith('1 pods replaced')).toBe(true);
    expect(result.jobs[0]!.restarts).toBe(1);
  });

  it('manual: the resubmitted job lands on the broken GPU again and again until the SRE round takes it out', () => {
    // The trace keeps the GPU broken past the SRE round (it is back at 101,000 s).
    const gpu = { timeS: 1000, type: GPU_DOWN, nodeIndex: 1, gpuIndex: 5, repairS: 100_000 };
    const result = run(4, llm(4, 5000), [gpu], 'fifo');
    const crashes = result.timeline.filter((r) => r.event === 'job-crash').map((r) => r.timeS);
    // Every cycle: noticed at the next 10-min poll, 5 min of pod scheduling, 8 min load, crash.
    expect(crashes.slice(0, 3)).toEqual([1000, 1200 + 300 + 480, 2400 + 300 + 480]);
    const isolated = result.timeline.find((r) => r.event === 'isolated')!;
    expect(isolated.timeS).toBe(24 * 3600);
    expect(crashes.every((t) => t <= isolated.timeS)).toBe(true);
    // Without a spare node the rigid-size restart waits for the repair, then completes.
    expect(result.jobs[0]!.phase).toBe('completed');
    expect(result.jobs[0]!.restarts).toBe(crashes.length);
  });
});
