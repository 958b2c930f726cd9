import { describe, expect, it } from 'vitest';
import type { CheckpointSpec, JobSpec, PriorityClass } from '../../src/model/job-spec.js';
import { presetNames } from '../../src/policies/presets.js';
import { simulate, type SimResult } from '../../src/sim/simulation.js';
import { DEFAULT_SIM_PARAMS } from '../../src/scenario/scenario.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** Checkpoints every `intervalS` of training, saving and loading in no time. */
function checkpointEvery(intervalS: number): CheckpointSpec {
  return { intervalS, saveS: 0, loadS: 0, flash: false };
}

/** A batch job of one worker of `gpus` GPUs in a priority class, optionally checkpointing. */
function classedJob(id: string, priority: PriorityClass, submitS: number, gpus: number, durationS: number, checkpoint?: CheckpointSpec): JobSpec {
  return { ...batchJob(id, submitS, gpus, durationS), priority, ...(checkpoint ? { checkpoint } : {}) };
}

/** The job of a run by id. */
function jobOf(result: SimResult, id: string) {
  const job = result.jobs.find((j) => j.spec.id === id);
  if (!job) throw new Error(`no job ${id}`);
  return job;
}

const RESIZE_PAUSE_S = DEFAULT_SIM_PARAMS.resizePauseS;

describe('priority classes: high-priority jobs preempt spot jobs', () => {
  // One 8-GPU node: a spot job checkpointing every 100 s runs from 0; at 250 a high-priority job
  // needs the whole node.
  const jobs = [classedJob('spot', 'spot', 0, 8, 1000, checkpointEvery(100)), classedJob('high', 'high', 250, 8, 100)];
  const result = simulate(scenarioOf(gpuCluster(1, 8), jobs));
  const spot = jobOf(result, 'spot');
  const high = jobOf(result, 'high');

  it('starts the high-priority job at once by preempting the spot job', () => {
    expect(high.firstStartS).toBe(250);
    expect(high.endS).toBe(350);
    expect(spot.preemptions).toBe(1);
  });

  it('makes the spot job lose the work since its last checkpoint (at 200 s) and redo it', () => {
    expect(spot.reclaimLostSteps).toBeCloseTo(50, 6);
    expect(spot.reclaimLostGpuS).toBeCloseTo(50 * 8, 6);
    // Back at 350 after a resize pause, from step 200: 800 steps left.
    expect(spot.endS).toBeCloseTo(350 + RESIZE_PAUSE_S + 800, 6);
    expect(spot.phase).toBe('completed');
  });

  it('counts spot preemptions and the GPU-hours they lost in the summary, by class', () => {
    const classes = result.summary.priorityClasses!;
    expect(classes.spot).toMatchObject({ jobs: 1, completed: 1, preemptions: 1 });
    expect(classes.spot.preemptionLostGpuHours).toBeCloseTo((50 * 8) / 3600, 5);
    expect(classes.high).toMatchObject({ jobs: 1, completed: 1 });
    expect(classes.high.jctS.mean).toBe(100);
    expect(classes.spot.jctS.mean).toBeCloseTo(350 + RESIZE_PAUSE_S + 800, 3);
    // Work lost to a preemption is not lost to faults.
    expect(result.summary.lostGpuHours).toBe(0);
  });

  it('loses all the work of a spot job that never checkpoints', () => {
    const run = simulate(scenarioOf(gpuCluster(1, 8), [classedJob('spot', 'spot', 0, 8, 1000), classedJob('high', 'high', 250, 8, 100)]));
    expect(jobOf(run, 'spot').reclaimLostSteps).toBeCloseTo(250, 6);
    expect(jobOf(run, 'spot').endS).toBeCloseTo(350 + RESIZE_PAUSE_S + 1000, 6);
  });
});

