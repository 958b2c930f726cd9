import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { createSjf, oracleRemainingS } from '../../src/policies/scheduling/sjf.js';
import type { OracleJobView, SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { simulate } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, scenarioOf, NO_CHANGES } from '../helpers.js';

function startTimes(result: ReturnType<typeof simulate>): Record<string, number | null> {
  return Object.fromEntries(result.jobs.map((j) => [j.spec.id, j.firstStartS]));
}

/** A one-worker (8-GPU) all-reduce job of `steps` steps taking `stepTimeS` each (no all-reduce at one worker). */
function oneNodeJob(id: string, steps: number, stepTimeS: number): JobSpec {
  return allreduceJob(id, { workers: 1, totalSteps: steps, computeS: stepTimeS });
}

describe('sjf scheduling', () => {
  it('starts the job with the shortest remaining time first', () => {
    // One 8-GPU node, three full-node jobs submitted together: 100 s, 10 s and 50 s.
    const jobs = [batchJob('long', 0, 8, 100), batchJob('short', 0, 8, 10), batchJob('mid', 0, 8, 50)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'sjf' }), { checkInvariants: true });
    expect(startTimes(result)).toEqual({ long: 60, short: 0, mid: 10 });
    // Mean JCT (10 + 60 + 160) / 3 against FIFO's (100 + 110 + 160) / 3.
    expect(result.summary.jctS.mean).toBeCloseTo(230 / 3, 2);
    const fifo = simulate(scenarioOf(gpuCluster(1, 8), jobs), { checkInvariants: true });
    expect(fifo.summary.jctS.mean).toBeCloseTo(370 / 3, 2);
  });

  it('skips a short job that does not fit and starts a longer one that does (backfilling); FIFO blocks', () => {
    // "busy" holds 6 of 8 GPUs until 100. "big" (8 GPUs, 10 s) is the shortest but cannot fit;
    // "small" (2 GPUs, 50 s) fits beside "busy".
    const jobs = [batchJob('busy', 0, 6, 100), batchJob('big', 1, 8, 10), batchJob('small', 2, 2, 50)];
    const sjf = simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'sjf' }), { checkInvariants: true });
    expect(startTimes(sjf)).toEqual({ busy: 0, big: 100, small: 2 });
    const fifo = simulate(scenarioOf(gpuCluster(1, 8), jobs), { checkInvariants: true });
    expect(startTimes(fifo)).toEqual({ busy: 0, big: 100, small: 110 });
  });

  it('ranks by oracle remaining time: steps left over the nominal speed, not the job size or total duration', () => {
    // "steps" needs 100 steps of 2 s (200 s) but has done 60: 80 s left; "batch" needs 100 s.
    const stepsJob = oneNodeJob('steps', 100, 2);
    const batch = batchJob('batch', 0, 8, 100);
    const cluster = new ClusterState(gpuCluster(1, 8));
    const queued = [batch, stepsJob].map((spec, index) => {
      const job = new JobRuntime(spec, 1, { nowS: 0 });
      job.arrivalIndex = index;
      job.phase = 'queued';
      return job;
    });
    queued[1]!.progressSteps = 60;
    expect(oracleRemainingS(queued[1]!)).toBeCloseTo(80, 9);
    expect(oracleRemainingS(queued[0]!)).toBe(100);
    const context: SchedulingContext<OracleJobView> = {
      nowS: 0,
      cluster,
      queued,
      queuedInOrder: () => queued,
      running: [],
      placement: packPlacement,
      scratch: () => new CapacityScratch(cluster),
      changes: NO_CHANGES,
    };
    const actions = createSjf().schedule(context);
    expect(actions.map((a) => a.jobId)).toEqual(['steps']);
  });

  it('keeps submission order among jobs with equal remaining time', () => {
    const jobs = [batchJob('first', 0, 8, 30), batchJob('second', 0, 8, 30), batchJob('third', 0, 8, 30)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'sjf' }), { checkInvariants: true });
    expect(startTimes(result)).toEqual({ first: 0, second: 30, third: 60 });
  });
});
