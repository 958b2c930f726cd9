import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { keyedNormal, SPEED_NOISE } from '../../src/model/observations.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { placementRequestOf, type SchedulingAction, type SchedulingContext, type SchedulingPolicy } from '../../src/policies/types.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** A policy that logs when it is called and returns what `script` says for that moment. */
function scripted(script: (context: SchedulingContext) => SchedulingAction[], tickS?: number): SchedulingPolicy & { calls: number[] } {
  const calls: number[] = [];
  return { name: 'scripted', calls, ...(tickS === undefined ? {} : { tickS }), schedule: (c) => (calls.push(c.nowS), script(c)) };
}

/** Starts every queued job at its requested size when it fits (FIFO without blocking). */
function startAll(context: SchedulingContext): SchedulingAction[] {
  const scratch = context.scratch();
  const actions: SchedulingAction[] = [];
  for (const job of context.queued) {
    const tasks = packPlacement.place(scratch, placementRequestOf(job.request));
    if (tasks) actions.push({ kind: 'start', jobId: job.request.id, tasks });
  }
  return actions;
}

function elasticAllreduce(id: string, workers: number, min: number, max: number, totalSteps: number): JobSpec {
  return allreduceJob(id, { workers, totalSteps, elastic: { minReplicas: min, maxReplicas: max, unit: 1 } });
}

