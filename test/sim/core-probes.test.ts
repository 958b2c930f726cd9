/**
 * What the core must express for auto-scaling and data workers: a running PS replaced by one with
 * twice the CPU (through a checkpoint pause) trains faster; auxiliary CPU tasks of a GPU job on
 * another node give way in the same instant a training task needs that node's CPU.
 */
import { describe, expect, it } from 'vitest';
import type { AuxTask, Eviction } from '../../src/model/allocation.js';
import type { ReplicaDemand } from '../../src/model/job-spec.js';
import type { Decision } from '../../src/policies/decision.js';
import { createFifo } from '../../src/policies/scheduling/fifo.js';
import type { DataPolicy } from '../../src/policies/data/types.js';
import type { ObservingContext, SchedulingContext, SchedulingPolicy } from '../../src/policies/types.js';
import type { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, gpuDemand, psJob, scenarioOf } from '../helpers.js';

const PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 };
const CHECKPOINT = { intervalS: 3600, saveS: 30, loadS: 60, flash: false } as const;

/** FIFO that, at its first tick with job p running, replaces p's PS by one with `cpuFactor` times the CPU. */
function fifoThatGrowsThePs(cpuFactor: number, seen: { psCpuMilli: number[] }): SchedulingPolicy {
  const fifo = createFifo();
  let done = false;
  return {
    name: 'fifo-grows-ps',
    tickS: 600,
    schedule(context: SchedulingContext): readonly Decision[] {
      const decisions = fifo.schedule(context);
      const tasks = context.cluster.tasksOf('p');
      const ps = tasks?.find((t) => t.role === 'ps');
      if (ps) seen.psCpuMilli.push(ps.demand.cpuMilli);
      const running = context.running.find((job) => job.request.id === 'p');
      if (done || !ps || !running || running.paused || context.nowS < 600) return decisions;
      done = true;
      const scratch = context.scratch();
      scratch.unreserve([ps]);
      const add = context.placement.place(scratch, { jobId: 'p', gpuTypes: [], replicas: [{ role: 'ps', demand: { ...ps.demand, cpuMilli: ps.demand.cpuMilli * cpuFactor } }] });
      if (!add) return decisions;
      return [...decisions, { kind: 'reshape-role', jobId: 'p', role: 'ps', add, remove: [ps], pause: 'checkpoint-restore' }];
    },
  };
}

/** Checkpoint saves (every 3,600 s of training) in `trainingS` seconds of training after a restart. */
function savesAfter(trainingS: number): number {
  return Math.floor(trainingS / 3600);
}

function runPsJob(cpuFactor: number): { job: JobRuntime; end: number; seen: { psCpuMilli: number[] } } {
  const job = { ...psJob('p', 4, { replicas: 1, demand: PS_DEMAND }, 100_000), checkpoint: CHECKPOINT };
  const seen = { psCpuMilli: [] as number[] };
  const sim = new Simulation(scenarioOf(gpuCluster(1, 8), [job]), { schedulingPolicy: fifoThatGrowsThePs(cpuFactor, seen), checkInvariants: true });
  const result = sim.run();
  return { job: result.jobs[0]!, end: result.jobs[0]!.endS!, seen };
}

describe('a running PS replaced by one with twice the CPU', () => {
  it('is a valid reshape: the job pauses to save, restart and load its checkpoint, then trains faster than with the PS it had', () => {
    const grown = runPsJob(2);
    const kept = runPsJob(1);
    const result = grown;
    expect(result.seen.psCpuMilli).toContain(8000);
    expect(kept.seen.psCpuMilli.every((cpu) => cpu === 4000)).toBe(true);
    // Optimus speed at 4 workers, 1 PS: 4 / (0.1 + 0.02·4·r + 0.002·4 + 0.005), r = requested ÷ held PS CPU.
    const before = 4 / (0.1 + 0.08 + 0.008 + 0.005);
    const after = 4 / (0.1 + 0.04 + 0.008 + 0.005);
    // Both reshape at 600 s (the first tick; the same reshape without more CPU only pays its pause).
    const pauseS = 30 + 30 + 60; // resize pause (DEFAULT_SIM_PARAMS) + save, then load; start-up 0
    const stepsAt600 = 600 * before;
    const remainingS = (100_000 - stepsAt600) / after;
    expect(result.end).toBeLessThan(kept.end);
    // No checkpoint was due before 600 s (every 3,600 s); the reshape's save is a checkpoint, so the next is due 3,600 s of training after it.
    expect(result.end).toBeCloseTo(600 + pauseS + remainingS + savesAfter(remainingS) * 30, 0);
    // The pause is the reshape's, not recovery from a fault: no downtime is charged.
    expect(result.job.reshapes).toBe(1);
    expect(result.job.pausedByKindS.resizing).toBeCloseTo(60, 6);
    expect(result.job.pausedByKindS.loading).toBeCloseTo(60, 6);
    expect(result.job.downtimeGpuS).toBe(0);
    expect(result.job.checkpointedSteps).toBeGreaterThanOrEqual(stepsAt600 - 1e-6);
  });
});

