/**
 * The run-level hook of the auto-scaler's history (the scenario's `history`): before a run, the
 * database is opened and the policies get a read-only view of it as it was then; after the run,
 * `dlsim run` adds one record per completed PS job and saves the file. The simulation itself
 * never touches the file.
 */
import { HISTORY_ROLES, HistoryDb, type HistoryPsTotals, type HistoryRecord, type HistoryRole, type HistoryRoleShape, type HistoryRoleUsage, type HistorySample } from '../io/history-db.js';
import { InvariantError } from '../errors.js';
import type { RuntimeShape } from '../model/shape.js';
import type { UsageSample } from '../model/usage.js';
import type { HistoryView } from '../policies/autoscale/history-view.js';
import type { HistorySetting, Scenario } from '../scenario/scenario.js';
import type { JobRuntime } from './job-runtime.js';
import type { SimResult } from './simulation.js';

/** Seconds in a day: without `history.startS` a run starts at the first whole day after the history's latest finish. */
export const HISTORY_DAY_S = 86_400;

/**
 * History time a run's t = 0 maps to when the scenario gives none: the start of the first whole
 * day after the latest finish (so runs follow one another day after day), 0 for an empty history.
 */
export function defaultHistoryStartS(latestFinishS: number | null): number {
  if (latestFinishS === null) return 0;
  return (Math.floor(latestFinishS / HISTORY_DAY_S) + 1) * HISTORY_DAY_S;
}

/** The label a run's records carry: its scenario name and seed. */
export function runLabelOf(scenario: Pick<Scenario, 'name' | 'seed'>): string {
  return `${scenario.name} seed ${scenario.seed}`;
}

/** What a record is made of: a completed job as the simulation left it. */
export type FinishedJob = Pick<JobRuntime, 'spec' | 'phase' | 'endS' | 'lastShape' | 'storedProgressSteps' | 'runningS'>;

/**
 * The record of a completed job: its final shape, its sampled usage (per replica per role, and all
 * PS together), its speed (steps done over seconds trained; the last sample's steps/s) and its
 * samples, times moved to history time by `startS`.
 */
export function historyRecordOf(job: FinishedJob, samples: readonly UsageSample[], startS: number, runLabel: string): HistoryRecord {
  if (job.phase !== 'completed' || job.endS === null) throw new InvariantError(`job ${job.spec.id} is not completed: it has no history record`);
  const meanStepsPerS = job.runningS > 0 ? job.storedProgressSteps / job.runningS : 0;
  const last = samples[samples.length - 1];
  const rows: HistorySample[] = [];
  for (const sample of samples) {
    for (const r of sample.roles) {
      rows.push({ atS: startS + sample.atS, role: r.role, replicas: r.replicas, cpuCores: r.cpuUsedCores, memMiB: r.memUsedMiB, stepsPerS: sample.stepsPerS });
    }
  }
  return {
    jobId: job.spec.id,
    user: job.spec.user,
    dataset: job.spec.dataset ?? '',
    finishedAtS: startS + job.endS,
    runLabel,
    shape: byRole((role) => roleShapeOf(job.lastShape, role)),
    usage: byRole((role) => roleUsageOf(samples, role)),
    psTotals: psTotalsOf(samples),
    meanStepsPerS,
    finalStepsPerS: last === undefined ? meanStepsPerS : last.stepsPerS,
    totalSteps: job.storedProgressSteps,
    samples: rows,
  };
}

/** The records of a run's completed PS jobs, in the order the jobs were submitted. */
export function historyRecordsOf(result: Pick<SimResult, 'jobs' | 'samplesOf'>, startS: number, runLabel: string): HistoryRecord[] {
  return result.jobs
    .filter((job) => job.spec.kind === 'ps' && job.phase === 'completed')
    .map((job) => historyRecordOf(job, result.samplesOf(job.spec.id), startS, runLabel));
}

/**
 * A run's history: the database as it was when the run started (in memory: what other processes
 * write meanwhile does not reach it), the history time the run starts at, and the view policies read.
 */
export class RunHistory {
  /** The read-only view the run's policies get. */
  readonly view: HistoryView;
  private recorded = false;

