/** The summary metrics a sweep tabulates (sweep.csv's columns after the parameters), as dotted summary paths. */
import { summaryValue } from '../report/compare.js';
import type { CellSummary } from './cell-store.js';

/** The metrics a sweep tabulates, in column order (units: seconds for *S, ratios in [0, 1], counts, GPU-hours). */
export const SWEEP_METRICS: readonly string[] = [
  'jobs.completed',
  'jobs.failed',
  'jobs.unfinished',
  'makespanS',
  'jctS.mean',
  'jctS.p50',
  'jctS.p90',
  'jctS.p99',
  'queueDelayS.mean',
  'queueDelayS.p90',
  'waitS.mean',
  'waitS.p90',
  'gpuAllocationRate',
  'gpuUtilization',
  'cpuAllocationRate',
  'ettr',
  'runtimeRatio',
  'faults.total',
  'restarts',
  'lostGpuHours',
  'downtimeGpuHours',
  'cpuStarvedWaitS.share',
];

/** The number at a dotted path of a summary; NaN when the path holds no number (a summary of another dlsim). */
export function metricValue(summary: CellSummary, metric: string): number {
  return summaryValue(summary, metric) ?? Number.NaN;
}
