/**
 * Microsoft Philly (ATC'19 "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training
 * Workloads", github.com/msr-fiddle/philly-traces), in two layouts told apart by content (a file
 * whose first non-blank character is "[" is the JSON log, anything else the CSV):
 *
 * 1. The Pollux CSV derived from it (petuum/adaptdl `simulator/traces/philly.csv`):
 *    `timestamp,duration,num_gpus,gpu_time,cluster`, rows not sorted by time. Each row -> a batch job:
 *    - id `philly-<line>` (1-based line; there is no id column; `philly-<n>-<line>` for the n-th
 *      file when several are read, so ids stay unique);
 *    - submitS = timestamp ("YYYY-MM-DD HH:MM:SS", read as UTC) - the earliest timestamp;
 *    - durationS = duration (0 -> MIN_DURATION_S);
 *    - workers from num_gpus by phillyWorkers (≤ 8 GPUs per worker: Philly servers have 2 or 8);
 *    - user `vc:<cluster>`: the CSV has no user, Philly schedules per virtual cluster, and fairness
 *      policies need a tenant;
 *    - gpu_time is redundant (= duration × num_gpus on every row of the real file, which a test
 *      checks) and is not read.
 * 2. The raw `cluster_job_log`: one JSON array of `{jobid, user, vc, status, submitted_time,
 *    attempts: [{start_time, end_time, detail: [{ip, gpus: [...]}]}]}`, streamed element by
 *    element (src/workload/json-array-stream.ts; the real log is ~300 MB). Each job -> a batch job:
 *    - id = jobid; user = user (the vc is not kept: here there is a real user to be fair to);
 *    - submitS = submitted_time - the earliest submitted_time;
 *    - GPUs = the most GPUs any attempt held (gpu entries summed over its hosts); workers = one per
 *      host of that attempt, or, when its hosts hold unequal counts, phillyWorkers(GPUs);
 *    - durationS = the sum of the attempts' run times (end - start): the work the job did, since a
 *      replay has no model of what a retry repeats; an attempt missing a time (a logging error,
 *      per the trace's README) adds nothing;
 *    - traceRetries = attempts - 1; traceStatus = status (Pass, Killed, Failed).
 *    - "never ran": no attempts, or no attempt with a start_time. "never ended": the last attempt
 *      has no end_time (still running when the log was taken). "no GPUs": no attempt held a GPU.
 *
 * CPU and memory are not recorded by Philly: 4 cores and 32 GiB per GPU (PHILLY_*_PER_GPU).
 * Both layouts are read in two streaming passes (the first finds the earliest submission, see
 * shiftedToEarliest), so memory stays flat and `limit` does not change submit times.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, TraceError } from '../../errors.js';
import type { JobSpec, ReplicaDemand } from '../../model/job-spec.js';
import { MAX_REPLICAS } from '../../model/limits.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { convertRow, csvRows, fileError, type CsvRow } from '../csv-rows.js';
import { jsonArrayItems, type JsonArrayItem } from '../json-array-stream.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { checkHeader, checkRowComplete, formatTimestamp, isMissingText, parseTimestampS, positiveDurationS, readCsvHeader, shiftedToEarliest, soleWorker, timeCellS, traceBatchJob, wholeCell, writeCsv } from '../trace-rows.js';

/** Most GPUs one Philly worker gets: the largest Philly servers have 8. */
export const PHILLY_GPUS_PER_NODE = 8;
/**
 * Most GPUs a Philly job may ask for: 8 per worker times MAX_REPLICAS workers, the most a native
 * job holds. Checked before phillyWorkers, whose search for a worker count takes time in the GPU count.
 */
export const PHILLY_MAX_JOB_GPUS = PHILLY_GPUS_PER_NODE * MAX_REPLICAS;
/** CPU per GPU in thousandths of a core (Philly records none; a documented default). */
export const PHILLY_CPU_MILLI_PER_GPU = 4000;
/** Memory per GPU in MiB (Philly records none; a documented default). */
export const PHILLY_MEM_MIB_PER_GPU = 32_768;
/** Epoch writeJobs counts submitS from: 2017-10-01 00:00:00 UTC (inside the trace's span). */
export const PHILLY_WRITE_EPOCH_S = Date.UTC(2017, 9, 1) / 1000;

