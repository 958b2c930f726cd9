import { sameDemand, type ReplicaDemand } from '../../model/job-spec.js';
import type { PlacementRequest } from '../types.js';

/**
 * A gang of identical replicas as a string (kind, allowed GPU models, count and demand), or null
 * for a gang of mixed replicas: two gangs with the same key place alike, so under a placement
 * complete for identical replicas one that fails on some free capacity means the other fails too.
 */
export function identicalGangKey(request: PlacementRequest): string | null {
  const d = identicalDemand(request);
  if (d === null) return null;
  return `${request.jobKind ?? ''}|${request.gpuTypes.join(',')}|${request.replicas.length}x${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB}`;
}

/** The demand every replica of the gang shares, or null for a gang of mixed replicas (or no replicas). */
export function identicalDemand(request: PlacementRequest): ReplicaDemand | null {
  const first = request.replicas[0];
  if (first === undefined) return null;
  const d = first.demand;
  for (const { demand: r } of request.replicas) {
    if (!sameDemand(r, d)) return null;
  }
  return d;
}
