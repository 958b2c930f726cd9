import type { JobRuntime } from './job-runtime.js';
import { InstantChanges } from './instant-changes.js';

/** A job's shape and speed from `timeS` on (a row of autoscale.csv). */
export interface AutoscaleRow {
  readonly jobId: string;
  /** Simulated seconds. */
  readonly timeS: number;
  /** Worker replicas running (0 once it stopped running). */
  readonly workers: number;
  /** Parameter-server replicas running. */
  readonly ps: number;
  /** Training speed, steps per second (0 while paused, e.g. by a resize). */
  readonly stepsPerS: number;
}

/** Most auto-scaled jobs autoscale.csv follows: the first ones the auto-scaler made a plan for. */
export const MAX_AUTOSCALED_JOBS = 50;

interface Followed {
  readonly job: JobRuntime;
  workers: number;
  ps: number;
  stepsPerS: number;
  marked: boolean;
}

/**
 * Follows the jobs the auto-scaler makes plans for (the first MAX_AUTOSCALED_JOBS of them) and
 * records a row each time one's workers, parameter servers or speed change, looked at the end of
 * an instant in which the job changed. O(1) per change of a followed job.
 */
export class AutoscaleRecorder {
  private readonly followed = new Map<string, Followed>();
  private readonly changes = new InstantChanges<Followed>();
  private readonly rows: AutoscaleRow[] = [];

  constructor(private readonly max: number = MAX_AUTOSCALED_JOBS) {}

  /** The auto-scaler made a plan for `job` at `nowS`: follow it from now (if there is room). */
  onPlan(job: JobRuntime, nowS: number): void {
    if (this.followed.has(job.spec.id) || this.followed.size >= this.max) return;
    const entry: Followed = { job, workers: -1, ps: -1, stepsPerS: -1, marked: false };
    this.followed.set(job.spec.id, entry);
    this.look(entry, nowS);
    this.changes.follow(entry);
  }

  /** Looks at the followed jobs that changed in the instant now ending, at `nowS`. */
  endOfInstant(nowS: number): void {
    this.changes.drain((entry) => this.look(entry, nowS));
  }

  /** The rows so far, in time order. */
  finish(endS: number): AutoscaleRow[] {
    this.endOfInstant(endS);
    return this.rows;
  }

  private look(entry: Followed, nowS: number): void {
    const job = entry.job;
    const running = job.phase === 'running';
    const workers = running ? job.workers : 0;
    const ps = running ? job.ps : 0;
    const stepsPerS = running ? job.rateStepsPerS : 0;
    if (workers === entry.workers && ps === entry.ps && stepsPerS === entry.stepsPerS) return;
    entry.workers = workers;
    entry.ps = ps;
    entry.stepsPerS = stepsPerS;
    const last = this.rows[this.rows.length - 1];
    // Several looks in one instant keep the last.
    if (last !== undefined && last.jobId === job.spec.id && last.timeS === nowS) this.rows.pop();
    this.rows.push({ jobId: job.spec.id, timeS: nowS, workers, ps, stepsPerS });
  }
}
