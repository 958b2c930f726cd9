import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { acmeFormat } from '../../../src/workload/formats/acme.js';
import { acmeSampleJobs, OTHER_SAMPLE_DIRS, writeOtherSamples } from '../../../src/workload/samples/others.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { SAMPLES, readAllJobs, withoutSource, writeLines } from './format-helpers.js';
import { rejection } from '../../cli-run.js';

const SEREN_HEADER = 'job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time';
const KALOS_HEADER =
  'job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-acme-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a file of the given lines into the test's temporary folder. */
function csvFile(name: string, lines: readonly string[]): Promise<string> {
  return writeLines(dir, name, lines);
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(files: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(acmeFormat, files, options);
}

describe('acme trace_seren.csv', () => {
  it('maps each row to a batch job, honouring the "+08:00" offsets', async () => {
    const file = await csvFile('trace_seren.csv', [
      SEREN_HEADER,
      '5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0',
      '5778469,u5907,1,8,128,Pretrain,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0',
      // The same instant as the first submission, written in UTC.
      '5778470,u1111,2,16,64,SFT,COMPLETED,2023-02-28 16:18:22+00:00,2023-02-28 16:18:22+00:00,2023-02-28 16:19:22+00:00,60,0,960.0',
      '5778471,u2222,1,0,4,Debug,CANCELLED,2023-03-01 00:30:00+08:00,2023-03-01 00:30:00+08:00,2023-03-01 00:30:00+08:00,0,0,0.0',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, job.user, job.traceStatus])).toEqual([
      ['5778432', 0, 117, 'u5907', 'FAILED'],
      ['5778469', 336, 2693, 'u5907', 'COMPLETED'],
      ['5778470', 0, 60, 'u1111', 'COMPLETED'],
      ['5778471', 698, 1, 'u2222', 'CANCELLED'],
    ]);
    expect(jobs[0]).toEqual({
      id: '5778432',
      kind: 'batch',
      submitS: 0,
      user: 'u5907',
      gpuTypes: [],
      roles: [{ role: 'worker', replicas: 1, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 128_000, memMiB: 262_144 } }],
      elastic: null,
      totalSteps: 117,
      speed: { kind: 'fixed' },
      source: `${file}:2`,
      traceStatus: 'FAILED',
    });
    expect(jobs[2]!.roles[0]!.demand).toEqual({ gpus: 8, gpuMilli: 1000, cpuMilli: 32_000, memMiB: 262_144 });
    expect(jobs[3]!.roles[0]!.demand).toEqual({ gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 });
  });
});

