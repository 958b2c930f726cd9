import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import { HistoryDb, type HistoryRecord } from '../../src/io/history-db.js';
import type { AutoscalePolicy } from '../../src/policies/autoscale/types.js';
import { SIMILAR_JOBS_WITHIN_S } from '../../src/policies/autoscale/history-view.js';
import { defaultHistoryStartS, historyRecordsOf, RunHistory, runLabelOf } from '../../src/sim/history.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, psJob, scenarioOf } from '../helpers.js';

const CPU_CLUSTER = { nodes: [{ name: 'n0', group: 'cpu', gpuType: null, gpus: 0, cpuMilli: 64_000, memMiB: 262_144, rack: 'r0' }] };

/** An auto-scaler that changes nothing and listens to every running job, so the sampler keeps their records. */
const listenToAll: AutoscalePolicy = {
  name: 'listen-to-all',
  autoscale(context) {
    for (const job of context.running) context.listen(job.request.id);
    return [];
  },
};

/** A run of two PS jobs (one too long for the horizon) and a batch job, every job sampled. */
function sampledRun() {
  const done = { ...psJob('done', 2, { replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 4096 } }, 30_000), user: 'alice', dataset: 'criteo' };
  const cut = { ...psJob('cut', 1, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 4096 } }, 1e9), user: 'bob' };
  const batch = { ...batchJob('batch', 0, 0, 600), user: 'alice' };
  const scenario = scenarioOf(CPU_CLUSTER, [done, cut, batch], { horizonS: 20_000 });
  return simulate(scenario, { autoscalePolicy: listenToAll });
}

/** A record of `user`'s job on `dataset` finished at `finishedAtS`, never sampled. */
function plainRecord(jobId: string, user: string, dataset: string, finishedAtS: number): HistoryRecord {
  const none = { replicas: 0, cpuMilli: 0, memMiB: 0 };
  return {
    jobId,
    user,
    dataset,
    finishedAtS,
    runLabel: 'earlier seed 1',
    shape: { ps: { replicas: 1, cpuMilli: 4000, memMiB: 4096 }, worker: { replicas: 1, cpuMilli: 4000, memMiB: 4096 }, chief: none },
    usage: { ps: null, worker: null, chief: null },
    psTotals: null,
    meanStepsPerS: 1,
    finalStepsPerS: 1,
    totalSteps: 100,
    samples: [],
  };
}