/** Columns the Philly CSV must have (gpu_time is not read). */
const CSV_REQUIRED = ['timestamp', 'duration', 'num_gpus', 'cluster'] as const;
const CSV_COLUMNS = ['timestamp', 'duration', 'num_gpus', 'gpu_time', 'cluster'] as const;

/**
 * Worker layout of a job of `gpus` GPUs (a positive whole number): one worker when gpus ≤ 8,
 * else k workers of gpus/k GPUs for the smallest k that makes gpus/k whole and ≤ 8 (16 -> 2×8,
 * 24 -> 3×8, 12 -> 2×6). Such a k always exists (at worst k = gpus).
 */
export function phillyWorkers(gpus: number): { replicas: number; gpusPerReplica: number } {
  for (let replicas = Math.ceil(gpus / PHILLY_GPUS_PER_NODE); replicas < gpus; replicas++) {
    if (gpus % replicas === 0) return { replicas, gpusPerReplica: gpus / replicas };
  }
  return { replicas: Math.max(gpus, 1), gpusPerReplica: gpus > 0 ? 1 : 0 };
}

/** Demand of one Philly worker of `gpus` GPUs, with the documented CPU and memory defaults. */
export function phillyDemand(gpus: number): ReplicaDemand {
  return { gpus, gpuMilli: 1000, cpuMilli: gpus * PHILLY_CPU_MILLI_PER_GPU, memMiB: gpus * PHILLY_MEM_MIB_PER_GPU };
}

/** One CSV row as a batch job with submitS in epoch seconds. */
function phillyCsvJob(row: CsvRow, header: readonly string[], idPrefix: string): JobSpec {
  checkRowComplete(row, header);
  const submitS = timeCellS(row, 'timestamp', false);
  const durationS = positiveDurationS(row.nonNegative('duration'));
  const gpus = wholeCell(row, 'num_gpus');
  if (gpus === 0) throw row.error('num_gpus', 'no GPUs', row.text('num_gpus'));
  if (gpus > PHILLY_MAX_JOB_GPUS) throw row.error('num_gpus', `over ${PHILLY_MAX_JOB_GPUS}`, row.text('num_gpus'));
  const { replicas, gpusPerReplica } = phillyWorkers(gpus);
  const cluster = row.text('cluster');
  return traceBatchJob({
    id: `${idPrefix}${row.line}`,
    submitS,
    user: cluster === '' ? '' : `vc:${cluster}`,
    replicas,
    demand: phillyDemand(gpusPerReplica),
    durationS,
    source: `${row.file}:${row.line}`,
  });
}

/** A parsed log element with field accessors that throw TraceError at the element's line. */
class JsonJob {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly value: Record<string, unknown>,
  ) {}

  error(field: string, reason: string, value?: string): TraceError {
    return new TraceError(this.file, this.line, field, reason, value);
  }

  /** A required non-empty string field. */
  text(field: string): string {
    const value = this.value[field];
    if (value === undefined) throw this.error(field, 'missing field');
    if (typeof value !== 'string') throw this.error(field, 'not a string', JSON.stringify(value));
    if (value.trim() === '') throw this.error(field, 'empty');
    return value;
  }

  /** An optional string field; `fallback` when absent or null. */
  optionalText(field: string, fallback: string): string {
    const value = this.value[field];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string') throw this.error(field, 'not a string', JSON.stringify(value));
    return value;
  }
}

/** Epoch seconds of a log time ("YYYY-MM-DD HH:MM:SS"), or null for null, "None" or absent. */
function logTimeS(job: JsonJob, value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw job.error(field, 'bad timestamp', JSON.stringify(value));
  if (isMissingText(value)) return null;
  const epochS = parseTimestampS(value.trim());
  if (epochS === null) throw job.error(field, 'bad timestamp', value);
  return epochS;
}