describe('priority classes: who is preempted', () => {
  it('never preempts a high-priority job for another one: the second waits', () => {
    const run = simulate(scenarioOf(gpuCluster(1, 8), [classedJob('h1', 'high', 0, 8, 500), classedJob('h2', 'high', 100, 8, 100)]));
    expect(jobOf(run, 'h1').preemptions).toBe(0);
    expect(jobOf(run, 'h2').firstStartS).toBe(500);
    expect(run.summary.priorityClasses).toBeUndefined();
  });

  it('never preempts a high-priority job for a spot one, nor a spot job for a spot one', () => {
    const run = simulate(
      scenarioOf(gpuCluster(1, 8), [classedJob('h', 'high', 0, 4, 500), classedJob('s1', 'spot', 0, 4, 500), classedJob('s2', 'spot', 10, 8, 100)]),
    );
    expect(jobOf(run, 'h').preemptions).toBe(0);
    expect(jobOf(run, 's1').preemptions).toBe(0);
    expect(jobOf(run, 's2').firstStartS).toBe(500);
    expect(run.summary.priorityClasses!.spot.preemptions).toBe(0);
  });

  it('preempts the most recently started spot jobs, only as many as the job needs', () => {
    // Two nodes: old spot on node 0 from 0, young spot on node 1 from 50; a high job needs one node.
    const run = simulate(
      scenarioOf(gpuCluster(2, 8), [classedJob('old', 'spot', 0, 8, 1000), classedJob('young', 'spot', 50, 8, 1000), classedJob('high', 'high', 100, 8, 100)]),
    );
    expect(jobOf(run, 'young').preemptions).toBe(1);
    expect(jobOf(run, 'old').preemptions).toBe(0);
    expect(jobOf(run, 'high').firstStartS).toBe(100);
  });

  it('preempts nothing while even every spot job does not free enough, and reclaims once it does', () => {
    // big (8 GPUs) cannot start while h holds 6; when h ends at 500, the spot job's 2 GPUs are the rest.
    const jobs = [classedJob('h', 'high', 0, 6, 500), classedJob('s', 'spot', 0, 2, 1000), classedJob('big', 'high', 10, 8, 100)];
    const early = simulate(scenarioOf(gpuCluster(1, 8), jobs, { horizonS: 400 }));
    expect(jobOf(early, 's').preemptions).toBe(0);
    expect(jobOf(early, 'big').firstStartS).toBeNull();
    const run = simulate(scenarioOf(gpuCluster(1, 8), jobs));
    expect(jobOf(run, 'big').firstStartS).toBe(500);
    expect(jobOf(run, 's').preemptions).toBe(1);
  });

  it('leaves jobs of other GPU models alone', () => {
    const cluster = { nodes: [...gpuCluster(1, 8).nodes, { ...gpuCluster(1, 8).nodes[0]!, name: 'h0', gpuType: 'H100' }] };
    const onA100 = { ...classedJob('a100', 'spot', 0, 8, 1000), gpuTypes: ['A100'] };
    const onH100 = { ...classedJob('h100', 'spot', 0, 8, 1000), gpuTypes: ['H100'] };
    const high = { ...classedJob('high', 'high', 100, 8, 100), gpuTypes: ['H100'] };
    const run = simulate(scenarioOf(cluster, [onA100, onH100, high]));
    expect(jobOf(run, 'a100').preemptions).toBe(0);
    expect(jobOf(run, 'h100').preemptions).toBe(1);
    expect(jobOf(run, 'high').firstStartS).toBe(100);
  });
});

describe('priority classes under every preset', () => {
  const jobs = [classedJob('spot', 'spot', 0, 8, 1000, checkpointEvery(100)), classedJob('high', 'high', 250, 8, 100)];
  it.each(presetNames())('%s: the high-priority job starts when it arrives, and the run is deterministic', (preset) => {
    const run = () => simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy: preset }));
    const first = run();
    expect(jobOf(first, 'high').firstStartS).toBe(250);
    expect(jobOf(first, 'spot').preemptions).toBeGreaterThanOrEqual(1);
    expect(jobOf(first, 'spot').phase).toBe('completed');
    const again = run();
    expect(JSON.stringify(again.summary)).toBe(JSON.stringify(first.summary));
  });
});