describe('auxiliary tasks', () => {
  it('a one-GPU job gets three CPU-only tasks on another node; a training task needing that CPU takes two back in the same instant, and the data policy is told', () => {
    const evictionsSeen: { atS: number; evictions: readonly Eviction[] }[] = [];
    const attachedAt: number[] = [];
    let sim: Simulation | null = null;
    let attached = false;
    const data: DataPolicy = {
      name: 'three-data-workers',
      tickS: 50,
      data(context: ObservingContext): Decision[] {
        const g = context.running.find((job) => job.request.id === 'g');
        if (attached || !g) return [];
        attached = true;
        attachedAt.push(context.nowS);
        // Three data workers of 30 cores and 64 GiB each on node n1, which no training task uses yet.
        const tasks: AuxTask[] = [0, 1, 2].map(() => ({ nodeIndex: 1, cpuMilli: 30_000, memMiB: 65_536 }));
        expect(context.cluster.idleCpuMilli(1)).toBe(96_000);
        return [{ kind: 'attach', jobId: 'g', tasks }];
      },
      onEvicted(evictions) {
        evictionsSeen.push({ atS: sim!.nowS, evictions });
      },
    };
    const g = batchJob('g', 0, 1, 1000);
    // Eight GPUs and 64 cores: only n1 has 8 free GPUs (g holds one of n0's).
    const t = { ...batchJob('t', 200, 8, 500), roles: [{ role: 'worker' as const, replicas: 1, demand: gpuDemand(8, 64_000) }] };
    sim = new Simulation(scenarioOf(gpuCluster(2, 8), [g, t]), { dataPolicy: data, checkInvariants: true });
    const result = sim.run();
    expect(attachedAt).toEqual([50]);
    expect(evictionsSeen).toHaveLength(1);
    expect(evictionsSeen[0]!.atS).toBe(200);
    // 3 × 30 + 64 > 96 cores: the two newest give way, 30 + 64 fits.
    expect(evictionsSeen[0]!.evictions.map((e) => [e.jobId, e.task.nodeIndex, e.task.cpuMilli])).toEqual([
      ['g', 1, 30_000],
      ['g', 1, 30_000],
    ]);
    const tRun = result.jobs.find((job) => job.spec.id === 't')!;
    expect(tRun.firstStartS).toBe(200);
    expect(result.summary.jobs.completed).toBe(2);
  });

  it('an attach beyond a node\'s idle capacity is a policy bug', () => {
    const data: DataPolicy = {
      name: 'greedy-data',
      tickS: 10,
      data: (context) => (context.running.length === 0 ? [] : [{ kind: 'attach', jobId: 'g', tasks: [{ nodeIndex: 1, cpuMilli: 97_000, memMiB: 1 }] }]),
    };
    const sim = new Simulation(scenarioOf(gpuCluster(2, 8), [batchJob('g', 0, 1, 1000)]), { dataPolicy: data });
    expect(() => sim.run()).toThrow(/auxiliary tasks over-allocate n1/);
  });

  it('only a data policy attaches auxiliary tasks', () => {
    const fifo = createFifo();
    const policy: SchedulingPolicy = {
      name: 'fifo-attaching',
      tickS: 10,
      schedule: (context) => (context.running.length === 0 ? fifo.schedule(context) : [{ kind: 'attach', jobId: 'g', tasks: [{ nodeIndex: 1, cpuMilli: 1000, memMiB: 1 }] }]),
    };
    const sim = new Simulation(scenarioOf(gpuCluster(2, 8), [batchJob('g', 0, 1, 1000)]), { schedulingPolicy: policy });
    expect(() => sim.run()).toThrow(/fifo-attaching: a scheduling policy cannot attach/);
  });
});
