/** Helpers the CSV/JSON job-log importers share: timestamps, cells, header checks, the two-pass read relative to the earliest submission, the batch job builder and CSV writing. */
import { createReadStream, type ReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { ConfigError, TraceError } from '../errors.js';
import type { JobSpec, ReplicaDemand } from '../model/job-spec.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_MEM_GIB } from '../model/limits.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { convertRow, csvRows, fileError, type CsvRow } from './csv-rows.js';
import type { TraceReadOptions } from './trace-format.js';


/**
 * Shortest job duration in seconds. Traces round runtimes to whole seconds, so 0 means "under a
 * second"; a batch job needs positive work (the native format requires durationS > 0) or it
 * would finish at the instant it is submitted.
 */
export const MIN_DURATION_S = 1;

/** A recorded runtime in seconds, with 0 raised to MIN_DURATION_S. */
export function positiveDurationS(durationS: number): number {
  return durationS > 0 ? durationS : MIN_DURATION_S;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?$/;
const EPOCH_SECONDS = /^-?\d+(?:\.\d+)?$/;
/** Cell texts that mean "no value" in traces exported by pandas or Python. */
const MISSING_TEXTS = new Set(['', 'nan', 'nat', 'none', 'null']);

/**
 * Seconds since the Unix epoch of "YYYY-MM-DD HH:MM:SS[.fff][Z|±HH:MM]" (UTC unless it has an
 * offset; a "T" may stand for the space); null when malformed or not a real date.
 */
export function parseTimestampS(text: string): number | null {
  const match = DATE_TIME.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const second = Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second >= 60) return null;
  const dayMs = Date.UTC(year, month - 1, day);
  if (new Date(dayMs).getUTCDate() !== day) return null;
  let epochS = dayMs / 1000 + hour * 3600 + minute * 60 + second;
  const zone = match[7];
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.replace(':', '');
    const offsetS = Number(digits.slice(1, 3)) * 3600 + Number(digits.slice(3, 5)) * 60;
    epochS -= zone.startsWith('-') ? -offsetS : offsetS;
  }
  return epochS;
}

/**
 * "YYYY-MM-DD HH:MM:SS" of epoch seconds rounded to the second, in UTC, or in local time followed
 * by "±HH:MM" when `offsetMinutes` is given.
 */
