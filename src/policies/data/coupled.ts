import type { DataPolicy } from './types.js';

/**
 * `coupled`: no data workers. A job's input preprocessing runs on its training tasks' own CPUs, at
 * the CPU:GPU ratio it asked for: a job that asked for less than its input needs trains slower, and a
 * job whose CPU a node cannot give waits although GPUs are free (model/preprocessing.ts).
 */
export function createCoupledData(): DataPolicy {
  return { name: 'coupled', data: () => [] };
}
