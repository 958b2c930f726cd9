import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { phillyFormat, phillyWorkers } from '../../../src/workload/formats/philly.js';
import { OTHER_SAMPLE_DIRS, phillySampleJobs, writeOtherSamples } from '../../../src/workload/samples/others.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { sharedTrace } from '../../shared-traces.js';
import { SAMPLES, readAllJobs, withoutSource, writeLines } from './format-helpers.js';
import { rejection } from '../../cli-run.js';

const HEADER = 'timestamp,duration,num_gpus,gpu_time,cluster';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-philly-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a file of the given lines into the test's temporary folder. */
function textFile(name: string, lines: readonly string[]): Promise<string> {
  return writeLines(dir, name, lines);
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(files: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(phillyFormat, files, options);
}

/** Workers × GPUs per worker of a job. */
function shape(job: JobSpec): string {
  const worker = job.roles[0]!;
  return `${worker.replicas}x${worker.demand.gpus}`;
}

describe('phillyWorkers', () => {
  it('puts ≤ 8 GPUs on one worker and splits larger jobs into the fewest equal workers of ≤ 8', () => {
    const table: [number, string][] = [
      [1, '1x1'], [2, '1x2'], [4, '1x4'], [8, '1x8'], [12, '2x6'], [16, '2x8'], [24, '3x8'],
      [32, '4x8'], [64, '8x8'], [128, '16x8'], [10, '2x5'], [18, '3x6'], [11, '11x1'], [9, '3x3'],
    ];
    for (const [gpus, expected] of table) {
      const { replicas, gpusPerReplica } = phillyWorkers(gpus);
      expect(`${replicas}x${gpusPerReplica}`, `${gpus} GPUs`).toBe(expected);
    }
  });
});

describe('philly CSV', () => {
  it('maps each row to a batch job relative to the earliest timestamp, whatever the row order', async () => {
    const file = await textFile('philly-a.csv', [
      HEADER,
      '2017-10-09 07:01:55,66.0,1,66.0,11cb48',
      '2017-10-09 06:13:03,2951.0,12,35412.0,6214e9',
      '2017-09-29 07:58:32,860662.0,24,20655888.0,6c71a0',
      '2017-10-09 06:13:36,0.0,16,0.0,6214e9',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => job.id)).toEqual(['philly-2', 'philly-3', 'philly-4', 'philly-5']);
    const earliestS = Date.UTC(2017, 8, 29, 7, 58, 32) / 1000;
    expect(jobs.map((job) => job.submitS)).toEqual([
      Date.UTC(2017, 9, 9, 7, 1, 55) / 1000 - earliestS,
      Date.UTC(2017, 9, 9, 6, 13, 3) / 1000 - earliestS,
      0,
      Date.UTC(2017, 9, 9, 6, 13, 36) / 1000 - earliestS,
    ]);
    // A recorded duration of 0 s becomes the 1 s minimum.
    expect(jobs.map((job) => job.totalSteps)).toEqual([66, 2951, 860662, 1]);
    expect(jobs.map(shape)).toEqual(['1x1', '2x6', '3x8', '2x8']);
    expect(jobs.map((job) => job.user)).toEqual(['vc:11cb48', 'vc:6214e9', 'vc:6c71a0', 'vc:6214e9']);
    expect(jobs[1]).toEqual({
      id: 'philly-3',
      kind: 'batch',
      submitS: jobs[1]!.submitS,
      user: 'vc:6214e9',
      gpuTypes: [],
      roles: [{ role: 'worker', replicas: 2, demand: { gpus: 6, gpuMilli: 1000, cpuMilli: 24_000, memMiB: 196_608 } }],
      elastic: null,
      totalSteps: 2951,
      speed: { kind: 'fixed' },
      source: `${file}:3`,
    });
  });

  it('ignores gpu_time, also when it disagrees with duration × num_gpus', async () => {
    const file = await textFile('philly-gpu-time.csv', [HEADER, '2017-10-01 00:00:00,100,2,7,vc1', '2017-10-01 00:00:10,100,2,,vc1']);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((job) => [job.totalSteps, shape(job)])).toEqual([[100, '1x2'], [100, '1x2']]);
  });

  const BAD_ROWS = [
    HEADER,
    '2017-10-01 00:00:00,60,1,60,good', // line 2
    '2017-10-01 00:01:00,60', // 3: short row
    '2017-10-01 00:02:00,sixty,1,60,vc', // 4: text in a number field
    '2017-10-01 00:03:00,-5,1,-5,vc', // 5: negative duration
    '2017-10-01 24:00:00,60,1,60,vc', // 6: no such hour
    '2017/10/01 00:05:00,60,1,60,vc', // 7: not the layout
    '1506816000,60,1,60,vc', // 8: epoch seconds are not the Philly layout
    '2017-10-01 00:07:00,60,0,0,vc', // 9: no GPUs
    '2017-10-01 00:08:00,60,1.5,90,vc', // 10: part of a GPU
    '2017-02-30 00:09:00,60,1,60,vc', // 11: no such day
    '2017-10-01 00:10:00,60,2,120,good', // 12
  ];
  const EXPECTED_SKIPS: [number, string, string][] = [
    [3, 'num_gpus', 'missing column'],
    [4, 'duration', 'not a number'],
    [5, 'duration', 'negative'],
    [6, 'timestamp', 'bad timestamp'],
    [7, 'timestamp', 'bad timestamp'],
    [8, 'timestamp', 'bad timestamp'],
    [9, 'num_gpus', 'no GPUs'],
    [10, 'num_gpus', 'not a whole number'],
    [11, 'timestamp', 'bad timestamp'],
  ];

  it('skips malformed rows with located TraceErrors and still yields the good rows', async () => {
    const file = await textFile('philly-bad.csv', BAD_ROWS);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['philly-2', 0], ['philly-12', 600]]);
    expect(skipped.map((error) => [error.line, error.column, error.reason])).toEqual(EXPECTED_SKIPS);
    for (const error of skipped) expect(error.file).toBe(file);
    expect(skipped[1]!.value).toBe('sixty');
  });

  it('throws the first bad row in strict mode, after the good rows before it', async () => {
    const file = await textFile('philly-bad-strict.csv', BAD_ROWS);
    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const job of phillyFormat.readJobs([file], { limit: Infinity, strict: true, onSkip: () => undefined })) seen.push(job.id);
      })(),
    );
    expect(seen).toEqual(['philly-2']);
    expect(error).toBeInstanceOf(TraceError);
    expect(error).toMatchObject({ file, line: 3, column: 'num_gpus', reason: 'missing column' });
  });

  it('stops after `limit` jobs without shifting submit times', async () => {
    const file = await textFile('philly-limit.csv', [
      HEADER,
      '2017-10-01 00:10:00,60,1,60,a',
      'oops,60,1,60,a',
      '2017-10-01 00:20:00,60,1,60,a',
      '2017-10-01 00:00:00,60,1,60,a',
      'oops,60,1,60,a',
    ]);
    const { jobs, skipped } = await readAll([file], { limit: 2 });
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['philly-2', 600], ['philly-4', 1200]]);
    expect(skipped.map((error) => error.line)).toEqual([3]);
  });

  it('rejects a file without the Philly columns, and a missing file, before any row', async () => {
    const file = await textFile('philly-no-cluster.csv', ['timestamp,duration,num_gpus,gpu_time', '2017-10-01 00:00:00,60,1,60']);
    expect(await rejection(readAll([file]))).toMatchObject({ file, line: 1, column: 'cluster', reason: 'missing column' });
    const missing = await rejection(readAll([join(dir, 'absent.csv')]));
    expect(missing).toBeInstanceOf(ConfigError);
  });

  it('numbers the ids of a second file apart and shares one time origin across files', async () => {
    const a = await textFile('philly-multi-a.csv', [HEADER, '2017-10-01 01:00:00,60,1,60,a']);
    const b = await textFile('philly-multi-b.csv', [HEADER, '2017-10-01 00:00:00,60,1,60,b']);
    const { jobs } = await readAll([a, b]);
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['philly-2', 3600], ['philly-2-2', 0]]);
  });
});

