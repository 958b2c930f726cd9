import type { NodeSpec } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';

/** True when a replica may run on the node's hardware: GPU replicas need GPUs of an allowed type. */
export function nodeAllows(node: NodeSpec, demand: ReplicaDemand, gpuTypes: readonly string[]): boolean {
  if (demand.gpus === 0) return true;
  if (node.gpus === 0 || node.gpuType === null) return false;
  return gpuTypes.length === 0 || gpuTypes.includes(node.gpuType);
}
