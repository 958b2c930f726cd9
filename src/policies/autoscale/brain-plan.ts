/** What DLRover's optimizers read about a job and the plans they return (shared by both modes). */
import type { JobRequest } from '../../model/job-spec.js';
import type { UsageSample } from '../../model/usage.js';

/** Replicas of a role and what each new one gets. */
export interface RolePlan {
  readonly replicas: number;
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/** A PS replaced by a bigger (or smaller) one, by rank. */
export interface PsMigration {
  readonly rank: number;
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/** A resource plan for one job: what to change, and why (one line). Absent parts stay as they are. */
export interface ResourcePlan {
  /** Target PS count and what each new PS gets. */
  readonly ps?: RolePlan;
  /** PS to replace, rank by rank. */
  readonly migrate?: readonly PsMigration[];
  /** Target training workers (the chief included) and what each new one gets. */
  readonly workers?: RolePlan;
  readonly reason: string;
}

/** A job as an optimizer sees it at one check. */
export interface JobReading {
  readonly request: JobRequest;
  readonly nowS: number;
  /** Records taken while the job trained at its current shape, oldest first. */
  readonly records: readonly UsageSample[];
  /** Training workers now, the chief included. */
  readonly workers: number;
  /** CPU (thousandths of a core) and memory (MiB) the smallest worker holds. */
  readonly workerCpuMilli: number;
  readonly workerMemMiB: number;
  /** CPU and memory of each PS, rank by rank. */
  readonly psCpuMilli: readonly number[];
  readonly psMemMiB: readonly number[];
  /** The job's CPU and memory budget (its resourceLimits, else what it asked for). */
  readonly limitCpuMilli: number;
  readonly limitMemMiB: number;
  /** Speed and worker count before the last change of the worker count (null: none yet). */
  readonly beforeLastAddition: { readonly stepsPerS: number; readonly workers: number } | null;
  /** Steps done so far. */
  readonly progressSteps: number;
}

/** The job's mean speed over its records (0 without). */
export function speedOf(reading: JobReading): number {
  if (reading.records.length === 0) return 0;
  return reading.records.reduce((sum, r) => sum + r.stepsPerS, 0) / reading.records.length;
}

/** Whole cores in thousandths, rounded up. */
export function ceilCores(cores: number): number {
  return Math.max(1, Math.ceil(cores)) * 1000;
}
