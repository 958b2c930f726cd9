import { describe, expect, it } from 'vitest';
import { RandomStream } from '../../src/engine/random.js';
import type { LossCurveSpec } from '../../src/model/job-spec.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { allreduceJob } from '../helpers.js';

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