/** A raw log element with one attempt per [start, end] pair, each on the given hosts' GPU counts. */
function logJob(
  jobid: string,
  submitted: string | null,
  attempts: [string | null, string | null, number[]][],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    status: 'Pass',
    vc: 'ee9e8c',
    jobid,
    attempts: attempts.map(([start, end, hosts]) => ({
      start_time: start,
      end_time: end,
      detail: hosts.map((gpus, host) => ({ ip: `m${host}`, gpus: Array.from({ length: gpus }, (_, g) => `gpu${g}`) })),
    })),
    submitted_time: submitted,
    user: 'ce2f4c',
    ...extra,
  };
}

describe('philly raw cluster_job_log', () => {
  it('maps each job: GPUs of the largest attempt, one worker per host, run times summed, retries and status kept', async () => {
    const log = [
      logJob('application_1', '2017-10-07 01:11:39', [
        ['2017-10-07 01:12:09', '2017-10-07 01:13:23', [8]],
        ['2017-10-07 01:13:30', '2017-10-09 06:53:12', [8, 8]],
      ]),
      logJob('application_2', '2017-10-07 01:00:00', [['2017-10-07 01:00:05', '2017-10-07 02:00:05', [8, 4]]], { status: 'Killed', user: 'u2' }),
      // A middle attempt with no end time (a logging error) adds no run time but counts as a try.
      logJob('application_3', '2017-10-07 02:00:00', [
        ['2017-10-07 02:00:00', 'None', [1]],
        ['2017-10-07 03:00:00', '2017-10-07 03:00:30', [1]],
      ]),
      // Start equals end: a run of 0 s becomes 1 s.
      logJob('application_4', '2017-10-07 04:00:00', [['2017-10-07 04:00:00', '2017-10-07 04:00:00', [2]]], { status: 'Failed' }),
    ];
    const file = join(dir, 'cluster_job_log');
    await writeFile(file, JSON.stringify(log, null, 2));
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    const earliestS = Date.UTC(2017, 9, 7, 1, 0, 0) / 1000;
    const runS = 74 + (Date.UTC(2017, 9, 9, 6, 53, 12) - Date.UTC(2017, 9, 7, 1, 13, 30)) / 1000;
    expect(jobs.map((job) => [job.id, job.submitS, job.totalSteps, shape(job), job.user, job.traceStatus, job.traceRetries])).toEqual([
      ['application_1', Date.UTC(2017, 9, 7, 1, 11, 39) / 1000 - earliestS, runS, '2x8', 'ce2f4c', 'Pass', 1],
      // Hosts of unequal GPU counts: 12 GPUs split as the CSV would split them.
      ['application_2', 0, 3600, '2x6', 'u2', 'Killed', 0],
      ['application_3', 3600, 30, '1x1', 'ce2f4c', 'Pass', 1],
      ['application_4', 3 * 3600, 1, '1x2', 'ce2f4c', 'Failed', 0],
    ]);
    expect(jobs[0]!.roles[0]!.demand).toEqual({ gpus: 8, gpuMilli: 1000, cpuMilli: 32_000, memMiB: 262_144 });
    // Each job's source is the line its element starts on.
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const job of jobs) {
      const line = Number(job.source.split(':').at(-1));
      expect(lines[line - 1]!.trim()).toBe('{');
      expect(lines[line]!.trim()).toBe('"status": ' + JSON.stringify(log[jobs.indexOf(job)]!['status']) + ',');
    }
  });

  it('skips jobs that never ran, never ended or are malformed, with the line of their element', async () => {
    const elements = [
      logJob('ok', '2017-10-01 00:00:00', [['2017-10-01 00:00:00', '2017-10-01 00:01:00', [1]]]), // line 2
      logJob('no-attempts', '2017-10-01 00:00:00', []), // 3
      logJob('no-start', '2017-10-01 00:00:00', [[null, '2017-10-01 00:01:00', [1]]]), // 4
      logJob('running', '2017-10-01 00:00:00', [['2017-10-01 00:00:00', null, [1]]]), // 5
      logJob('backwards', '2017-10-01 00:00:00', [['2017-10-01 00:05:00', '2017-10-01 00:01:00', [1]]]), // 6
      logJob('bad-submit', '2017-10-01T00:00', [['2017-10-01 00:00:00', '2017-10-01 00:01:00', [1]]]), // 7
      logJob('no-submit', null, [['2017-10-01 00:00:00', '2017-10-01 00:01:00', [1]]]), // 8
      logJob('no-gpus', '2017-10-01 00:00:00', [['2017-10-01 00:00:00', '2017-10-01 00:01:00', []]]), // 9
      { user: 'x' }, // 10: no jobid
    ].map((element) => JSON.stringify(element));
    elements.push('{"jobid": "broken",}'); // 11: balanced but not valid JSON
    elements.push(JSON.stringify(logJob('last', '2017-10-01 00:02:00', [['2017-10-01 00:02:00', '2017-10-01 00:03:00', [4]]]))); // 12
    const file = await textFile('bad_job_log.json', ['[', elements.join(',\n'), ']']);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs.map((job) => [job.id, job.submitS])).toEqual([['ok', 0], ['last', 120]]);
    expect(skipped.map((error) => [error.line, error.column, error.reason])).toEqual([
      [3, 'attempts', 'never ran'],
      [4, 'attempts.start_time', 'never ran'],
      [5, 'attempts.end_time', 'never ended'],
      [6, 'attempts.end_time', 'end before start'],
      [7, 'submitted_time', 'bad timestamp'],
      [8, 'submitted_time', 'empty'],
      [9, 'attempts.detail', 'no GPUs'],
      [10, 'jobid', 'missing field'],
      [11, 'record', 'not valid JSON'],
    ]);
    const strict = await rejection(readAll([file], { strict: true }));
    expect(strict).toMatchObject({ file, line: 3, column: 'attempts', reason: 'never ran' });
    expect((await readAll([file], { limit: 1 })).jobs.map((job) => job.id)).toEqual(['ok']);
  });

  it('throws on a log that is not one JSON array', async () => {
    const file = await textFile('truncated_job_log', ['[', JSON.stringify(logJob('a', '2017-10-01 00:00:00', [])) + ',']);
    expect(await rejection(readAll([file]))).toMatchObject({ file, column: 'file', reason: 'truncated JSON array' });
  });
});

