import type { PauseKind, PauseStep } from '../model/pause.js';
import type { JobRuntime } from './job-runtime.js';
import { InstantChanges } from './instant-changes.js';

/**
 * What a job is doing, as gantt.csv names it: queued; running at full size, running scaled down
 * after a recovery shrank it, or blocked saving a checkpoint; or paused, by the pause's step
 * (detecting a failure, also while hung or waiting for resubmission; rescheduling; health-check;
 * starting; loading a checkpoint; resizing).
 */
export type GanttState = 'queued' | 'running' | 'scaled-down' | 'checkpointing' | PauseKind;

/** Every Gantt state, in the order a legend lists them. */
export const GANTT_STATES: readonly GanttState[] = ['queued', 'running', 'scaled-down', 'checkpointing', 'starting', 'resizing', 'detecting', 'rescheduling', 'health-check', 'loading'];

/** One interval of a job in one state (a row of gantt.csv), simulated seconds. */
export interface GanttRow {
  readonly jobId: string;
  readonly state: GanttState;
  readonly fromS: number;
  readonly toS: number;
}

/** Most jobs gantt.csv follows. */
export const MAX_GANTT_JOBS = 200;

/** FNV-1a hash of a string's UTF-16 code units, as an unsigned 32-bit number. */
export function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Indices of at most `max` jobs chosen by a hash of their ids (the smallest hashes, ties by id),
 * in job order: the same jobs whatever the policy. Costs one hash per job.
 */
export function ganttSample(ids: readonly string[], max: number = MAX_GANTT_JOBS): number[] {
  if (ids.length <= max) return ids.map((_, i) => i);
  // Twice the share needed passes the threshold on average: almost always enough candidates.
  const threshold = Math.min(2 ** 32, (2 * max * 2 ** 32) / ids.length);
  let candidates: { index: number; hash: number }[] = [];
  for (let pass = 1; candidates.length < max; pass *= 2) {
    candidates = [];
    for (let i = 0; i < ids.length; i++) {
      const hash = idHash(ids[i]!);
      if (hash < threshold * pass) candidates.push({ index: i, hash });
    }
  }
  candidates.sort((a, b) => a.hash - b.hash || (ids[a.index]! < ids[b.index]! ? -1 : ids[a.index]! > ids[b.index]! ? 1 : a.index - b.index));
  return candidates
    .slice(0, max)
    .map((c) => c.index)
    .sort((a, b) => a - b);
}

/** A followed job and the state it has been in since `fromS`. */
interface Followed {
  readonly job: JobRuntime;
  readonly rows: GanttRow[];
  /** Its state since fromS; null while it is not in the cluster's hands (not arrived, or ended). */
  state: GanttState | 'paused' | null;
  fromS: number;
  /** While paused: the pause's steps and start. */
  pauseSteps: readonly PauseStep[];
  pauseStartS: number;
  /** True when it changed in this instant and waits to be looked at. */
  marked: boolean;
}

/**
 * Follows a hash-chosen sample of jobs (ganttSample) and records their state intervals: a job tells
 * the recorder when it changes (its watcher), and at the end of the instant the recorder looks at
 * the jobs that changed. O(1) per change of a followed job; nothing for the others.
 */
export class GanttRecorder {
  private readonly followed: Followed[] = [];
  private readonly changes = new InstantChanges<Followed>();

  constructor(jobs: readonly JobRuntime[], max: number = MAX_GANTT_JOBS) {
    for (const index of ganttSample(
      jobs.map((j) => j.spec.id),
      max,
    )) {
      const entry: Followed = { job: jobs[index]!, rows: [], state: null, fromS: 0, pauseSteps: [], pauseStartS: 0, marked: false };
      this.followed.push(entry);
      this.changes.follow(entry);
    }
  }

  /** Looks at the followed jobs that changed in the instant now ending, at `nowS`. */
  endOfInstant(nowS: number): void {
    this.changes.drain((entry) => this.look(entry, nowS));
  }

  /** Closes every open interval at the run's end `endS` and returns the rows, job by job in job order, each in time order. */
  finish(endS: number): GanttRow[] {
    this.endOfInstant(endS);
    for (const entry of this.followed) this.close(entry, endS);
    return this.followed.flatMap((entry) => entry.rows);
  }

  private look(entry: Followed, nowS: number): void {
    const job = entry.job;
    const state = stateOf(job);
    if (state === entry.state) {
      if (state !== 'paused' || (job.pauseSteps === entry.pauseSteps && job.pauseStartS === entry.pauseStartS)) return;
    }
    this.close(entry, nowS);
    entry.state = state;
    entry.fromS = nowS;
    if (state === 'paused') {
      entry.pauseSteps = job.pauseSteps;
      entry.pauseStartS = job.pauseStartS;
    }
  }

  /** Ends the entry's current interval at `toS` (a pause split into its steps). */
  private close(entry: Followed, toS: number): void {
    const { state, fromS } = entry;
    if (state === null || !(toS > fromS)) return;
    const id = entry.job.spec.id;
    if (state !== 'paused') {
      push(entry.rows, { jobId: id, state, fromS, toS });
      return;
    }
    let stepStartS = entry.pauseStartS;
    let last: PauseKind = 'resizing';
    for (const step of entry.pauseSteps) {
      const stepEndS = stepStartS + step.seconds;
      const from = Math.max(fromS, stepStartS);
      const to = Math.min(toS, stepEndS);
      if (to > from) push(entry.rows, { jobId: id, state: step.kind, fromS: from, toS: to });
      stepStartS = stepEndS;
      last = step.kind;
    }
    // A pause that outlasts its steps (it waits on something else) stays in its last step.
    const from = Math.max(fromS, stepStartS);
    if (toS > from) push(entry.rows, { jobId: id, state: last, fromS: from, toS });
  }
}

/** Appends a row, or lengthens the last one when it is the same state and they touch. */
function push(rows: GanttRow[], row: GanttRow): void {
  const last = rows[rows.length - 1];
  if (last !== undefined && last.state === row.state && last.toS === row.fromS) rows[rows.length - 1] = { ...last, toS: row.toS };
  else rows.push(row);
}

/** The job's Gantt state now ('paused': split by its pause steps when the interval closes). */
function stateOf(job: JobRuntime): GanttState | 'paused' | null {
  switch (job.phase) {
    case 'queued':
      return 'queued';
    case 'waiting':
      // Started before: it crashed and waits to be resubmitted (time jobs.csv counts as detecting).
      return job.firstStartS === null ? null : 'detecting';
    case 'running':
      if (job.paused) return 'paused';
      if (job.hung) return 'detecting';
      if (job.saving) return 'checkpointing';
      return job.shrunkByRecovery ? 'scaled-down' : 'running';
    case 'completed':
    case 'failed':
      return null;
  }
}