describe('acme trace_kalos.csv', () => {
  it('takes memory per pod from mem_per_pod_GB and run time from the timestamps, not the queue-inclusive duration', async () => {
    const file = await csvFile('trace_kalos.csv', [
      KALOS_HEADER,
      'dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0',
      'dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Other,CANCELLED,2023-05-17 11:28:42+00:00,2023-05-17 11:28:54+00:00,2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,5248.0',
      // fail_time before end_time: the job failed then; empty state becomes FAILED.
      'dlcfail,u0001,1,4,16,64,,Eval,,2023-05-17 12:00:00+00:00,2023-05-17 12:00:00+00:00,2023-05-17 13:00:00+00:00,2023-05-17 12:10:00+00:00,,3600,0,14400',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, job.traceStatus])).toEqual([
      ['dlctk696s0jbvitv', 0, 8, 'FAILED'],
      ['dlc1t2ypl09b8qtp', 1664, 70, 'CANCELLED'],
      ['dlcfail', 3542, 600, 'FAILED'],
    ]);
    expect(jobs[0]!.roles).toEqual([
      { role: 'worker', replicas: 8, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 120_000, memMiB: 1_024_000 } },
    ]);
    expect(jobs[2]!.roles[0]!.demand).toEqual({ gpus: 4, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 65_536 });
  });

  it('accepts a file with only the essential columns, times in epoch seconds', async () => {
    const file = await csvFile('trace_minimal.csv', ['job_id,submit_time,gpu_num,duration', 'a,1684321258,2,300', 'b,1684321200,0,45']);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, job.user, job.traceStatus])).toEqual([
      ['a', 58, 300, '', undefined],
      ['b', 0, 45, '', undefined],
    ]);
    expect(jobs.map((job) => job.roles[0]!.demand)).toEqual([
      { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 65_536 },
      { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 8192 },
    ]);
  });

  const BAD_ROWS = [
    KALOS_HEADER,
    'ok1,u,1,8,8,32,,Other,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:00:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,4800', // 2
    'short,u,1,8,8,32,,Other,COMPLETED,2023-05-17 11:00:00+00:00', // 3
    'nan,u,1,8,eight,32,,Other,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:00:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,4800', // 4
    'back,u,1,8,8,32,,Other,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:20:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,4800', // 5
    'failback,u,1,8,8,32,,Other,FAILED,2023-05-17 11:00:00+00:00,2023-05-17 11:20:00+00:00,,2023-05-17 11:10:00+00:00,,,0,0', // 6
    'stamp,u,1,8,8,32,,Other,COMPLETED,17 May 2023,2023-05-17 11:00:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,4800', // 7
    'queued,u,1,8,8,32,,Other,CANCELLED,2023-05-17 11:00:00+00:00,,,,2023-05-17 11:10:00+00:00,0,0,0', // 8
    'uneven,u,2,9,8,32,,Other,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:00:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,5400', // 9
    'mem,u,1,8,8,-1,,Other,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:00:00+00:00,2023-05-17 11:10:00+00:00,,,600,0,4800', // 10
    'ok2,u,1,8,8,32,,Other,COMPLETED,2023-05-17 11:05:00+00:00,2023-05-17 11:05:00+00:00,2023-05-17 11:10:00+00:00,,,300,0,2400', // 11
  ];
  const EXPECTED_SKIPS: [number, string, string][] = [
    [3, 'start_time', 'missing column'],
    [4, 'cpu_num', 'not a number'],
    [5, 'end_time', 'end before start'],
    [6, 'fail_time', 'end before start'],
    [7, 'submit_time', 'bad timestamp'],
    [8, 'start_time', 'never ran'],
    [9, 'gpu_num', 'uneven across nodes'],
    [10, 'mem_per_pod_GB', 'negative'],
  ];

  it('skips malformed rows with located TraceErrors, throws the first in strict mode, honours limit', async () => {
    const file = await csvFile('trace_bad.csv', BAD_ROWS);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['ok1', 0], ['ok2', 300]]);
    expect(skipped.map((error) => [error.line, error.column, error.reason])).toEqual(EXPECTED_SKIPS);
    for (const error of skipped) expect(error.file).toBe(file);
    expect(await rejection(readAll([file], { strict: true }))).toMatchObject({ file, line: 3, column: 'start_time', reason: 'missing column' });
    const limited = await readAll([file], { limit: 1 });
    expect(limited.jobs.map((job) => job.id)).toEqual(['ok1']);
    expect(limited.skipped).toEqual([]);
  });

  it('rejects a file without the required columns, and a missing file', async () => {
    const file = await csvFile('not_acme.csv', ['job_id,user,duration', 'a,u,1']);
    expect(await rejection(readAll([file]))).toMatchObject({ file, line: 1, column: 'gpu_num', reason: 'missing column' });
    expect(await rejection(readAll([join(dir, 'absent.csv')]))).toBeInstanceOf(ConfigError);
  });
});

describe('acme writeJobs', () => {
  it('writes the Seren and Kalos layouts, and reading either gives the jobs back', async () => {
    const jobs = acmeSampleJobs();
    // Kalos records memory: give some jobs a non-default amount.
    const kalosJobs = jobs.map((job, k) =>
      k % 3 === 0 ? { ...job, roles: [{ ...job.roles[0]!, demand: { ...job.roles[0]!.demand, memMiB: 1536 * (k + 1) } }] } : job,
    );
    const out = join(dir, 'round-trip');
    const files = await acmeFormat.writeJobs!(jobs, out);
    expect(files).toEqual([join(out, 'trace_seren.csv'), join(out, 'trace_kalos.csv')]);
    for (const file of files) {
      const back = await readAll([file], { strict: true });
      expect(back.jobs.map(withoutSource), file).toEqual(jobs.map(withoutSource));
    }
    const [, kalos] = await acmeFormat.writeJobs!(kalosJobs, join(dir, 'round-trip-mem'));
    const back = await readAll([kalos!], { strict: true });
    expect(back.jobs.map(withoutSource)).toEqual(kalosJobs.map(withoutSource));
  });
});

describe('acme samples', () => {
  const files = ['trace_seren.csv', 'trace_kalos.csv'].map((name) => join(SAMPLES, OTHER_SAMPLE_DIRS.acme, name));

  it('parse with no skipped row and hold the fixed sample jobs', async () => {
    for (const file of files) {
      const { jobs } = await readAll([file], { strict: true });
      expect(jobs.length, file).toBeGreaterThanOrEqual(30);
      expect(jobs.map(withoutSource), file).toEqual(acmeSampleJobs().map(withoutSource));
    }
  });

  it('are what writeOtherSamples writes today', async () => {
    const out = join(dir, 'samples');
    await writeOtherSamples(out);
    for (const file of files) {
      const fresh = join(out, OTHER_SAMPLE_DIRS.acme, file.split('/').at(-1)!);
      expect(await readFile(fresh, 'utf8'), file).toBe(await readFile(file, 'utf8'));
    }
  });
});
