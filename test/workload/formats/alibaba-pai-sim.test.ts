import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTrace } from '../../../src/cli/trace-generate.js';
import { ConfigError, TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { MAX_GPUS_PER_NODE } from '../../../src/model/limits.js';
import { alibabaPaiSimFormat, PAI_SIM_JOBS_FILE } from '../../../src/workload/formats/alibaba-pai-sim.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { rejection } from '../../cli-run.js';
import { batchJob } from '../../helpers.js';
import { readAllJobs, SAMPLES, withoutSource, writeLines } from './format-helpers.js';

const HEADER = 'job_id,user,group,gpu_type,num_inst,num_gpu,num_cpu,submit_time,duration';

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-pai-sim-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a job CSV of the given lines (a fresh name each time). */
function csvFile(lines: readonly string[]): Promise<string> {
  return writeLines(dir, `jobs-${++files}.csv`, lines);
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(paths: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(alibabaPaiSimFormat, paths, options);
}

/** The first role of a job: replicas and demand. */
function workerOf(job: JobSpec | undefined) {
  const role = job!.roles[0]!;
  return { replicas: role.replicas, ...role.demand };
}

describe('alibaba-pai-sim job CSV', () => {
  it('reads GPUs and CPUs per instance in devices, as the simulator multiplies them by 100 into percent', async () => {
    const file = await csvFile([
      HEADER,
      '1,u1,g1,V100,1,0.5,6,0,100',
      '2,u2,g1,MISC,2,8,64,60,3600',
      '3,u3,,CPU,1,0,12.5,60,20',
      '4,u4,g2,T4,4,1,4,120,7',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.user, job.gpuTypes, job.submitS, job.totalSteps, job.kind, job.speed.kind])).toEqual([
      ['1', 'u1', ['V100'], 0, 100, 'batch', 'fixed'],
      ['2', 'u2', [], 60, 3600, 'batch', 'fixed'],
      ['3', 'u3', [], 60, 20, 'batch', 'fixed'],
      ['4', 'u4', ['T4'], 120, 7, 'batch', 'fixed'],
    ]);
    // Memory is not part of the layout (the simulator reserves none): 0 MiB.
    expect(jobs.map(workerOf)).toEqual([
      { replicas: 1, gpus: 1, gpuMilli: 500, cpuMilli: 6000, memMiB: 0 },
      { replicas: 2, gpus: 8, gpuMilli: 1000, cpuMilli: 64_000, memMiB: 0 },
      { replicas: 1, gpus: 0, gpuMilli: 1000, cpuMilli: 12_500, memMiB: 0 },
      { replicas: 4, gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 0 },
    ]);
    expect(jobs.map((job) => job.source)).toEqual([2, 3, 4, 5].map((line) => `${file}:${line}`));
  });

  it('maps columns by name, ignores extra ones, and defaults num_inst to 1 and num_gpu, num_cpu to 0 as the simulator does', async () => {
    const file = await csvFile([
      'duration,submit_time,job_id,wait_time,user_dur,num_gpu',
      '50,10,a,3.5,7.25,1',
      '60,20,b,,,',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.user, job.gpuTypes, job.submitS, job.totalSteps])).toEqual([
      ['a', '', [], 10, 50],
      ['b', '', [], 20, 60],
    ]);
    expect(jobs.map(workerOf)).toEqual([
      { replicas: 1, gpus: 1, gpuMilli: 1000, cpuMilli: 0, memMiB: 0 },
      { replicas: 1, gpus: 0, gpuMilli: 1000, cpuMilli: 0, memMiB: 0 },
    ]);
  });

  it('rounds like the simulator: percent and submit times half to even, durations truncated, 0 s raised to 1 s', async () => {
    const file = await csvFile([
      HEADER,
      // 0.125 GPU = 12.5% -> 12%; 0.135 GPU = 13.5% -> 14%; 2.5 s -> 2 s; 3.5 s -> 4 s.
      'a,u,,MISC,1,0.125,0.125,2.5,99.9',
      'b,u,,MISC,1,0.135,0.135,3.5,0.4',
      // 1.5 GPUs: the simulator's percent allows it, whole GPUs do not: rounded up to 2.
      'c,u,,MISC,1,1.5,1,0,0',
      // 0.004 GPU is 0% in the simulator: a CPU-only instance.
      'd,u,,MISC,1,0.004,1,0,5',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps])).toEqual([
      ['a', 2, 99],
      ['b', 4, 1],
      ['c', 0, 1],
      ['d', 0, 5],
    ]);
    expect(jobs.map((job) => workerOf(job))).toEqual([
      { replicas: 1, gpus: 1, gpuMilli: 120, cpuMilli: 120, memMiB: 0 },
      { replicas: 1, gpus: 1, gpuMilli: 140, cpuMilli: 140, memMiB: 0 },
      { replicas: 1, gpus: 2, gpuMilli: 1000, cpuMilli: 1000, memMiB: 0 },
      { replicas: 1, gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 0 },
    ]);
  });

  it('keeps submit times as written (seconds from the trace start), not shifted to the earliest', async () => {
    const file = await csvFile([HEADER, 'a,u,,MISC,1,1,1,500,10', 'b,u,,MISC,1,1,1,300,10']);
    const { jobs } = await readAll([file]);
    expect(jobs.map((job) => job.submitS)).toEqual([500, 300]);
  });

  it('reads several files in order and stops at `limit`', async () => {
    const first = await csvFile([HEADER, 'a,u,,MISC,1,1,1,0,10', 'b,u,,MISC,1,1,1,5,10']);
    const second = await csvFile([HEADER, 'c,u,,MISC,1,1,1,1,10']);
    expect((await readAll([first, second])).jobs.map((job) => job.id)).toEqual(['a', 'b', 'c']);
    expect((await readAll([first, second], { limit: 2 })).jobs.map((job) => job.id)).toEqual(['a', 'b']);
  });

  it('reports each bad row at its file, line and column, and skips it when not strict', async () => {
    const file = await csvFile([
      HEADER,
      'ok,u,,MISC,1,1,1,0,10',
      ',u,,MISC,1,1,1,0,10',
      'b,u,,A100,1,1,1,0,10',
      'c,u,,MISC,0,1,1,0,10',
      'd,u,,MISC,2.5,1,1,0,10',
      'e,u,,MISC,1,-1,1,0,10',
      `f,u,,MISC,1,${MAX_GPUS_PER_NODE + 1},1,0,10`,
      'g,u,,MISC,1,1,1,,10',
      'h,u,,MISC,1,1,1,0,-5',
      'i,u,,MISC,1,1,1,-3,10',
      'j,u,,MISC,1,1,1,0,',
      'k,u,,MISC,1,1,1',
      'l,u,,MISC,1,1,x,0,10',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs.map((job) => job.id)).toEqual(['ok']);
    expect(skipped.map((error) => [error.line, error.countKey])).toEqual([
      [3, 'job_id: empty'],
      [4, 'gpu_type: unknown GPU type'],
      [5, 'num_inst: not a positive whole number'],
      [6, 'num_inst: not a positive whole number'],
      [7, 'num_gpu: negative'],
      [8, `num_gpu: over ${MAX_GPUS_PER_NODE}`],
      [9, 'submit_time: empty'],
      [10, 'duration: negative'],
      [11, 'submit_time: negative time'],
      [12, 'duration: empty'],
      [13, 'submit_time: missing column'],
      [14, 'num_cpu: not a number'],
    ]);
    for (const error of skipped) expect(error.file).toBe(file);
    const strict = await rejection(readAll([file], { strict: true }));
    expect(strict).toBeInstanceOf(TraceError);
    expect((strict as TraceError).message).toBe(`${file}:3: job_id: empty`);
  });

  it('needs job_id, submit_time and duration in the header (line 1)', async () => {
    const file = await csvFile(['job_id,user,num_gpu,duration', 'a,u,1,10']);
    const error = await rejection(readAll([file]));
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).message).toBe(`${file}:1: submit_time: missing column`);
  });

  it('names a missing file', async () => {
    const error = await rejection(readAll([join(dir, 'nope.csv')]));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${join(dir, 'nope.csv')}: no such file`);
  });
});

describe('alibaba-pai-sim writer', () => {
  it('writes one row per job in devices and whole seconds; a job of several roles as one row per role', async () => {
    const shared: JobSpec = { ...batchJob('s', 12.6, 1, 99.4), user: 'alice', gpuTypes: ['V100'] };
    const sharedDemand = { gpus: 1, gpuMilli: 470, cpuMilli: 3152, memMiB: 5600 };
    const jobs: JobSpec[] = [
      { ...shared, roles: [{ role: 'worker', replicas: 1, demand: sharedDemand }] },
      {
        ...batchJob('p', 30, 1, 600),
        user: 'bob',
        roles: [
          { role: 'worker', replicas: 4, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 8000, memMiB: 1024 } },
          { role: 'ps', replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 1024 } },
        ],
      },
    ];
    const out = await mkdtemp(join(dir, 'written-'));
    const written = await alibabaPaiSimFormat.writeJobs!(jobs, out);
    expect(written).toEqual([join(out, PAI_SIM_JOBS_FILE)]);
    expect((await readFile(written[0]!, 'utf8')).trim().split('\n')).toEqual([
      HEADER,
      's,alice,,V100,1,0.47,3.152,13,99',
      'p-worker,bob,,MISC,4,1,8,30,600',
      'p-ps,bob,,CPU,2,0,6,30,600',
    ]);
  });

  it('refuses what the layout cannot hold: a step-counted job, a choice of GPU models, a model PAI does not have', async () => {
    const out = await mkdtemp(join(dir, 'refused-'));
    const stepped: JobSpec = { ...batchJob('x', 0, 1, 10), speed: { kind: 'allreduce', computeS: 1, commS: 0 } };
    for (const [job, pattern] of [
      [stepped, /only fixed-duration/],
      [{ ...batchJob('y', 0, 1, 10), gpuTypes: ['V100', 'T4'] }, /one GPU model of/],
      [{ ...batchJob('z', 0, 1, 10), gpuTypes: ['A100'] }, /one GPU model of/],
    ] as const) {
      const error = await rejection(alibabaPaiSimFormat.writeJobs!([job], out));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(pattern);
    }
  });

  it('reads back what it wrote', async () => {
    const jobs: JobSpec[] = [
      { ...batchJob('a', 0, 2, 30, 3), gpuTypes: ['V100M32'] },
      { ...batchJob('b', 7, 0, 1) },
    ];
    const out = await mkdtemp(join(dir, 'round-'));
    const [file] = await alibabaPaiSimFormat.writeJobs!(jobs, out);
    const { jobs: back } = await readAll([file!], { strict: true });
    const carried = (job: JobSpec) => ({ ...withoutSource(job), roles: job.roles.map((role) => ({ ...role, demand: { ...role.demand, memMiB: 0 } })) });
    expect(back.map(withoutSource)).toEqual(jobs.map(carried));
  });
});

describe('alibaba-pai-sim sample (traces/samples/alibaba-pai-sim)', () => {
  it('is exactly what `trace generate --style alibaba-pai --jobs 50 --seed 1 --format alibaba-pai-sim` writes', async () => {
    const out = await mkdtemp(join(dir, 'sample-'));
    const result = await generateTrace('alibaba-pai', 50, 1, out, 'alibaba-pai-sim');
    expect(result.files).toEqual([join(out, PAI_SIM_JOBS_FILE)]);
    expect(await readFile(result.files[0]!, 'utf8')).toBe(await readFile(join(SAMPLES, 'alibaba-pai-sim', PAI_SIM_JOBS_FILE), 'utf8'));
  });
});
