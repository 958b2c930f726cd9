import { trainingRolesOf } from './training-cpu.js';
import type { DataPolicy } from './types.js';

/** What `coupled` takes as options. */
export interface CoupledOptions {
  /**
   * CPU per GPU (thousandths) a training task is queued with at most; absent: what the job asked for.
   * With it, a job that asked for more starts with this much and runs starved instead of waiting for
   * a node with its CPU free.
   */
  readonly maxCpuMilliPerGpu?: number;
}

/**
 * `coupled`: no data workers. A job's input preprocessing runs on its training tasks' own CPUs, at
 * the CPU:GPU ratio it asked for: a job that asked for less than its input needs trains slower, and a
 * job whose CPU a node cannot give waits although GPUs are free (model/preprocessing.ts), unless
 * `maxCpuMilliPerGpu` lets it start with less.
 */
export function createCoupledData(options: CoupledOptions = {}): DataPolicy {
  const cap = options.maxCpuMilliPerGpu;
  if (cap === undefined) return { name: 'coupled', data: () => [] };
  return { name: 'coupled', data: () => [], trainingRoles: (spec) => trainingRolesOf(spec, cap) };
}
