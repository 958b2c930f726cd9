import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { formatTimestamp, parseTimestampS } from '../../../src/workload/trace-rows.js';
import { heliosFormat } from '../../../src/workload/formats/helios.js';
import { heliosSampleJobs, OTHER_SAMPLE_DIRS, writeOtherSamples } from '../../../src/workload/samples/others.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { SAMPLES, readAllJobs, withoutSource, writeLines } from './format-helpers.js';
import { rejection } from '../../cli-run.js';

const HEADER = 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-helios-'));
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
  return readAllJobs(heliosFormat, files, options);
}

describe('trace timestamps', () => {
  it('reads "YYYY-MM-DD HH:MM:SS" as UTC, honours offsets and rejects impossible dates', () => {
    const base = Date.UTC(2020, 5, 9, 18, 41, 1) / 1000;
    expect(parseTimestampS('2020-06-09 18:41:01')).toBe(base);
    expect(parseTimestampS('2020-06-09T18:41:01Z')).toBe(base);
    expect(parseTimestampS('2020-06-10 02:41:01+08:00')).toBe(base);
    expect(parseTimestampS('2020-06-09 13:41:01-0500')).toBe(base);
    expect(parseTimestampS('2020-06-09 18:41:01.5')).toBe(base + 0.5);
    for (const bad of ['2020-06-31 00:00:00', '2020-13-01 00:00:00', '2020-06-09 24:00:00', '2020-06-09', '09/06/2020 18:41:01', '']) {
      expect(parseTimestampS(bad), bad).toBeNull();
    }
    expect(formatTimestamp(base)).toBe('2020-06-09 18:41:01');
    expect(formatTimestamp(base, 8 * 60)).toBe('2020-06-10 02:41:01+08:00');
    expect(formatTimestamp(base, -90)).toBe('2020-06-09 17:11:01-01:30');
  });
});