/** What one attempt of a log job did. */
interface Attempt {
  readonly startS: number | null;
  readonly endS: number | null;
  /** GPU count per host that held at least one GPU, in log order. */
  readonly hostGpus: readonly number[];
}

function readAttempt(job: JsonJob, value: unknown): Attempt {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw job.error('attempts', 'not an object', JSON.stringify(value));
  }
  const attempt = value as Record<string, unknown>;
  const detail = attempt['detail'] ?? [];
  if (!Array.isArray(detail)) throw job.error('attempts.detail', 'not a list', JSON.stringify(detail));
  const hostGpus: number[] = [];
  for (const host of detail) {
    const gpus = (host as { gpus?: unknown } | null)?.gpus ?? [];
    if (!Array.isArray(gpus)) throw job.error('attempts.detail.gpus', 'not a list', JSON.stringify(gpus));
    if (gpus.length > 0) hostGpus.push(gpus.length);
  }
  return {
    startS: logTimeS(job, attempt['start_time'], 'attempts.start_time'),
    endS: logTimeS(job, attempt['end_time'], 'attempts.end_time'),
    hostGpus,
  };
}

/** One element of the raw log as a batch job with submitS in epoch seconds. */
function phillyLogJob(item: JsonArrayItem, file: string): JobSpec {
  let value: unknown;
  try {
    value = JSON.parse(item.text);
  } catch {
    throw new TraceError(file, item.line, 'record', 'not valid JSON', item.text.slice(0, 80));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TraceError(file, item.line, 'record', 'not an object', item.text.slice(0, 80));
  }
  const job = new JsonJob(file, item.line, value as Record<string, unknown>);
  const id = job.text('jobid');
  const submitS = logTimeS(job, job.value['submitted_time'], 'submitted_time');
  if (submitS === null) throw job.error('submitted_time', 'empty');
  const rawAttempts = job.value['attempts'] ?? [];
  if (!Array.isArray(rawAttempts)) throw job.error('attempts', 'not a list', JSON.stringify(rawAttempts));
  const attempts = rawAttempts.map((attempt) => readAttempt(job, attempt));
  const last = attempts.at(-1);
  if (last === undefined) throw job.error('attempts', 'never ran');
  if (attempts.every((attempt) => attempt.startS === null)) throw job.error('attempts.start_time', 'never ran');
  if (last.startS !== null && last.endS === null) throw job.error('attempts.end_time', 'never ended');
  let runS = 0;
  let largest: Attempt = last;
  let largestGpus = -1;
  for (const attempt of attempts) {
    if (attempt.startS !== null && attempt.endS !== null) {
      if (attempt.endS < attempt.startS) throw job.error('attempts.end_time', 'end before start', formatTimestamp(attempt.endS));
      runS += attempt.endS - attempt.startS;
    }
    const gpus = attempt.hostGpus.reduce((sum, n) => sum + n, 0);
    if (gpus > largestGpus) {
      largest = attempt;
      largestGpus = gpus;
    }
  }
  if (largestGpus <= 0) throw job.error('attempts.detail', 'no GPUs');
  if (largestGpus > PHILLY_MAX_JOB_GPUS) throw job.error('attempts.detail', `over ${PHILLY_MAX_JOB_GPUS}`, String(largestGpus));
  const perHost = largest.hostGpus[0]!;
  const layout = largest.hostGpus.every((n) => n === perHost)
    ? { replicas: largest.hostGpus.length, gpusPerReplica: perHost }
    : phillyWorkers(largestGpus);
  const status = job.optionalText('status', '');
  return traceBatchJob({
    id,
    submitS,
    user: job.optionalText('user', ''),
    replicas: layout.replicas,
    demand: phillyDemand(layout.gpusPerReplica),
    durationS: positiveDurationS(runS),
    source: `${file}:${item.line}`,
    traceStatus: status === '' ? undefined : status,
    traceRetries: attempts.length - 1,
  });
}

/** True when the file's first non-blank character is "[" (the JSON log); false for the CSV. */
async function isJsonArrayFile(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '').trimStart().startsWith('[');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError(file, error);
  }
}