describe('philly writeJobs', () => {
  const jobs = phillySampleJobs().slice(0, 12);

  it('writes both layouts, and reading either gives the jobs back', async () => {
    const out = join(dir, 'round-trip');
    const files = await phillyFormat.writeJobs!(jobs, out);
    expect(files).toEqual([join(out, 'philly_jobs.csv'), join(out, 'cluster_job_log.json')]);
    const fromLog = await readAll([files[1]!]);
    expect(fromLog.skipped).toEqual([]);
    expect(fromLog.jobs.map(withoutSource)).toEqual(jobs.map(withoutSource));
    // The CSV keeps neither ids, status nor retries: ids come from line numbers.
    const fromCsv = await readAll([files[0]!]);
    expect(fromCsv.skipped).toEqual([]);
    expect(fromCsv.jobs.map((job) => job.id)).toEqual(jobs.map((_, k) => `philly-${k + 2}`));
    const bare = (job: JobSpec) => {
      const { id: _id, source: _source, traceStatus: _status, traceRetries: _retries, ...rest } = job;
      return rest;
    };
    expect(fromCsv.jobs.map(bare)).toEqual(jobs.map(bare));
  });

  it('refuses jobs the Philly layouts cannot hold', async () => {
    const cpuOnly: JobSpec = { ...jobs[0]!, roles: [{ role: 'worker', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 } }] };
    expect(await rejection(phillyFormat.writeJobs!([cpuOnly], join(dir, 'refused')))).toBeInstanceOf(ConfigError);
  });
});