describe('simulation actions', () => {
  it('resizes an elastic job: pauses it, keeps its progress, and runs at the new speed', () => {
    const job = elasticAllreduce('e', 2, 1, 4, 1000);
    const policy = scripted((c) => {
      if (c.queued.length > 0) return startAll(c);
      const running = c.running[0];
      if (c.nowS === 100 && running && running.workers === 2) {
        const tasks = packPlacement.place(c.scratch(), { jobId: 'e', gpuTypes: [], replicas: [
          { role: 'worker', demand: job.roles[0]!.demand },
          { role: 'worker', demand: job.roles[0]!.demand },
        ] })!;
        return [{ kind: 'resize', jobId: 'e', add: tasks, remove: [] }];
      }
      return [];
    }, 100);
    const result = new Simulation(scenarioOf(gpuCluster(4, 8), [job]), { schedulingPolicy: policy, checkInvariants: true }).run();
    const e = result.jobs[0]!;
    // 100 steps at 1 step/s, a 30 s pause, then 900 steps at 2 steps/s.
    expect(e.endS).toBe(580);
    expect(e.pausedS).toBe(30);
    expect(e.resizes).toBe(1);
    expect(e.gpusWhenRunning).toBe(32);
    // One sample for the shape it left (a job that has ended needs none for its last shape).
    expect(e.speedSamples).toHaveLength(1);
    expect(e.speedSamples[0]!.workers).toBe(2);
    expect(e.speedSamples[0]!.stepsPerS).toBeCloseTo(1, 1);
    // Scaled beyond its request, it trains faster than nominal: its effective time is capped at the 550 s it trained.
    expect(result.summary.ettr).toBeCloseTo(550 / 580, 6);
    expect(result.summary.runtimeRatio).toBeCloseTo(550 / 580, 6);
  });

  it('gives each speed sample its keyed measurement noise, the same whether read at every pass or once at the end', () => {
    const job = elasticAllreduce('e', 2, 1, 4, 1000);
    const run = (readEveryPass: boolean) => {
      const read: number[] = [];
      const policy = scripted((c) => {
        if (c.queued.length > 0) return startAll(c);
        const running = c.running[0];
        if (readEveryPass && running) read.push(running.speedSamples.length);
        if (running && (c.nowS === 100 || c.nowS === 200) && running.workers < 4) {
          const tasks = packPlacement.place(c.scratch(), { jobId: 'e', gpuTypes: [], replicas: [{ role: 'worker', demand: job.roles[0]!.demand }] })!;
          return [{ kind: 'resize', jobId: 'e', add: tasks, remove: [] }];
        }
        return [];
      }, 100);
      const scenario = scenarioOf(gpuCluster(4, 8), [job]);
      return { seed: scenario.seed, read, job: new Simulation(scenario, { schedulingPolicy: policy, checkInvariants: true }).run().jobs[0]! };
    };
    const eager = run(true);
    const lazy = run(false);
    // Read between the two samples too, and not at all in the other run.
    expect(eager.read).toContain(1);
    expect(lazy.read).toEqual([]);
    expect(eager.job.speedSamples.map((s) => s.workers)).toEqual([2, 3]);
    expect(lazy.job.speedSamples).toEqual(eager.job.speedSamples);
    // The first shape trained at 1 step/s; its sample is that speed times the noise keyed by seed, job and index.
    expect(eager.job.speedSamples[0]!.stepsPerS).toBeCloseTo(1 + SPEED_NOISE * keyedNormal(`dlsim:${eager.seed}:speed:e:0`), 12);
    expect(eager.job.speedSamples[0]!.stepsPerS).not.toBe(1);
  });

  it('tells the scheduling policy which running jobs changed tasks since it last looked', () => {
    const job = elasticAllreduce('e', 2, 1, 4, 1000);
    const resized: string[] = [];
    const policy = scripted((c) => {
      resized.push(`${c.nowS}:${c.changes.resized.map((j) => j.request.id).join(',')}`);
      if (c.queued.length > 0) return startAll(c);
      const running = c.running[0];
      if (c.nowS === 100 && running && running.workers === 2) {
        const tasks = packPlacement.place(c.scratch(), { jobId: 'e', gpuTypes: [], replicas: [{ role: 'worker', demand: job.roles[0]!.demand }] })!;
        return [{ kind: 'resize', jobId: 'e', add: tasks, remove: [] }];
      }
      return [];
    }, 100);
    new Simulation(scenarioOf(gpuCluster(4, 8), [job]), { schedulingPolicy: policy, checkInvariants: true }).run();
    // The resize at 100 s is reported at the next pass (the tick at 200 s), once.
    expect(resized.slice(0, 3)).toEqual(['0:', '100:', '200:e']);
    expect(resized.filter((r) => r.endsWith(':e'))).toHaveLength(1);
  });

  it('preempts a job back into the queue with its progress and restarts it after a pause', () => {
    const a = batchJob('a', 0, 8, 1000);
    const b = batchJob('b', 50, 8, 100);
    const policy = scripted((c) => {
      if (c.nowS === 50 && c.running.some((j) => j.request.id === 'a')) {
        const scratch = c.scratch();
        scratch.unreserve(c.cluster.tasksOf('a')!);
        const tasks = packPlacement.place(scratch, placementRequestOf(b))!;
        return [{ kind: 'preempt', jobId: 'a' }, { kind: 'start', jobId: 'b', tasks }];
      }
      return c.nowS === 50 ? [] : startAll(c);
    });
    const result = new Simulation(scenarioOf(gpuCluster(1, 8), [a, b]), { schedulingPolicy: policy, checkInvariants: true }).run();
    const [jobA, jobB] = result.jobs;
    expect(jobB!.firstStartS).toBe(50);
    expect(jobB!.endS).toBe(150);
    // a: 50 s done, waits 100 s, restarts at 150, pauses 30 s, then 950 s of work.
    expect(jobA!.preemptions).toBe(1);
    expect(jobA!.queuedS).toBe(100);
    expect(jobA!.endS).toBe(150 + 30 + 950);
    expect(jobA!.firstStartS).toBe(0);
  });

  it('slows an all-reduce job whose workers span racks', () => {
    const job: JobSpec = { ...elasticAllreduce('x', 2, 2, 2, 100), elastic: null };
    const oneRack = new Simulation(scenarioOf(gpuCluster(2, 8, 2), [job])).run();
    const twoRacks = new Simulation(scenarioOf(gpuCluster(2, 8, 1), [job])).run();
    expect(oneRack.jobs[0]!.endS).toBeCloseTo(100, 9);
    expect(twoRacks.jobs[0]!.endS).toBeCloseTo(125, 9);
  });

  it('consults a periodic policy on its ticks while jobs remain, and then stops ticking', () => {
    const policy = scripted(startAll, 60);
    const result = new Simulation(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 200)]), { schedulingPolicy: policy }).run();
    expect(policy.calls).toEqual([0, 60, 120, 180]);
    expect(result.endS).toBe(240);
  });

  it('refuses a shape an elastic job may not take', () => {
    const job = elasticAllreduce('e', 2, 2, 4, 1000);
    const policy = scripted((c) => {
      if (c.queued.length === 0) return [];
      const tasks = packPlacement.place(c.scratch(), placementRequestOf(job, 1))!;
      return [{ kind: 'start', jobId: 'e', tasks }];
    });
    expect(() => new Simulation(scenarioOf(gpuCluster(4, 8), [job]), { schedulingPolicy: policy }).run()).toThrow(InvariantError);
  });
});
