import { stringify } from 'csv-stringify/sync';
import { roundS } from '../metrics/summary.js';
import type { RecordedRun } from '../sim/run-recorders.js';

/** Columns of usage.csv, in order. */
export const USAGE_COLUMNS = ['timeS', 'binS', 'allocatedGpus', 'busyGpus', 'totalGpus', 'allocatedCpuMilli', 'pendingJobs', 'runningJobs', 'dataWorkers'] as const;

/** Columns of gantt.csv, in order. */
export const GANTT_COLUMNS = ['jobId', 'state', 'fromS', 'toS'] as const;

/** Columns of autoscale.csv, in order. */
export const AUTOSCALE_COLUMNS = ['jobId', 'timeS', 'workers', 'ps', 'stepsPerS'] as const;

/** A level to 6 significant digits (means over a bin are rarely whole). */
function level(value: number): number {
  return Number(value.toPrecision(6));
}

/**
 * usage.csv: one row per bin of simulated time from `timeS` for `binS` seconds (the last bin may
 * be shorter), each level the time-weighted mean over the bin; at most MAX_USAGE_BINS rows.
 */
export function usageCsv(recorded: RecordedRun): string {
  return stringify([
    [...USAGE_COLUMNS],
    ...recorded.usage.map((bin) => [
      roundS(bin.timeS),
      roundS(bin.coveredS),
      level(bin.allocatedGpus),
      level(bin.busyGpus),
      recorded.totalGpus,
      level(bin.allocatedCpuMilli),
      level(bin.pendingJobs),
      level(bin.runningJobs),
      level(bin.dataWorkers),
    ]),
  ]);
}

/** gantt.csv: the state intervals of the sampled jobs, job by job, each in time order. */
export function ganttCsv(recorded: RecordedRun): string {
  return stringify([[...GANTT_COLUMNS], ...recorded.gantt.map((row) => [row.jobId, row.state, roundS(row.fromS), roundS(row.toS)])]);
}

/** autoscale.csv: auto-scaled jobs' workers, parameter servers and speed from each change on. */
export function autoscaleCsv(recorded: RecordedRun): string {
  return stringify([
    [...AUTOSCALE_COLUMNS],
    ...recorded.autoscale.map((row) => [row.jobId, roundS(row.timeS), row.workers, row.ps, Number(row.stepsPerS.toPrecision(4))]),
  ]);
}