export function formatTimestamp(epochS: number, offsetMinutes: number | null = null): string {
  const shiftS = (offsetMinutes ?? 0) * 60;
  const text = new Date(Math.round(epochS + shiftS) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  if (offsetMinutes === null) return text;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${text}${sign}${hours}:${minutes}`;
}

/** True when a cell or JSON string means "no value" ("", "nan", "NaT", "None", "null"). */
export function isMissingText(text: string): boolean {
  return MISSING_TEXTS.has(text.trim().toLowerCase());
}

/**
 * A timestamp cell in epoch seconds: a date-time (see parseTimestampS) or, when `allowEpoch`,
 * plain epoch seconds. Throws "empty", "bad timestamp" or "negative time".
 */
export function timeCellS(row: CsvRow, column: string, allowEpoch = true): number {
  const text = row.text(column);
  if (isMissingText(text)) throw row.error(column, 'empty');
  const stampS = parseTimestampS(text);
  if (stampS !== null) return stampS;
  if (allowEpoch && EPOCH_SECONDS.test(text)) {
    const epochS = Number(text);
    if (epochS < 0) throw row.error(column, 'negative time', text);
    return epochS;
  }
  throw row.error(column, 'bad timestamp', text);
}

/** Like timeCellS, but null when the file lacks the column or the cell means "no value". */
export function optionalTimeCellS(row: CsvRow, column: string, allowEpoch = true): number | null {
  if (!row.has(column) || isMissingText(row.text(column))) return null;
  return timeCellS(row, column, allowEpoch);
}

/** A whole number ≥ 0; throws "empty", "not a number", "negative" or "not a whole number". */
export function wholeCell(row: CsvRow, column: string): number {
  const value = row.nonNegative(column);
  if (!Number.isInteger(value)) throw row.error(column, 'not a whole number', row.text(column));
  return value;
}

/** The column names of a CSV file's first line (trimmed); [] for an empty file. */
export async function readCsvHeader(file: string): Promise<string[]> {
  let input: ReadStream | undefined;
  try {
    input = createReadStream(file);
    const parser = parse({ to_line: 1, bom: true, relax_column_count: true });
    // pipe() does not forward a read error (a missing file): hand it to the parser so the loop throws it.
    input.on('error', (error) => parser.destroy(error));
    input.pipe(parser);
    for await (const record of parser as AsyncIterable<string[]>) return record.map((name) => name.trim());
    return [];
  } catch (error) {
    throw fileError(file, error);
  } finally {
    // Only the first line is read: close the file.
    input?.destroy();
  }
}

/** Throws "missing column" (line 1) for the first of `required` that the header lacks. */
export function checkHeader(file: string, header: readonly string[], required: readonly string[]): void {
  const missing = required.find((column) => !header.includes(column));
  if (missing !== undefined) throw new TraceError(file, 1, missing, 'missing column');
}

/**
 * Throws "missing column" for the first header column a short row lacks, so that later `has()`
 * checks on optional columns mean "empty" and never "row cut short".
 */
export function checkRowComplete(row: CsvRow, header: readonly string[]): void {
  for (const column of header) row.text(column);
}

/**
 * Throws "over N" at the column of a machine's GPUs, CPU (milli-cores) or memory (MiB) beyond the
 * bounds of src/model/limits.ts, the same as a scenario's node groups. `columns` names each field's cell.
 */
export function checkNodeSize(
  row: CsvRow,
  node: { readonly gpus: number; readonly cpuMilli: number; readonly memMiB: number },
  columns: { readonly gpus: string; readonly cpuMilli: string; readonly memMiB: string },
): void {
  const bounds = [
    ['gpus', MAX_GPUS_PER_NODE],
    ['cpuMilli', MAX_CPU_CORES * 1000],
    ['memMiB', MAX_MEM_GIB * 1024],
  ] as const;
  for (const [field, max] of bounds) {
    if (node[field] > max) throw row.error(columns[field], `over ${max}`, row.text(columns[field]));
  }
}

/** What a batch job read from a trace is made of. */
export interface TraceBatchFields {
  readonly id: string;
  /** Seconds; importers first give epoch seconds, then shift them to the earliest submission. */
  readonly submitS: number;
  readonly user: string;
  /** Identical workers, at least 1. */
  readonly replicas: number;
  readonly demand: ReplicaDemand;
  /** Runtime in seconds at the requested allocation (> 0). */
  readonly durationS: number;
  /** "file:line". */
  readonly source: string;
  readonly traceStatus?: string | undefined;
  readonly traceRetries?: number | undefined;
}

/** A `batch` (trace replay) JobSpec of identical workers, any GPU model, not elastic. */
export function traceBatchJob(fields: TraceBatchFields): JobSpec {
  return {
    id: fields.id,
    kind: 'batch',
    submitS: fields.submitS,
    user: fields.user,
    gpuTypes: [],
    roles: [{ role: 'worker', replicas: fields.replicas, demand: fields.demand }],
    elastic: null,
    totalSteps: fields.durationS,
    speed: { kind: 'fixed' },
    source: fields.source,
    ...(fields.traceStatus === undefined ? {} : { traceStatus: fields.traceStatus }),
    ...(fields.traceRetries === undefined ? {} : { traceRetries: fields.traceRetries }),
  };
}

/** Streams a trace's jobs with submitS in epoch seconds, applying the bad-row policy of `options`. */
export type EpochJobReader = (options: TraceReadOptions) => AsyncIterable<JobSpec>;

/**
 * Reads a trace twice: a first pass (bad rows ignored) finds the earliest submission among the
 * rows that convert, the second yields the jobs with submitS relative to it (so the earliest
 * job submits at 0 s), applying `options` (skips reported once, `limit`). Two streaming passes
 * keep memory flat; the origin is the whole trace's, so `limit` never shifts submit times.
 */
export async function* shiftedToEarliest(read: EpochJobReader, options: TraceReadOptions): AsyncGenerator<JobSpec> {
  if (options.limit <= 0) return;
  let earliestS = Infinity;
  for await (const job of read({ limit: Infinity, strict: false, onSkip: () => undefined })) {
    if (job.submitS < earliestS) earliestS = job.submitS;
  }
  let count = 0;
  for await (const job of read(options)) {
    yield { ...job, submitS: job.submitS - earliestS };
    if (++count >= options.limit) return;
  }
}

/** The single worker role of a job being written to a trace layout that has no roles; ConfigError otherwise. */
export function soleWorker(job: JobSpec, layout: string): { replicas: number; demand: ReplicaDemand } {
  const role = job.roles[0];
  if (job.roles.length !== 1 || role === undefined || role.role !== 'worker' || job.speed.kind !== 'fixed') {
    throw new ConfigError(job.source, `job ${job.id}: the ${layout} layout holds only fixed-duration jobs with one worker role`);
  }
  return { replicas: role.replicas, demand: role.demand };
}

/** Writes rows (the first being the header) as a CSV file atomically; returns its path. */
export function writeCsv(path: string, rows: readonly (readonly (string | number)[])[]): string {
  writeFileAtomic(path, stringify(rows as (string | number)[][]));
  return path;
}


/**
 * Streams jobs of header-row CSV files, one per row, submit times as the rows give them: checks the
 * header has the `required` columns, converts each row with `convert` and applies the bad-row policy.
 */
export async function* csvJobsOf(
  files: readonly string[],
  options: TraceReadOptions,
  required: readonly string[],
  convert: (row: CsvRow, header: readonly string[]) => JobSpec,
): AsyncGenerator<JobSpec> {
  for (const file of files) {
    const header = await readCsvHeader(file);
    checkHeader(file, header, required);
    for await (const row of csvRows(file, { kind: 'first-line' })) {
      const job = convertRow(options, () => convert(row, header));
      if (job !== null) yield job;
    }
  }
}
