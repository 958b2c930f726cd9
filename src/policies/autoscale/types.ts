import type { JobRequest, RoleSpec } from '../../model/job-spec.js';
import type { Decision } from '../decision.js';
import type { ObservingContext } from '../types.js';

/**
 * Resizes running jobs from what it observes: reshapes a role (more workers, a bigger PS) or
 * resizes the workers. It runs after scheduling and recovery's growth back in each instant it is
 * consulted (see sim/policy-host.ts).
 */
export interface AutoscalePolicy {
  readonly name: string;
  /** When set, the policy is consulted every this many seconds; otherwise after any change while jobs run. */
  readonly tickS?: number;
  autoscale(context: ObservingContext): Decision[];
  /**
   * Sizes a job as it is submitted, before it is queued (DLRover's create stage): the roles it is to
   * start with (within its spec's bounds), and why; null keeps what its submitter asked for.
   */
  createPlan?(request: JobRequest, nowS: number): CreatePlan | null;
  /**
   * False while it has no job to manage: a policy with a tick then gets none (it costs no event)
   * until a job arrives that it manages (asked after each arrival's `createPlan`). Absent: always active.
   */
  active?(): boolean;
}

/** The roles a job is to start with, as an auto-scaler's create stage sized them. */
export interface CreatePlan {
  readonly roles: readonly RoleSpec[];
  readonly reason: string;
}
