import type { Eviction } from '../../model/allocation.js';
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
  /** Told of auxiliary tasks the simulation took back (a training task needed their capacity, or their node went down); consulted again in the same instant. */
  onEvicted?(evictions: readonly Eviction[]): void;
}
