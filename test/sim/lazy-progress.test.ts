import { describe, expect, it } from 'vitest';
import { RandomStream } from '../../src/engine/random.js';
import type { LossCurveSpec } from '../../src/model/job-spec.js';
import { createFifo } from '../../src/policies/scheduling/fifo.js';
import type { SchedulingContext, SchedulingPolicy } from '../../src/policies/types.js';
import { JobRuntime, type JobWatcher } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** Jobs running through the whole test: 1-GPU batch jobs of 1 step per second. */
const RUNNING_JOBS = 1000;
const LONG_S = 10_000;

/** What a FIFO wrapper saw at each of its calls: the time, the watcher's touch count, and the running jobs' views. */
interface Call {
  readonly nowS: number;
  readonly touchesBefore: number;
  readonly progress: readonly number[];
  readonly attainedGpuS: readonly number[];
  readonly lastUpdateS: readonly number[];
}

/**
 * FIFO that wraps the watcher of every job it sees queued with one counting `touched` (the
 * invariant checker still hears of everything), and records what it reads at each call.
 */
function countingFifo(calls: Call[]): { policy: SchedulingPolicy; touches: () => number } {
  const fifo = createFifo();
  let touches = 0;
  const wrapped = new WeakSet<JobRuntime>();
  const wrap = (job: JobRuntime): void => {
    if (wrapped.has(job)) return;
    wrapped.add(job);
    const inner = job.watcher;
    const counting: JobWatcher = {
      touched: (j) => {
        touches++;
        inner?.touched(j);
      },
      phaseChanged: (j, from) => inner?.phaseChanged(j, from),
    };
    job.watcher = counting;
  };
  const policy: SchedulingPolicy = {
    name: 'counting-fifo',
    schedule: (context: SchedulingContext) => {
      const running = context.running as readonly JobRuntime[];
      for (const job of context.queued as readonly JobRuntime[]) wrap(job);
      calls.push({
        nowS: context.nowS,
        touchesBefore: touches,
        progress: running.map((j) => j.progressSteps),
        attainedGpuS: running.map((j) => j.attainedGpuS),
        lastUpdateS: running.map((j) => j.lastUpdateS),
      });
      return fifo.schedule(context);
    },
  };
  return { policy, touches: () => touches };
}

/** 1,000 one-GPU jobs start at 0 s; one job arrives at 100 s and another at 200 s. */
function runBusyCluster(): Call[] {
  const jobs = Array.from({ length: RUNNING_JOBS }, (_, i) => batchJob(`r${i}`, 0, 1, LONG_S));
  jobs.push(batchJob('x', 100, 1, LONG_S), batchJob('y', 200, 1, LONG_S));
  const calls: Call[] = [];
  const { policy } = countingFifo(calls);
  // 126 nodes of 8 GPUs: room for all of them at once.
  new Simulation(scenarioOf(gpuCluster(126, 8), jobs), { schedulingPolicy: policy }).run();
  return calls;
}

describe('job progress read when a policy reads it', () => {
  const calls = runBusyCluster();
  const at = (nowS: number): Call => {
    const call = calls.find((c) => c.nowS === nowS);
    if (!call) throw new Error(`no scheduling pass at ${nowS}s`);
    return call;
  };

  it('brings up to date only the jobs a pass changes, not every running job', () => {
    // From the pass at 100 s (x arrives) to the pass at 200 s (y arrives): x starts, and nothing
    // else happens to the 1,000 jobs running all along.
    const touched = at(200).touchesBefore - at(100).touchesBefore;
    expect(at(100).progress.length).toBe(RUNNING_JOBS);
    expect(at(200).progress.length).toBe(RUNNING_JOBS + 1);
    expect(touched).toBeGreaterThanOrEqual(1);
    expect(touched).toBeLessThanOrEqual(2);
    // Their accounting was stored when they started and not since.
    expect(new Set(at(200).lastUpdateS.slice(0, RUNNING_JOBS))).toEqual(new Set([0]));
  });

  it('shows a policy every running job as of the pass, though the job was last updated when it started', () => {
    const call = at(200);
    const longRunning = call.progress.slice(0, RUNNING_JOBS);
    // 1 step per second on 1 GPU since 0 s.
    expect(new Set(longRunning)).toEqual(new Set([200]));
    expect(new Set(call.attainedGpuS.slice(0, RUNNING_JOBS))).toEqual(new Set([200]));
    // x started at 100 s: 100 steps and 100 GPU-seconds by 200 s.
    expect(call.progress[RUNNING_JOBS]).toBe(100);
    expect(call.attainedGpuS[RUNNING_JOBS]).toBe(100);
  });
});