/** Streams the jobs of all files (either layout) with epoch-second submit times. */
async function* readPhillyEpoch(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  for (const [index, file] of files.entries()) {
    if (await isJsonArrayFile(file)) {
      for await (const item of jsonArrayItems(file)) {
        const job = convertRow(options, () => phillyLogJob(item, file));
        if (job !== null) yield job;
      }
      continue;
    }
    const header = await readCsvHeader(file);
    checkHeader(file, header, CSV_REQUIRED);
    const idPrefix = index === 0 ? 'philly-' : `philly-${index + 1}-`;
    for await (const row of csvRows(file, { kind: 'first-line' })) {
      const job = convertRow(options, () => phillyCsvJob(row, header, idPrefix));
      if (job !== null) yield job;
    }
  }
}

/** The virtual cluster a job is written under: the part after "vc:", else the whole user. */
function clusterOf(user: string): string {
  return user.startsWith('vc:') ? user.slice(3) : user;
}

/** A job as a raw-log element: one attempt per try, the runtime split evenly, back to back from submission. */
function logElement(job: JobSpec, replicas: number, gpusPerReplica: number): Record<string, unknown> {
  const submitS = PHILLY_WRITE_EPOCH_S + job.submitS;
  const tries = (job.traceRetries ?? 0) + 1;
  // Whole seconds per attempt (the log's resolution); the last takes the remainder, so the sum is exact for whole durations.
  const sliceS = Math.floor(job.totalSteps / tries);
  const detail = Array.from({ length: replicas }, (_, host) => ({
    ip: `m${host}`,
    gpus: Array.from({ length: gpusPerReplica }, (_, gpu) => `gpu${gpu}`),
  }));
  const attempts = [];
  let startS = submitS;
  for (let attempt = 0; attempt < tries; attempt++) {
    const endS = attempt === tries - 1 ? submitS + job.totalSteps : startS + sliceS;
    attempts.push({ start_time: formatTimestamp(startS), end_time: formatTimestamp(endS), detail });
    startS = endS;
  }
  return {
    ...(job.traceStatus === undefined ? {} : { status: job.traceStatus }),
    vc: clusterOf(job.user),
    jobid: job.id,
    attempts,
    submitted_time: formatTimestamp(submitS),
    user: job.user,
  };
}

/**
 * Writes jobs in both layouts: philly.csv and cluster_job_log.json (one element per line). They
 * hold the same jobs: read one of them. Times are whole seconds from PHILLY_WRITE_EPOCH_S; the CSV
 * keeps only the GPU count and the user's virtual cluster, the log also status and retries.
 */
async function writePhillyJobs(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const rows: (string | number)[][] = [[...CSV_COLUMNS]];
  const elements: string[] = [];
  for (const job of jobs) {
    const { replicas, demand } = soleWorker(job, 'Philly');
    const gpus = replicas * demand.gpus;
    if (gpus === 0) throw new ConfigError(job.source, `job ${job.id}: the Philly layouts hold only GPU jobs`);
    rows.push([formatTimestamp(PHILLY_WRITE_EPOCH_S + job.submitS), job.totalSteps, gpus, job.totalSteps * gpus, clusterOf(job.user)]);
    elements.push(JSON.stringify(logElement(job, replicas, demand.gpus)));
  }
  const csvFile = writeCsv(join(outDir, 'philly_jobs.csv'), rows);
  const logFile = join(outDir, 'cluster_job_log.json');
  writeFileAtomic(logFile, `[\n${elements.join(',\n')}\n]\n`);
  return [csvFile, logFile];
}

/** Microsoft Philly: the Pollux CSV or the raw cluster_job_log; see the file header for the mapping. */
export const phillyFormat: TraceFormat = {
  id: 'philly',
  description: "Microsoft Philly DNN training jobs (ATC'19): the Pollux philly.csv or the raw cluster_job_log JSON",
  filesHelp: 'philly.csv | cluster_job_log',
  readJobs: (files, options) => shiftedToEarliest((pass) => readPhillyEpoch(files, pass), options),
  writeJobs: writePhillyJobs,
};
