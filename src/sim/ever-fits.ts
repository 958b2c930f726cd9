import { CapacityScratch, fitCountIn, type NodeFree } from '../model/capacity.js';
import { GPU_MILLI, type ClusterSpec, type NodeSpec } from '../model/cluster-spec.js';
import { ClusterState } from '../model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../model/job-spec.js';
import { nodeAllows } from '../policies/placement/node-filter.js';
import { identicalDemand } from '../policies/scheduling/gang-key.js';
import { placementRequestOf, type PlacementPolicy, type PlacementRequest } from '../policies/types.js';

/** Installed nodes of one hardware kind (GPU model, GPUs, CPU, memory) and how many there are. */
interface NodeClass {
  readonly node: NodeSpec;
  /** The node's free resources when empty. */
  readonly free: NodeFree;
  count: number;
}

/**
 * Whether a job would fit the whole installed cluster, empty and all up. A gang of identical
 * replicas under a placement complete for such gangs fits exactly when the nodes can hold that
 * many replicas between them, counted over the cluster's few hardware kinds (no placement, so a
 * million jobs of distinct shapes cost that count each); any other gang is placed into an empty copy
 * of the cluster once per shape.
 */
export class EverFits {
  private readonly classes: NodeClass[];
  private readonly byShape = new Map<string, boolean>();
  private emptyCluster: ClusterState | null = null;

  constructor(
    private readonly cluster: ClusterSpec,
    private readonly placement: PlacementPolicy,
  ) {
    const byKind = new Map<string, NodeClass>();
    for (const node of cluster.nodes) {
      const kind = `${node.gpuType ?? ''}|${node.gpus}|${node.cpuMilli}|${node.memMiB}`;
      const known = byKind.get(kind);
      if (known) known.count++;
      else byKind.set(kind, { node, free: { cpuMilli: node.cpuMilli, memMiB: node.memMiB, gpuFreeMilli: new Array<number>(node.gpus).fill(GPU_MILLI), wholeGpus: node.gpus }, count: 1 });
    }
    this.classes = [...byKind.values()];
  }

  /** True when `smallest` (the smallest gang the job would start with; null: the job at its requested size) fits the empty cluster. */
  fits(spec: JobSpec, smallest: PlacementRequest | null): boolean {
    // A job of one role at its requested size: its replicas are identical without being listed.
    if (smallest === null && this.placement.completeForIdentical === true && spec.roles.length === 1) {
      const role = spec.roles[0]!;
      return this.roomFor(role.demand, spec.gpuTypes) >= role.replicas;
    }
    const request = smallest ?? placementRequestOf(spec);
    const demand = identicalDemand(request);
    if (demand !== null && this.placement.completeForIdentical === true) return this.roomFor(demand, request.gpuTypes) >= request.replicas.length;
    const key = shapeKey(spec);
    let fits = this.byShape.get(key);
    if (fits === undefined) {
      this.emptyCluster ??= new ClusterState(this.cluster);
      fits = this.placement.place(new CapacityScratch(this.emptyCluster), request) !== null;
      this.byShape.set(key, fits);
    }
    return fits;
  }

  /** Replicas of `demand` the empty nodes hold between them (each node counted alone). */
  private roomFor(demand: ReplicaDemand, gpuTypes: readonly string[]): number {
    let room = 0;
    for (const { node, free, count } of this.classes) if (nodeAllows(node, demand, gpuTypes)) room += count * fitCountIn(free, demand);
    return room;
  }
}

/** What decides whether a job ever fits, as a string: its kind, allowed GPU models, roles and elastic bounds. */
function shapeKey(spec: JobSpec): string {
  let key = `${spec.kind}|${spec.gpuTypes.join(',')}|`;
  for (const { role, replicas, demand: d } of spec.roles) key += `${role}:${replicas}x${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB};`;
  const e = spec.elastic;
  return e === null ? key : `${key}|${e.minReplicas}-${e.maxReplicas}/${e.unit}`;
}
