/**
 * One injected fault, as every injector (rate-based, trace replay) hands it to the simulation,
 * and the draw of a repair time from a catalog's repair distribution.
 */
import type { RandomStream } from '../engine/random.js';
import { assertNever } from '../errors.js';
import type { FaultType, RepairTime } from './catalog.js';

/** A fault that happens at one instant on one node (and, for GPU- and job-scope faults, one GPU). */
export interface FaultOccurrence {
  /** Simulated time of the fault, in seconds. */
  readonly timeS: number;
  /** What kind of fault it is (effect, scope, whether a node check finds it). */
  readonly type: FaultType;
  /** Index of the node it hits in ClusterSpec.nodes. */
  readonly nodeIndex: number;
  /** GPU on that node (0-based) for GPU-scope faults, and for job-scope faults the GPU whose process it hits; null otherwise. */
  readonly gpuIndex: number | null;
  /** Seconds until the fault is repaired (≥ 0); 0 when the type needs no repair. */
  readonly repairS: number;
}

/** Seconds a repair takes, drawn from `repair` on `stream` (no draw for "none" and "fixed"); always ≥ 0. */
export function repairSeconds(repair: RepairTime, stream: RandomStream): number {
  switch (repair.kind) {
    case 'none':
      return 0;
    case 'fixed':
      return Math.max(0, repair.seconds);
    case 'exponential':
      return repair.meanS > 0 ? stream.exponential(1 / repair.meanS) : 0;
    case 'lognormal':
      return repair.medianS > 0 ? stream.logNormal(repair.medianS, repair.sigma) : 0;
    default:
      return assertNever(repair);
  }
}
