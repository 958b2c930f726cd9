import type { Eviction } from '../../model/allocation.js';
import type { JobSpec } from '../../model/job-spec.js';
import type { Decision } from '../decision.js';
import type { ObservingContext } from '../types.js';

/**
 * Gives running jobs auxiliary data workers (attach/detach of CPU/memory-only tasks on idle
 * capacity of any node) and hears when the simulation takes them back. It runs last in each
 * instant it is consulted (see sim/policy-host.ts).
 */
export interface DataPolicy {
  readonly name: string;
  /** When set, the policy is consulted every this many seconds; otherwise after any change while jobs run. */
  readonly tickS?: number;
  data(context: ObservingContext): Decision[];
  /**
   * The roles a job is queued with (called once per job, before it is queued): a policy that moves
   * preprocessing off the training tasks asks for less CPU for them; null (or absent) keeps the job's own.
   */
  trainingRoles?(spec: JobSpec): JobSpec['roles'] | null;
  /** Told of auxiliary tasks the simulation took back (a training task needed their capacity, or their node went down); consulted again in the same instant. */
  onEvicted?(evictions: readonly Eviction[]): void;
}
