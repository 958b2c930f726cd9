/** What a scenario does to a replayed trace's jobs: a time window, time and load scaling, re-timed arrivals, a drawn preprocessing need. */
import type { JobSpec } from '../model/job-spec.js';
import { MAX_STEPS, MAX_TIME_S } from '../model/limits.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import { drawPreprocessing, type PreprocessingSpec } from '../model/preprocessing.js';

/** A slice of a trace's own clock: jobs submitted in [fromS, toS). */
export interface TraceWindow {
  readonly fromS: number;
  readonly toS: number;
}

/** How `loadScale` raises the load: denser arrivals, or longer jobs at the same arrivals. */
export type LoadScaleBy = 'arrivals' | 'durations';

/** The scaling of `workload.trace`. */
export interface TraceScaling {
  /** Multiplies every time: submissions and work. */
  readonly timeScale: number;
  /** The offered load's factor. */
  readonly loadScale: number;
  readonly loadScaleBy: LoadScaleBy;
}

/** The job with its submission time counted from the window's start, or null when submitted outside it. */
export function inWindow(job: JobSpec, window: TraceWindow): JobSpec | null {
  if (!(job.submitS >= window.fromS && job.submitS < window.toS)) return null;
  return window.fromS === 0 ? job : { ...job, submitS: job.submitS - window.fromS };
}

/**
 * A trace job with its times scaled: work (duration or steps) and submission × timeScale; then,
 * by arrivals, submission ÷ loadScale, or by durations, work × loadScale.
 */
export function scaledTraceJob(job: JobSpec, scaling: TraceScaling): JobSpec {
  const { timeScale, loadScale, loadScaleBy } = scaling;
  if (timeScale === 1 && loadScale === 1) return job;
  const byArrivals = loadScaleBy === 'arrivals';
  return {
    ...job,
    submitS: byArrivals ? (job.submitS * timeScale) / loadScale : job.submitS * timeScale,
    totalSteps: byArrivals ? job.totalSteps * timeScale : job.totalSteps * timeScale * loadScale,
  };
}

/** Why a scaled trace job is out of bounds (its submit time, or its duration or steps), or null. */
export function scaledProblem(job: JobSpec): string | null {
  if (!(job.submitS <= MAX_TIME_S)) return 'submit time over 100 years after scaling';
  if (job.speed.kind === 'fixed' && !(job.totalSteps <= MAX_TIME_S)) return 'duration over 100 years after scaling';
  if (!(job.totalSteps <= MAX_STEPS)) return `over ${MAX_STEPS} steps after scaling`;
  return null;
}

const WHOLE_NUMBER = /^\d+$/;

/**
 * Orders job ids as the Alibaba PAI simulator sorts them: ids that are whole numbers by value (it
 * reads them as ints), before any other id; others as text.
 */
function compareIds(a: string, b: string): number {
  const aNumber = WHOLE_NUMBER.test(a);
  const bNumber = WHOLE_NUMBER.test(b);
  if (aNumber !== bNumber) return aNumber ? -1 : 1;
  if (aNumber) {
    const x = a.replace(/^0+(?=\d)/, '');
    const y = b.replace(/^0+(?=\d)/, '');
    if (x.length !== y.length) return x.length - y.length;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Arrivals re-timed as the Alibaba PAI simulator replays a job list: jobs in (submit time, id)
 * order, job k submitted at floor(k / perMinute) minutes; durations and work are kept.
 */
export function retimedArrivals(jobs: readonly JobSpec[], perMinute: number): JobSpec[] {
  const ordered = [...jobs].sort((a, b) => a.submitS - b.submitS || compareIds(a.id, b.id));
  return ordered.map((job, k) => ({ ...job, submitS: Math.floor(k / perMinute) * 60 }));
}

/**
 * The preprocessing need a trace job draws: none when its format gives it one (its spec has it) or
 * when it has no GPU or no CPU request; otherwise one drawn from the model families (keyed by its id),
 * its record's run time taken as measured at its own CPU per GPU (model/preprocessing.ts).
 */
export function drawnPreprocessing(job: JobSpec): PreprocessingSpec | null {
  if (job.preprocessing !== undefined) return null;
  const gpuRole = job.roles.find((role) => role.demand.gpus > 0);
  if (gpuRole === undefined || !(gpuRole.demand.cpuMilli > 0)) return null;
  const { demand } = gpuRole;
  return drawPreprocessing(job.id, demand.cpuMilli / ((demand.gpus * demand.gpuMilli) / GPU_MILLI));
}