  private constructor(
    private readonly db: HistoryDb,
    /** History time (seconds) the run's t = 0 maps to. */
    readonly startS: number,
  ) {
    this.view = {
      similar: (user, dataset, withinS, nowS) => {
        // Records are added only after the run: a view read then would see them.
        if (this.recorded) throw new InvariantError('the history view is read after its run was recorded');
        const untilS = this.startS + nowS;
        return this.db.similar(user, dataset, untilS - withinS, untilS);
      },
    };
  }

  /**
   * Opens the scenario's history: from `snapshot` (the bytes of its file, read once for a set of
   * runs) when given, else from its file (an empty history when the file is missing).
   */
  static async open(setting: HistorySetting, snapshot?: Uint8Array): Promise<RunHistory> {
    const db = snapshot === undefined ? await HistoryDb.open(setting.file) : await HistoryDb.fromBytes(snapshot, setting.file);
    return new RunHistory(db, setting.startS ?? defaultHistoryStartS(db.latestFinishS()));
  }

  /** The database file. */
  get file(): string {
    return this.db.file;
  }

  /** How many records the history holds. */
  get size(): number {
    return this.db.size;
  }

  /** The history as the bytes of its file (a snapshot for runs in other threads). */
  bytes(): Uint8Array {
    return this.db.bytes();
  }

  /** Adds a record per completed PS job of the finished run; returns how many. The view is closed from now on. */
  record(result: Pick<SimResult, 'jobs' | 'samplesOf'>, runLabel: string): number {
    this.recorded = true;
    const records = historyRecordsOf(result, this.startS, runLabel);
    for (const record of records) this.db.add(record);
    return records.length;
  }

  /** Writes the history to its file atomically. */
  save(): void {
    this.db.save();
  }

  /** Lets the database go. */
  close(): void {
    this.db.close();
  }
}

function byRole<T>(make: (role: HistoryRole) => T): Record<HistoryRole, T> {
  const out = {} as Record<HistoryRole, T>;
  for (const role of HISTORY_ROLES) out[role] = make(role);
  return out;
}

/** A role's replicas and per-replica CPU and memory in a shape (all 0 when the shape has none of it). */
function roleShapeOf(shape: RuntimeShape, role: HistoryRole): HistoryRoleShape {
  const found = shape.find((r) => r.role === role);
  return found === undefined ? { replicas: 0, cpuMilli: 0, memMiB: 0 } : { replicas: found.replicas, cpuMilli: found.demand.cpuMilli, memMiB: found.demand.memMiB };
}

/** A role's use per replica over the samples that have it; null when none has. */
function roleUsageOf(samples: readonly UsageSample[], role: HistoryRole): HistoryRoleUsage | null {
  let count = 0;
  let cpuSum = 0;
  let maxCpuCores = 0;
  let maxMemMiB = 0;
  for (const sample of samples) {
    for (const r of sample.roles) {
      if (r.role !== role) continue;
      count++;
      cpuSum += r.cpuUsedCores;
      maxCpuCores = Math.max(maxCpuCores, r.cpuUsedCores);
      maxMemMiB = Math.max(maxMemMiB, r.memUsedMiB);
    }
  }
  return count === 0 ? null : { maxCpuCores, meanCpuCores: cpuSum / count, maxMemMiB };
}

/** What all PS used together, per sample (replicas x per-replica use), over the samples that have PS; null when none has. */
function psTotalsOf(samples: readonly UsageSample[]): HistoryPsTotals | null {
  let count = 0;
  let cpuSum = 0;
  let maxCpuCores = 0;
  let maxMemMiB = 0;
  for (const sample of samples) {
    let cpu = 0;
    let mem = 0;
    let hasPs = false;
    for (const r of sample.roles) {
      if (r.role !== 'ps') continue;
      hasPs = true;
      cpu += r.replicas * r.cpuUsedCores;
      mem += r.replicas * r.memUsedMiB;
    }
    if (!hasPs) continue;
    count++;
    cpuSum += cpu;
    maxCpuCores = Math.max(maxCpuCores, cpu);
    maxMemMiB = Math.max(maxMemMiB, mem);
  }
  return count === 0 ? null : { meanCpuCores: cpuSum / count, maxCpuCores, maxMemMiB };
}