describe('philly samples', () => {
  const csv = join(SAMPLES, OTHER_SAMPLE_DIRS.philly, 'philly_jobs.csv');
  const log = join(SAMPLES, OTHER_SAMPLE_DIRS.philly, 'cluster_job_log.json');

  it('parse with no skipped row and hold the fixed sample jobs', async () => {
    const fromLog = await readAll([log], { strict: true });
    expect(fromLog.jobs.map(withoutSource)).toEqual(phillySampleJobs().map(withoutSource));
    const fromCsv = await readAll([csv], { strict: true });
    expect(fromCsv.jobs).toHaveLength(phillySampleJobs().length);
    expect(fromCsv.jobs.length).toBeGreaterThanOrEqual(30);
  });

  it('are what writeOtherSamples writes today', async () => {
    const out = join(dir, 'samples');
    await writeOtherSamples(out);
    for (const file of [csv, log]) {
      const fresh = join(out, OTHER_SAMPLE_DIRS.philly, file.split('/').at(-1)!);
      expect(await readFile(fresh, 'utf8'), file).toBe(await readFile(file, 'utf8'));
    }
  });
});

const REAL = sharedTrace('philly-pollux/philly.csv');

describe.skipIf(REAL === null)('philly CSV: the real Pollux file', () => {
  /** The file's rows, split directly (the file has no quoted cells). */
  const rows = () =>
    readFileSync(REAL!, 'utf8')
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => line.split(','));

  it('reads all 82,247 rows as jobs with no skipped row, earliest at 0 s, GPU counts as in the file', async () => {
    const { jobs, skipped } = await readAll([REAL!]);
    const byReason = new Map<string, number>();
    for (const error of skipped) byReason.set(error.countKey, (byReason.get(error.countKey) ?? 0) + 1);
    console.info(`philly.csv: ${jobs.length} jobs, ${skipped.length} skipped ${JSON.stringify(Object.fromEntries(byReason))}`);
    expect(jobs.length + skipped.length).toBe(82_247);
    expect(skipped).toEqual([]);

    const direct = new Map<number, number>();
    for (const cells of rows()) direct.set(Number(cells[2]), (direct.get(Number(cells[2])) ?? 0) + 1);
    const read = new Map<number, number>();
    for (const job of jobs) {
      const worker = job.roles[0]!;
      const gpus = worker.replicas * worker.demand.gpus;
      read.set(gpus, (read.get(gpus) ?? 0) + 1);
    }
    expect(Object.fromEntries(read)).toEqual(Object.fromEntries(direct));
    expect(Object.fromEntries(direct)).toEqual({ 1: 76_627, 2: 1818, 4: 1870, 8: 1643, 12: 7, 16: 199, 24: 7, 32: 67, 64: 6, 128: 3 });

    const shapes = new Set(jobs.filter((job) => job.roles[0]!.replicas > 1).map(shape));
    expect([...shapes].sort()).toEqual(['16x8', '2x6', '2x8', '3x8', '4x8', '8x8']);
    expect(Math.min(...jobs.map((job) => job.submitS))).toBe(0);
    // The earliest timestamp, 2017-09-04 10:30:41, is on line 31,568.
    expect(jobs.find((job) => job.submitS === 0)!.id).toBe('philly-31568');
    expect(Math.max(...jobs.map((job) => job.submitS))).toBe(
      (Date.UTC(2017, 11, 22, 8, 2, 11) - Date.UTC(2017, 8, 4, 10, 30, 41)) / 1000,
    );
  });

  it('has gpu_time = duration × num_gpus on every row (why the importer does not read it)', () => {
    const mismatched = rows().filter(([, duration, gpus, gpuTime]) => Number(gpuTime) !== Number(duration) * Number(gpus));
    expect(mismatched).toEqual([]);
  });
});