describe('helios cluster_log.csv', () => {
  it('maps each row to a batch job: node_num workers sharing gpu_num and cpu_num, user kept, vc dropped', async () => {
    const file = await csvFile('cluster_log.csv', [
      HEADER,
      '1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0',
      '1425512,uVMrF,vchbv,16,40,2,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0',
      '1425513,uzqls,vcpDC,0,4,1,CANCELLED,2020-06-09 18:40:00,2020-06-09 18:41:28,2020-06-09 18:41:28,0,88',
      // duration empty: end - start.
      '1425514,uzqls,vcpDC,2,3,1,,2020-06-09 19:00:00,2020-06-09 19:10:00,2020-06-09 19:30:00,,600',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs[1]).toEqual({
      id: '1425512',
      kind: 'batch',
      submitS: 87,
      user: 'uVMrF',
      gpuTypes: [],
      roles: [{ role: 'worker', replicas: 2, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 20_000, memMiB: 262_144 } }],
      elastic: null,
      totalSteps: 249,
      speed: { kind: 'fixed' },
      source: `${file}:3`,
      traceStatus: 'FAILED',
    });
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, job.traceStatus])).toEqual([
      ['1425511', 61, 36848, 'COMPLETED'],
      ['1425512', 87, 249, 'FAILED'],
      // Ran for 0 s: the 1 s minimum.
      ['1425513', 0, 1, 'CANCELLED'],
      ['1425514', 1200, 1200, undefined],
    ]);
    // A CPU-only job gets the CPU-only memory default.
    expect(jobs[2]!.roles[0]!.demand).toEqual({ gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 });
    expect(jobs[3]!.roles[0]!.demand).toEqual({ gpus: 2, gpuMilli: 1000, cpuMilli: 3000, memMiB: 65_536 });
    expect('traceStatus' in jobs[3]!).toBe(false);
  });

  it('maps columns by name, ignores extra ones, and reads epoch-second times', async () => {
    const file = await csvFile('cluster_log_epoch.csv', [
      'submit_time,duration,jobname,gpu_num,job_id,node_num,end_time,start_time',
      '1591728061,120,train,8,a,1,,',
      '1591728000,60,eval,1,b,1,,',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, job.user])).toEqual([
      ['a', 61, 120, ''],
      ['b', 0, 60, ''],
    ]);
    // No cpu_num column: 4 cores per GPU.
    expect(jobs[0]!.roles[0]!.demand.cpuMilli).toBe(32_000);
  });

  const BAD_ROWS = [
    HEADER,
    '1,u,vc,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0', // 2
    '2,u,vc,1,1,1,COMPLETED,2020-06-09 18:00:00', // 3: short row
    '3,u,vc,one,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0', // 4: text in a number
    '4,u,vc,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:05:00,2020-06-09 18:01:00,,0', // 5: end before start
    '5,u,vc,1,1,1,COMPLETED,2020-06-09 25:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0', // 6: bad timestamp
    '6,u,vc,1,1,1,COMPLETED,-100,,,60,0', // 7: negative epoch time
    '7,u,vc,1,1,1,CANCELLED,2020-06-09 18:00:00,,,,0', // 8: cancelled while queued
    '8,u,vc,1,1,1,CANCELLED,2020-06-09 18:00:00,,,0,0', // 9: duration 0, no start
    '9,u,vc,1,1,1,RUNNING,2020-06-09 18:00:00,2020-06-09 18:00:00,,,0', // 10: no end yet
    '10,u,vc,12,1,8,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0', // 11: 12 GPUs on 8 nodes
    '11,u,vc,8,1,0,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,60,0', // 12: zero nodes
    '12,u,vc,1,1,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 18:01:00,-60,0', // 13: negative duration
    '13,u,vc,1,1,1,COMPLETED,2020-06-09 18:10:00,2020-06-09 18:10:00,2020-06-09 18:11:00,60,0', // 14
  ];
  const EXPECTED_SKIPS: [number, string, string][] = [
    [3, 'start_time', 'missing column'],
    [4, 'gpu_num', 'not a number'],
    [5, 'end_time', 'end before start'],
    [6, 'submit_time', 'bad timestamp'],
    [7, 'submit_time', 'negative time'],
    [8, 'start_time', 'never ran'],
    [9, 'start_time', 'never ran'],
    [10, 'end_time', 'never ended'],
    [11, 'gpu_num', 'uneven across nodes'],
    [12, 'node_num', 'zero nodes'],
    [13, 'duration', 'negative'],
  ];

  it('skips malformed rows with located TraceErrors and still yields the good rows', async () => {
    const file = await csvFile('cluster_log_bad.csv', BAD_ROWS);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['1', 0], ['13', 600]]);
    expect(skipped.map((error) => [error.line, error.column, error.reason])).toEqual(EXPECTED_SKIPS);
    for (const error of skipped) expect(error.file).toBe(file);
    expect(skipped.find((error) => error.line === 11)!.value).toBe('12/8');
  });

  it('throws the first bad row in strict mode and stops after `limit` jobs', async () => {
    const file = await csvFile('cluster_log_strict.csv', BAD_ROWS);
    expect(await rejection(readAll([file], { strict: true }))).toMatchObject({ file, line: 3, column: 'start_time', reason: 'missing column' });
    const limited = await readAll([file], { limit: 1 });
    expect(limited.jobs.map((job) => job.id)).toEqual(['1']);
    expect(limited.skipped).toEqual([]);
  });

  it('rejects a file without the required columns, and a missing file', async () => {
    const file = await csvFile('not_helios.csv', ['job_id,gpu_num', '1,1']);
    expect(await rejection(readAll([file]))).toMatchObject({ file, line: 1, column: 'submit_time', reason: 'missing column' });
    expect(await rejection(readAll([join(dir, 'absent.csv')]))).toBeInstanceOf(ConfigError);
  });

  it('writes jobs that read back the same', async () => {
    const jobs = heliosSampleJobs();
    const files = await heliosFormat.writeJobs!(jobs, join(dir, 'round-trip'));
    expect(files).toEqual([join(dir, 'round-trip', 'cluster_log.csv')]);
    const back = await readAll(files, { strict: true });
    expect(back.jobs.map(withoutSource)).toEqual(jobs.map(withoutSource));
  });
});

describe('helios samples', () => {
  const file = join(SAMPLES, OTHER_SAMPLE_DIRS.helios, 'cluster_log.csv');

  it('parse with no skipped row and hold the fixed sample jobs', async () => {
    const { jobs } = await readAll([file], { strict: true });
    expect(jobs.length).toBeGreaterThanOrEqual(30);
    expect(jobs.map(withoutSource)).toEqual(heliosSampleJobs().map(withoutSource));
    expect(new Set(jobs.map((job) => job.traceStatus))).toEqual(new Set(['COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL']));
  });

  it('are what writeOtherSamples writes today', async () => {
    const out = join(dir, 'samples');
    await writeOtherSamples(out);
    expect(await readFile(join(out, OTHER_SAMPLE_DIRS.helios, 'cluster_log.csv'), 'utf8')).toBe(await readFile(file, 'utf8'));
  });
});