/** A running all-reduce job of 2 workers (2 steps per second at its requested shape) on a clock the test moves. */
function runningJob(loss?: LossCurveSpec): { job: JobRuntime; clock: { nowS: number } } {
  const clock = { nowS: 0 };
  const spec = allreduceJob('j', { workers: 2, totalSteps: 1e9, computeS: 0.5 });
  const job = new JobRuntime(loss ? { ...spec, loss } : spec, 1, clock);
  job.phase = 'running';
  job.firstStartS = 0;
  job.workers = 2;
  job.gpus = 16;
  job.baseRateStepsPerS = job.nominalRateStepsPerS;
  return { job, clock };
}

/** Steps and GPU-seconds a fresh job in the same state as `job` stores when brought up to `atS` (GPU-seconds added to the job's stored ones). */
function updatedCopy(job: JobRuntime, atS: number): number[] {
  const copy = runningJob().job;
  copy.progressSteps = job.storedProgressSteps;
  copy.speedFactor = job.speedFactor;
  copy.hardwareFactor = job.hardwareFactor;
  copy.gpus = job.gpus;
  copy.lastUpdateS = job.lastUpdateS;
  copy.advanceTo(atS);
  // The copy's GPU-seconds start at 0, so they are exactly gpus × (atS − lastUpdateS).
  return [copy.storedProgressSteps, job.storedAttainedGpuS + copy.storedAttainedGpuS];
}

describe('a job read between updates', () => {
  it('reads, at any time, exactly what bringing it up to date then would store', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const random = new RandomStream(`lazy-progress:${seed}`);
      const { job, clock } = runningJob();
      for (let change = 0; change < 50; change++) {
        // Several reads between two updates, at growing times; each equals what an update then would store.
        const readsAtS: number[] = [];
        for (let read = 0; read < 3; read++) {
          clock.nowS += random.exponential(1 / 700);
          readsAtS.push(clock.nowS);
        }
        const seen = readsAtS.map((atS) => {
          clock.nowS = atS;
          return [job.progressSteps, job.attainedGpuS];
        });
        expect(seen).toEqual(readsAtS.map((atS) => updatedCopy(job, atS)));
        job.advanceTo(clock.nowS);
        expect(job.storedProgressSteps).toBe(seen[2]![0]);
        expect(job.storedAttainedGpuS).toBe(seen[2]![1]);
        // Reading right after the update gives the stored values themselves.
        expect(job.progressSteps).toBe(job.storedProgressSteps);
        expect(job.attainedGpuS).toBe(job.storedAttainedGpuS);
        // The rate and the GPUs change, as they do at a resize or slowdown.
        job.speedFactor = 0.25 + random.uniform();
        job.hardwareFactor = random.uniform() < 0.2 ? 0.5 : 1;
        job.gpus = 1 + random.int(32);
      }
    }
  });

  it('does not grow a job that is not training', () => {
    const { job, clock } = runningJob();
    clock.nowS = 100;
    job.advanceTo(100);
    const steps = job.progressSteps;
    expect(steps).toBeGreaterThan(0);
    job.paused = true;
    clock.nowS = 250;
    // Paused: no steps, but the GPUs are still held.
    expect(job.progressSteps).toBe(steps);
    expect(job.attainedGpuS).toBe(job.storedAttainedGpuS + 16 * 150);
    job.advanceTo(250);
    job.phase = 'queued';
    clock.nowS = 400;
    expect(job.progressSteps).toBe(steps);
    expect(job.attainedGpuS).toBe(job.storedAttainedGpuS);
  });

  it('reports loss values up to the steps done as of the clock', () => {
    const curve: LossCurveSpec = { b0: 2e-4, b1: 0.5, b2: 0.3, noise: 0.01, targetLoss: 0.36 };
    const { job, clock } = runningJob(curve);
    job.advanceTo(0);
    const before = job.lossSamples().length;
    clock.nowS = 1e8;
    // 2e8 steps of 1e9 done by now, never stored: a fifth of the curve's reports.
    expect(job.storedProgressSteps).toBe(0);
    expect(job.lossSamples().length).toBeGreaterThan(before);
  });
});