describe('history records of a run', () => {
  it('starts a run at the first whole day after the latest finish (0 for an empty history)', () => {
    expect(defaultHistoryStartS(null)).toBe(0);
    expect(defaultHistoryStartS(0)).toBe(86_400);
    expect(defaultHistoryStartS(3_600)).toBe(86_400);
    expect(defaultHistoryStartS(86_399.5)).toBe(86_400);
    expect(defaultHistoryStartS(86_400)).toBe(172_800);
    expect(runLabelOf({ name: 'deepfm', seed: 7 })).toBe('deepfm seed 7');
  });

  it('records each completed PS job: its final shape, sampled usage, speed and samples in history time', () => {
    const result = sampledRun();
    const startS = 10 * 86_400;
    const records = historyRecordsOf(result, startS, 'test seed 1');
    expect(records.map((r) => r.jobId)).toEqual(['done']);
    const [record] = records as [HistoryRecord];
    const job = result.jobs.find((j) => j.spec.id === 'done')!;
    expect(record).toMatchObject({ user: 'alice', dataset: 'criteo', runLabel: 'test seed 1', finishedAtS: startS + job.endS!, totalSteps: 30_000 });
    expect(record.shape).toEqual({ ps: { replicas: 2, cpuMilli: 6000, memMiB: 4096 }, worker: { replicas: 2, cpuMilli: 4000, memMiB: 8192 }, chief: { replicas: 0, cpuMilli: 0, memMiB: 0 } });
    expect(record.meanStepsPerS).toBeCloseTo(30_000 / job.runningS, 9);

    const samples = result.samplesOf('done');
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.length).toBeLessThanOrEqual(50);
    expect(record.finalStepsPerS).toBe(samples[samples.length - 1]!.stepsPerS);
    expect(record.samples).toHaveLength(2 * samples.length);
    expect(record.samples[0]).toEqual({ atS: startS + samples[0]!.atS, role: 'worker', replicas: 2, cpuCores: samples[0]!.roles[0]!.cpuUsedCores, memMiB: samples[0]!.roles[0]!.memUsedMiB, stepsPerS: samples[0]!.stepsPerS });

    const psCpu = samples.map((s) => s.roles.find((r) => r.role === 'ps')!.cpuUsedCores);
    expect(record.usage.ps!.maxCpuCores).toBe(Math.max(...psCpu));
    expect(record.usage.ps!.meanCpuCores).toBeCloseTo(psCpu.reduce((a, b) => a + b, 0) / psCpu.length, 9);
    expect(record.usage.chief).toBeNull();
    // All PS together: two replicas' worth of each sample.
    expect(record.psTotals!.maxCpuCores).toBeCloseTo(2 * Math.max(...psCpu), 9);
    expect(record.psTotals!.meanCpuCores).toBeCloseTo(2 * record.usage.ps!.meanCpuCores, 9);
    expect(record.psTotals!.maxMemMiB).toBeCloseTo(2 * record.usage.ps!.maxMemMiB, 9);
    expect(record.usage.ps!.maxCpuCores).toBeGreaterThan(0);
  });

  it('keeps the final shape of PS jobs only, and records a job never sampled with its speed and no usage', () => {
    const done = psJob('solo', 1, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 2048 } }, 5_000);
    const result = simulate(scenarioOf(CPU_CLUSTER, [done, batchJob('batch', 0, 0, 60)]));
    expect(result.jobs.find((j) => j.spec.id === 'batch')!.lastShape).toEqual([]);
    const [record] = historyRecordsOf(result, 0, 'x') as [HistoryRecord];
    expect(record.samples).toEqual([]);
    expect(record.usage).toEqual({ ps: null, worker: null, chief: null });
    expect(record.psTotals).toBeNull();
    expect(record.finalStepsPerS).toBe(record.meanStepsPerS);
    expect(record.shape.ps).toEqual({ replicas: 1, cpuMilli: 2000, memMiB: 2048 });
  });
});

describe('RunHistory', () => {
  it('maps simulated time to history time, shows only what finished by then, and reads a snapshot', async () => {
    const db = await HistoryDb.fromBytes(null, 'history.sqlite');
    db.add(plainRecord('old', 'alice', 'criteo', 1_000));
    db.add(plainRecord('recent', 'alice', 'criteo', 5 * 86_400));
    db.add(plainRecord('later', 'alice', 'criteo', 6 * 86_400 + 100));
    db.add(plainRecord('other', 'alice', 'imagenet', 5 * 86_400));
    const bytes = db.bytes();
    db.close();

    const byDefault = await RunHistory.open({ file: 'history.sqlite' }, bytes);
    expect(byDefault.startS).toBe(7 * 86_400);
    // Seven days before the start reach back to day 0: 'old' finished at 1,000 s.
    expect(byDefault.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 0).map((r) => r.jobId)).toEqual(['old', 'recent', 'later']);
    expect(byDefault.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 1_000).map((r) => r.jobId)).toEqual(['old', 'recent', 'later']);
    expect(byDefault.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 1_001).map((r) => r.jobId)).toEqual(['recent', 'later']);
    byDefault.close();

    const early = await RunHistory.open({ file: 'history.sqlite', startS: 6 * 86_400 }, bytes);
    // At t = 0 the job finishing 100 s later is in the future.
    expect(early.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 0).map((r) => r.jobId)).toEqual(['old', 'recent']);
    expect(early.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 100).map((r) => r.jobId)).toEqual(['old', 'recent', 'later']);
    expect(early.view.similar('alice', 'criteo', 86_400, 0).map((r) => r.jobId)).toEqual(['recent']);
    expect(early.view.similar('alice', 'criteo', 86_400, 101).map((r) => r.jobId)).toEqual(['later']);

    // Adding the run's records closes the view: what a run read is what the history held when it started.
    early.record(sampledRun(), 'run seed 1');
    expect(early.size).toBe(5);
    expect(() => early.view.similar('alice', 'criteo', SIMILAR_JOBS_WITHIN_S, 0)).toThrow(InvariantError);
    early.close();
  });
});
