import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../src/model/job-spec.js';
import {
  createTiresias,
  queueOf,
  TIRESIAS_PROMOTE_KNOB,
  TIRESIAS_THRESHOLDS_GPU_S,
  TIRESIAS_TICK_S,
  type TiresiasOptions,
} from '../../src/policies/scheduling/tiresias.js';
import type { PlainSchedulingPolicy } from '../../src/policies/types.js';
import { Simulation, type SimResult } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** Wraps a policy to log every start and preemption it decides, as "time kind id". */
function logged(policy: PlainSchedulingPolicy): { policy: PlainSchedulingPolicy; log: string[] } {
  const log: string[] = [];
  return {
    log,
    policy: {
      name: policy.name,
      ...(policy.tickS === undefined ? {} : { tickS: policy.tickS }),
      schedule(context) {
        const actions = policy.schedule(context);
        for (const a of actions) log.push(`${context.nowS} ${a.kind} ${a.jobId}`);
        return actions;
      },
    },
  };
}

/** Runs jobs on one 8-GPU node under tiresias, checking cluster invariants after every instant. */
function run(jobs: JobSpec[], options: TiresiasOptions = {}): { result: SimResult; log: string[] } {
  const { policy, log } = logged(createTiresias(options));
  const result = new Simulation(scenarioOf(gpuCluster(1, 8), jobs), { schedulingPolicy: policy, checkInvariants: true }).run();
  return { result, log };
}

function endOf(result: SimResult, id: string): number | null {
  return result.jobs.find((j) => j.spec.id === id)!.endS;
}

describe('tiresias queues', () => {
  it('uses the documented defaults', () => {
    expect(TIRESIAS_THRESHOLDS_GPU_S).toEqual([3200]);
    expect(TIRESIAS_PROMOTE_KNOB).toBe(8);
    expect(TIRESIAS_TICK_S).toBe(60);
    expect(createTiresias().tickS).toBe(60);
  });

  it('puts a job in the queue its attained service falls in', () => {
    expect(queueOf(0, [3200])).toBe(0);
    expect(queueOf(3199.9, [3200])).toBe(0);
    expect(queueOf(3200, [3200])).toBe(1);
    expect(queueOf(1e9, [3200])).toBe(1);
    expect(queueOf(7199, [3250, 7200])).toBe(1);
    expect(queueOf(7200, [3250, 7200])).toBe(2);
  });
});

describe('tiresias scheduling', () => {
  it('lets a newly arrived job preempt a job demoted after crossing its threshold', () => {
    // a (8 GPUs, 1000 s) crosses 3,200 GPU-s at 400 s; b (8 GPUs, 300 s) arrives at 500 s in the top
    // queue and preempts it. a restarts when b ends, pauses 30 s and finishes its last 500 s.
    const { result, log } = run([batchJob('a', 0, 8, 1000), batchJob('b', 500, 8, 300)]);
    expect(log).toEqual(['0 start a', '500 preempt a', '500 start b', '800 start a']);
    expect(endOf(result, 'b')).toBe(800);
    expect(endOf(result, 'a')).toBe(1330);
    expect(result.jobs[0]!.preemptions).toBe(1);
  });

  it('does not preempt within a queue, and acts on a demotion at the next tick', () => {
    // b arrives at 300 s while a (2,400 GPU-s) is in the same queue: it waits. a is demoted at 400 s;
    // the tick at 420 s preempts it.
    const { result, log } = run([batchJob('a', 0, 8, 1000), batchJob('b', 300, 8, 300)]);
    expect(log).toEqual(['0 start a', '420 preempt a', '420 start b', '720 start a']);
    expect(endOf(result, 'a')).toBe(720 + 30 + 580);
  });

  it('serves a queue FIFO by arrival, not by least attained service', () => {
    // a runs 0-420 s (3,360 GPU-s) and is preempted by b; b runs 420-830 s (3,280 GPU-s, demoted at
    // 820 s) and is preempted by c. When c ends both wait in the lower queue: a arrived first, so it
    // starts first although b attained less service; b (same queue) waits for a to finish.
    const { result, log } = run([batchJob('a', 0, 8, 1000), batchJob('b', 10, 8, 1000), batchJob('c', 830, 8, 100)]);
    expect(log).toEqual([
      '0 start a',
      '420 preempt a',
      '420 start b',
      '830 preempt b',
      '830 start c',
      '930 start a',
      '1540 start b',
    ]);
    expect(endOf(result, 'a')).toBe(930 + 30 + 580);
    expect(endOf(result, 'b')).toBe(1540 + 30 + 590);
  });

  it('promotes a starving job back to the top queue after it waited PROMOTE_KNOB x its executed time', () => {
    // long (8 GPUs, 2,000 s) is demoted at 400 s and preempted by a stream of 300-s top-queue jobs.
    const stream = [400, 700, 1000, 1300, 1600].map((submitS, k) => batchJob(`s${k + 1}`, submitS, 8, 300));
    const jobs = [batchJob('long', 0, 8, 2000), ...stream];
    // Knob 1: having run 400 s, long is promoted once it has waited 400 s (tick at 840 s); back in the
    // top queue it arrived first, so it starts when s2 ends at 1000 s, ahead of s3.
    const guarded = run(jobs, { promoteKnob: 1 });
    expect(guarded.log.slice(0, 5)).toEqual(['0 start long', '400 preempt long', '400 start s1', '700 start s2', '1000 start long']);
    // Without the guard it waits behind the whole stream.
    const unguarded = run(jobs, { promoteKnob: 0 });
    expect(unguarded.log.filter((line) => line.endsWith(' long'))).toEqual(['0 start long', '400 preempt long', '1900 start long']);
    expect(endOf(guarded.result, 's3')).toBeGreaterThan(endOf(unguarded.result, 's3')!);
  });

  it('preempts only as many lower-queue jobs as the newcomer needs, lowest priority first', () => {
    // x and y (4 GPUs each) are both demoted by 1,000 s; z (4 GPUs) arrives and needs one of them:
    // only one goes, the later arrival (y).
    const { log } = run([batchJob('x', 0, 4, 2000), batchJob('y', 5, 4, 2000), batchJob('z', 1000, 4, 100)]);
    expect(log).toEqual(['0 start x', '5 start y', '1000 preempt y', '1000 start z', '1100 start y']);
  });
});
