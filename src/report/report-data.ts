import type { WaitReason } from '../policies/wait-reason.js';
/** A part of a job's life, in GPU-hours, as the time-split chart stacks them. */
export type TimeSplitPart = 'productive' | 'lost' | 'checkpoint' | 'detection' | 'rescheduling' | 'health check' | 'loading' | 'starting / resizing';

/** The time-split parts in stacking order. */
export const TIME_SPLIT_PARTS: readonly TimeSplitPart[] = ['productive', 'lost', 'checkpoint', 'detection', 'rescheduling', 'health check', 'loading', 'starting / resizing'];

/** What the report draws from jobs.csv. */
export interface JobsData {
  /** Jobs in the file. */
  readonly jobs: number;
  /** JCTs of completed jobs, seconds, ascending. */
  readonly jctS: Float64Array;
  /** All time queued of completed jobs, seconds, ascending (the summary's waitS). */
  readonly waitS: Float64Array;
  /** GPU-hours of each part of the jobs' lives, summed over jobs. */
  readonly timeSplitGpuH: Readonly<Record<TimeSplitPart, number>>;
  /** Job-hours queued by wait reason, summed over jobs (zero where jobs.csv has no wait columns). */
  readonly waitReasonJobH: Readonly<Record<WaitReason, number>>;
}

/** One row of usage.csv. */
export interface UsageRow {
  readonly timeS: number;
  readonly binS: number;
  readonly allocatedGpus: number;
  readonly busyGpus: number;
  readonly totalGpus: number;
  readonly allocatedCpuMilli: number;
  readonly pendingJobs: number;
  readonly runningJobs: number;
  readonly dataWorkers: number;
}

/** One row of gantt.csv. */
export interface GanttCsvRow {
  readonly jobId: string;
  readonly state: string;
  readonly fromS: number;
  readonly toS: number;
}

/** One row of autoscale.csv. */
export interface AutoscaleCsvRow {
  readonly jobId: string;
  readonly timeS: number;
  readonly workers: number;
  readonly ps: number;
  readonly stepsPerS: number;
}

/** A fault of timeline.csv: when and of what type. */
export interface FaultEvent {
  readonly timeS: number;
  readonly faultType: string;
}

/** Everything the report draws of one policy's run. */
export interface PolicyData {
  readonly policy: string;
  readonly jobs: JobsData;
  /** null: the folder has no usage.csv. */
  readonly usage: readonly UsageRow[] | null;
  readonly gantt: readonly GanttCsvRow[] | null;
  readonly autoscale: readonly AutoscaleCsvRow[] | null;
  /** Faults that took effect (timeline.csv's fault rows); null: no timeline.csv. */
  readonly faults: readonly FaultEvent[] | null;
  /** summary.json as written (null when absent). */
  readonly summary: Readonly<Record<string, unknown>> | null;
  /** Seed of this run (from summary.json), null when unknown. */
  readonly seed: number | null;
}

/** One metric's statistics for one policy, as comparison.json holds them. */
export interface MetricCell {
  readonly mean: number;
  readonly ci95: number | null;
  readonly ratioToFirst: number | null;
}

/** What the summary table reads of comparison.json. */
export interface ComparisonData {
  readonly seeds: readonly number[];
  /** metric -> policy -> statistics. */
  readonly metrics: Readonly<Record<string, Readonly<Record<string, MetricCell>>>>;
  /** metric -> policy -> paired ratio to the first policy (mean and interval over seeds). */
  readonly pairedRatios: Readonly<Record<string, Readonly<Record<string, { readonly mean: number; readonly ci95: number | null }>>>>;
}

/** Everything report.html shows. */
export interface ReportData {
  /** 'run': one policy's run folder; 'compare': a compare folder. */
  readonly kind: 'run' | 'compare';
  readonly scenario: string;
  /** The dlsim version that made the report. */
  readonly version: string;
  /** Policies in the comparison's order (the first is the baseline). */
  readonly policies: readonly PolicyData[];
  /** comparison.json of a compare folder; null for a run. */
  readonly comparison: ComparisonData | null;
}
