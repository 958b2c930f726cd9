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
}
