import { parse } from 'csv-parse/sync';
import { ConfigError } from '../errors.js';
import { WAIT_REASONS, type WaitReason } from '../policies/wait-reason.js';
import { waitColumn } from './jobs-csv.js';
import { TIME_SPLIT_PARTS, type AutoscaleCsvRow, type FaultEvent, type GanttCsvRow, type JobsData, type TimeSplitPart, type UsageRow } from './report-data.js';

/** Reads a field of the current row by column name. */
type Field = (column: string) => string;

/**
 * Parses CSV `text` with a header, calling `onRow` for each row without keeping the rows (a
 * million-row jobs.csv is never held parsed). Columns named in `required` must be in the header;
 * a missing one, or a row of the wrong length, is a ConfigError naming `file` (and the line).
 */
export function eachCsvRow(text: string, file: string, required: readonly string[], onRow: (field: Field, line: number) => void): void {
  let index: Map<string, number> | null = null;
  let record: string[] = [];
  const field: Field = (column) => record[index!.get(column) ?? -1] ?? '';
  try {
    parse(text, {
      on_record: (row: string[], context) => {
        if (index === null) {
          index = new Map(row.map((name, i) => [name, i]));
          const missing = required.filter((c) => !index!.has(c));
          if (missing.length > 0) throw new ConfigError(file, `the header lacks ${missing.join(', ')}`);
          return null;
        }
        record = row;
        onRow(field, context.lines);
        return null;
      },
    });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, `not a CSV file dlsim wrote: ${(error as Error).message.split('\n')[0]}`);
  }
  if (index === null) throw new ConfigError(file, 'empty file (no header)');
}

/** A number of a CSV field; an empty field reads as `empty`, anything else not a number is an error at `where`. */
function numberOf(text: string, where: string, empty = Number.NaN): number {
  if (text === '') return empty;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ConfigError(where, `expected a number, got "${text}"`);
  return value;
}

/** Columns of jobs.csv the report reads. */
const JOBS_COLUMNS = ['jctS', 'state', 'gpus', 'queuedS', 'productiveS', 'lostGpuHours', 'checkpointingS', 'detectingS', 'reschedulingS', 'healthCheckS', 'loadingS', 'startingS', 'resizingS'] as const;

/** What the report needs of jobs.csv: sorted JCTs and waits of completed jobs and the GPU-hours of each part of the jobs' lives. */
export function readJobsCsv(text: string, file: string): JobsData {
  const jct: number[] = [];
  const wait: number[] = [];
  const split: Record<TimeSplitPart, number> = Object.fromEntries(TIME_SPLIT_PARTS.map((p) => [p, 0])) as Record<TimeSplitPart, number>;
  const waits = Object.fromEntries(WAIT_REASONS.map((r) => [r, 0])) as Record<WaitReason, number>;
  let jobs = 0;
  eachCsvRow(text, file, JOBS_COLUMNS, (field, line) => {
    jobs++;
    const where = `${file}:${line}`;
    const num = (column: string): number => numberOf(field(column), `${where} (${column})`, 0);
    if (field('state') === 'completed') {
      jct.push(num('jctS'));
      wait.push(num('queuedS'));
    }
    const gpuH = num('gpus') / 3600;
    split.productive += num('productiveS') * gpuH;
    split.lost += num('lostGpuHours');
    split.checkpoint += num('checkpointingS') * gpuH;
    split.detection += num('detectingS') * gpuH;
    split.rescheduling += num('reschedulingS') * gpuH;
    split['health check'] += num('healthCheckS') * gpuH;
    split.loading += num('loadingS') * gpuH;
    split['starting / resizing'] += (num('startingS') + num('resizingS')) * gpuH;
    // Wait columns are optional: a jobs.csv from before them draws no reasons.
    for (const reason of WAIT_REASONS) waits[reason] += num(waitColumn(reason)) / 3600;
  });
  return { jobs, jctS: Float64Array.from(jct).sort(), waitS: Float64Array.from(wait).sort(), timeSplitGpuH: split, waitReasonJobH: waits };
}

/** The rows of usage.csv. */
export function readUsageCsv(text: string, file: string): UsageRow[] {
  const rows: UsageRow[] = [];
  const columns = ['timeS', 'binS', 'allocatedGpus', 'busyGpus', 'totalGpus', 'allocatedCpuMilli', 'pendingJobs', 'runningJobs', 'dataWorkers'] as const;
  eachCsvRow(text, file, columns, (field, line) => {
    const num = (column: string): number => numberOf(field(column), `${file}:${line} (${column})`, 0);
    rows.push({
      timeS: num('timeS'),
      binS: num('binS'),
      allocatedGpus: num('allocatedGpus'),
      busyGpus: num('busyGpus'),
      totalGpus: num('totalGpus'),
      allocatedCpuMilli: num('allocatedCpuMilli'),
      pendingJobs: num('pendingJobs'),
      runningJobs: num('runningJobs'),
      dataWorkers: num('dataWorkers'),
    });
  });
  return rows;
}

/** The rows of gantt.csv. */
export function readGanttCsv(text: string, file: string): GanttCsvRow[] {
  const rows: GanttCsvRow[] = [];
  eachCsvRow(text, file, ['jobId', 'state', 'fromS', 'toS'], (field, line) => {
    const where = `${file}:${line}`;
    rows.push({ jobId: field('jobId'), state: field('state'), fromS: numberOf(field('fromS'), where), toS: numberOf(field('toS'), where) });
  });
  return rows;
}

/** The rows of autoscale.csv. */
export function readAutoscaleCsv(text: string, file: string): AutoscaleCsvRow[] {
  const rows: AutoscaleCsvRow[] = [];
  eachCsvRow(text, file, ['jobId', 'timeS', 'workers', 'ps', 'stepsPerS'], (field, line) => {
    const num = (column: string): number => numberOf(field(column), `${file}:${line} (${column})`, 0);
    rows.push({ jobId: field('jobId'), timeS: num('timeS'), workers: num('workers'), ps: num('ps'), stepsPerS: num('stepsPerS') });
  });
  return rows;
}

/** The faults of timeline.csv (its `fault` rows). */
export function readTimelineFaults(text: string, file: string): FaultEvent[] {
  const faults: FaultEvent[] = [];
  eachCsvRow(text, file, ['timeS', 'event', 'faultType'], (field, line) => {
    if (field('event') !== 'fault') return;
    faults.push({ timeS: numberOf(field('timeS'), `${file}:${line} (timeS)`), faultType: field('faultType') });
  });
  return faults;
}
