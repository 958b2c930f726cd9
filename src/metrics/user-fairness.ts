/**
 * Per-user job completion times and Jain's fairness index over users' slowdowns.
 *
 * A completed job's slowdown is its JCT (end − submit) divided by its run time alone: the seconds it
 * would take from submission on an otherwise empty cluster at the size it asked for, with no faults
 * and its input keeping up (its start-up time, when it has one, plus its steps at its nominal step
 * time; for a replayed trace job its recorded run time). A user's slowdown is the mean over the
 * user's completed jobs. Jain's index over n users' slowdowns x is (Σx)² / (n Σx²): 1 when every
 * user is slowed down alike, down to 1/n when one user bears all of it.
 */
import type { JobRecord } from './job-record.js';

/** Users listed by name in a summary at most; the rest are summed up as "other". */
export const MAX_LISTED_USERS = 50;

/** One user's (or the unlisted users') jobs and completed jobs' times. */
export interface UserJobs {
  /** User name ("" for jobs without one). */
  readonly user: string;
  /** Jobs submitted. */
  readonly jobs: number;
  readonly completed: number;
  /** Mean JCT of completed jobs, seconds (0 without any). */
  readonly jctMeanS: number;
  /** Mean slowdown of completed jobs (0 without any). */
  readonly slowdownMean: number;
}

/** The unlisted users together. */
export interface OtherUsersJobs extends Omit<UserJobs, 'user'> {
  /** How many users this row sums up. */
  readonly users: number;
}

/** Per-user times: the users with the most jobs by name, the rest together (null when none is left out). */
export interface PerUserSummary {
  /** Up to MAX_LISTED_USERS users, most jobs first (ties by name). */
  readonly top: readonly UserJobs[];
  readonly other: OtherUsersJobs | null;
}

/** Fairness between users, over users with at least one completed job. */
export interface FairnessSummary {
  /** Users with at least one completed job. */
  readonly users: number;
  /** Jain's index over those users' mean slowdowns; 1 with one user or none. */
  readonly jainSlowdown: number;
  /** Mean over completed jobs of their slowdown (0 without any). */
  readonly slowdownMean: number;
}

/** Jain's fairness index (Σx)² / (n Σx²) of non-negative values; 1 for an empty list or all zeros. */
export function jainIndex(values: readonly number[]): number {
  let sum = 0;
  let squares = 0;
  for (const v of values) {
    sum += v;
    squares += v * v;
  }
  return squares > 0 ? (sum * sum) / (values.length * squares) : 1;
}

/** A completed job's JCT divided by its run time alone (1 when that time is 0). */
export function slowdownOf(job: JobRecord): number {
  const jctS = job.endS! - job.spec.submitS;
  const aloneS = job.runAloneS();
  return aloneS > 0 ? jctS / aloneS : 1;
}

/** Running totals of one user. */
interface Tally {
  jobs: number;
  completed: number;
  jctSumS: number;
  slowdownSum: number;
}

/** Per-user times and fairness of a run's jobs; `round` rounds the reported figures. */
export function userFairness(jobs: readonly JobRecord[], roundS: (v: number) => number, roundRatio: (v: number) => number): { fairness: FairnessSummary; perUser: PerUserSummary } {
  const tallies = new UserTallies();
  // Indexed: this runs once a run, too seldom for its loop to be compiled, and a million jobs read
  // through an iterator make as many result objects.
  for (let k = 0; k < jobs.length; k++) tallies.add(jobs[k]!);
  return tallies.result(roundS, roundRatio);
}

/** Per-user running totals, told of a run's jobs one at a time (in the run's order: the sums add them in that order). */
export class UserTallies {
  private readonly tallies = new Map<string, Tally>();
  private slowdownSum = 0;
  private completedJobs = 0;

  /** Counts the job for its user (its times too when it completed). */
  add(job: JobRecord): void {
    let tally = this.tallies.get(job.spec.user);
    if (tally === undefined) this.tallies.set(job.spec.user, (tally = { jobs: 0, completed: 0, jctSumS: 0, slowdownSum: 0 }));
    tally.jobs++;
    if (job.phase !== 'completed') return;
    const slowdown = slowdownOf(job);
    tally.completed++;
    tally.jctSumS += job.endS! - job.spec.submitS;
    tally.slowdownSum += slowdown;
    this.slowdownSum += slowdown;
    this.completedJobs++;
  }

  /** The fairness and per-user figures of the jobs added; `round` rounds the reported figures. */
  result(roundS: (v: number) => number, roundRatio: (v: number) => number): { fairness: FairnessSummary; perUser: PerUserSummary } {
    const { tallies, slowdownSum, completedJobs } = this;
    const userSlowdowns: number[] = [];
    for (const tally of tallies.values()) if (tally.completed > 0) userSlowdowns.push(tally.slowdownSum / tally.completed);
    const ranked = [...tallies].sort(([a, x], [b, y]) => y.jobs - x.jobs || (a < b ? -1 : a > b ? 1 : 0));
    const row = (t: Tally): Omit<UserJobs, 'user'> => ({
      jobs: t.jobs,
      completed: t.completed,
      jctMeanS: roundS(t.completed > 0 ? t.jctSumS / t.completed : 0),
      slowdownMean: roundRatio(t.completed > 0 ? t.slowdownSum / t.completed : 0),
    });
    const rest = ranked.slice(MAX_LISTED_USERS);
    const restTally: Tally = { jobs: 0, completed: 0, jctSumS: 0, slowdownSum: 0 };
    for (const [, t] of rest) {
      restTally.jobs += t.jobs;
      restTally.completed += t.completed;
      restTally.jctSumS += t.jctSumS;
      restTally.slowdownSum += t.slowdownSum;
    }
    return {
      fairness: {
        users: userSlowdowns.length,
        jainSlowdown: roundRatio(jainIndex(userSlowdowns)),
        slowdownMean: roundRatio(completedJobs > 0 ? slowdownSum / completedJobs : 0),
      },
      perUser: {
        top: ranked.slice(0, MAX_LISTED_USERS).map(([user, t]) => ({ user, ...row(t) })),
        other: rest.length === 0 ? null : { users: rest.length, ...row(restTally) },
      },
    };
  }
}
