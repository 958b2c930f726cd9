import { packPlacement } from './placement/pack.js';
import { createFifo } from './scheduling/fifo.js';
import type { PlacementPolicy, SchedulingPolicy } from './types.js';

/** Scheduling policies by id: one line each. */
export const schedulingPolicies: Readonly<Record<string, () => SchedulingPolicy>> = {
  fifo: createFifo,
};

/** Placement policies by id: one line each. */
export const placementPolicies: Readonly<Record<string, () => PlacementPolicy>> = {
  pack: () => packPlacement,
};

/** Recovery policies by id ("none": a failed job stays failed). */
export const recoveryPolicies: readonly string[] = ['none'];

/** Auto-scaling policies by id ("none": jobs keep their requested size). */
export const autoscalePolicies: readonly string[] = ['none'];
