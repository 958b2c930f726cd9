import { CapacityScratch, fitCountIn, type NodeFree } from '../model/capacity.js';
import { GPU_MILLI, type ClusterSpec, type NodeSpec } from '../model/cluster-spec.js';
import { ClusterState } from '../model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../model/job-spec.js';
import { ShapeIds } from '../model/shape-ids.js';
import { nodeAllows } from '../policies/placement/node-filter.js';
import { identicalDemand } from '../policies/scheduling/gang-key.js';
import { placementRequestOf, type PlacementPolicy, type PlacementRequest } from '../policies/types.js';

/** Installed nodes of one hardware kind (GPU model, GPUs, CPU, memory) and how many there are. */
interface NodeClass {
  readonly node: NodeSpec;
  /** The node's free resources when empty. */
  readonly free: NodeFree;
  readonly count: number;
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
  /** The numbers of the gangs seen. */
  private readonly gangs = new ShapeIds();
  /** Whether a gang that is not of identical replicas fits, by its number (and an elastic job's bounds). */
  private readonly byShape = new Map<number | string, boolean>();
  /** The installed cluster, empty and all up. */
  private readonly emptyCluster: ClusterState;

  constructor(
    cluster: ClusterSpec,
    private readonly placement: PlacementPolicy,
  ) {
    const empty = (this.emptyCluster = new ClusterState(cluster));
    // The cluster's hardware kinds; empty and up, every node of a kind has all its GPUs free.
    this.classes = Array.from({ length: empty.hardwareKinds }, (_, kind) => {
      const node = empty.nodeOfKind(kind);
      const free = { cpuMilli: node.cpuMilli, memMiB: node.memMiB, gpuFreeMilli: new Array<number>(node.gpus).fill(GPU_MILLI), wholeGpus: node.gpus };
      return { node, free, count: empty.schedulableNodesWithFreeGpus(kind, node.gpus) };
    });
  }

  /** True when `smallest` (the smallest gang the job would start with; null: the job at its requested size) fits the empty cluster. */
  fits(spec: JobSpec, smallest: PlacementRequest | null): boolean {
    // A job of one role at its requested size: its replicas are identical without being listed.
    if (smallest === null && this.placement.completeForIdentical === true && spec.roles.length === 1) {
      const role = spec.roles[0]!;
      return this.roomFor(role.demand, spec.gpuTypes) >= role.replicas;
    }
    // Gangs placed before are answered without making their request again.
    const key = shapeKey(spec, this.gangs.idOf(spec));
    const known = this.byShape.get(key);
    if (known !== undefined) return known;
    const request = smallest ?? placementRequestOf(spec);
    const demand = identicalDemand(request);
    if (demand !== null && this.placement.completeForIdentical === true) return this.roomFor(demand, request.gpuTypes) >= request.replicas.length;
    // Enough empty nodes that each take any one replica: the placement cannot run out of a node for the next.
    const surely = this.placement.failsOnlyWhenNoNodeTakesOne === true && this.nodesTakingAny(request) >= request.replicas.length;
    const fits = surely || this.placement.place(new CapacityScratch(this.emptyCluster), request) !== null;
    this.byShape.set(key, fits);
    return fits;
  }

  /** Installed nodes that, empty, each take one replica of any of the request's roles on their own. */
  private nodesTakingAny(request: PlacementRequest): number {
    let nodes = 0;
    for (const { node, free, count } of this.classes) {
      let takesAny = true;
      let checked: ReplicaDemand | null = null;
      for (const replica of request.replicas) {
        if (replica.demand === checked) continue;
        checked = replica.demand;
        if (!nodeAllows(node, checked, request.gpuTypes) || fitCountIn(free, checked) < 1) {
          takesAny = false;
          break;
        }
      }
      if (takesAny) nodes += count;
    }
    return nodes;
  }

  /** Replicas of `demand` the empty nodes hold between them (each node counted alone). */
  private roomFor(demand: ReplicaDemand, gpuTypes: readonly string[]): number {
    let room = 0;
    for (const { node, free, count } of this.classes) if (nodeAllows(node, demand, gpuTypes)) room += count * fitCountIn(free, demand);
    return room;
  }
}

/** What decides whether a job ever fits: its gang's number, with an elastic job's bounds written after it. */
function shapeKey(spec: JobSpec, gang: number): number | string {
  const e = spec.elastic;
  return e === null ? gang : `${gang}|${e.minReplicas}-${e.maxReplicas}/${e.unit}`;
}
