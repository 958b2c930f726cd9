/** The capacity reason a gang that could not be placed waits for (see WaitReason). */
import type { CapacityScratch } from '../model/capacity.js';
import { GPU_MILLI, type NodeSpec } from '../model/cluster-spec.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { ReplicaDemand } from '../model/job-spec.js';
import { nodeAllows } from './placement/node-filter.js';
import { minFreeGpuMilli, minGpuRoom } from './placement/pack.js';
import type { PlacementPolicy, PlacementRequest, ReplicaRequest } from './types.js';
import type { CapacityReason } from './wait-reason.js';

/** Each demand's GPUs alone (no CPU, no memory), one object per demand so that placements group its replicas alike. */
const gpuOnlyOf = new WeakMap<ReplicaDemand, ReplicaDemand>();

function gpuOnly(demand: ReplicaDemand): ReplicaDemand {
  let only = gpuOnlyOf.get(demand);
  if (only === undefined) gpuOnlyOf.set(demand, (only = { gpus: demand.gpus, gpuMilli: demand.gpuMilli, cpuMilli: 0, memMiB: 0 }));
  return only;
}

/**
 * Why `request`, which did not fit `scratch`, waits: `no-gpus` when the free GPUs of its allowed
 * types fall short in total, `fragmented` when no node holds one of its replicas' GPUs, `gang`
 * when some but not all of its replicas' GPUs can be placed together, else `cpu-memory` (also for
 * a gang without GPU replicas). Leaves the scratch as it found it. Costs the nodes with free GPUs
 * it visits (it stops once it knows), plus one placement of the gang's GPUs for a gang of replicas
 * asking for different GPUs.
 */
export function diagnoseUnplaced(scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest): CapacityReason {
  let gpuReplicas = 0;
  let wholeGpus = 0;
  let shareMilli = 0;
  let example: ReplicaDemand | null = null;
  let identical = true;
  for (const { demand } of request.replicas) {
    if (demand.gpus === 0) continue;
    gpuReplicas++;
    example ??= demand;
    if (demand !== example && !sameGpus(demand, example)) identical = false;
    if (demand.gpuMilli >= GPU_MILLI) wholeGpus += demand.gpus;
    else shareMilli += demand.gpuMilli;
  }
  if (example === null) return 'cpu-memory';
  if (!scratch.indexed) return diagnoseByPlacement(scratch, placement, request, gpuReplicas);
  const groups = scratch.fitGroups(true, request.gpuTypes);
  // A group may hold models the request does not allow (an index not grouped by model): each node's model is checked.
  const gpuExample = example;
  const allows = (node: NodeSpec): boolean => nodeAllows(node, gpuExample, request.gpuTypes);
  const allowed = (i: number): boolean => allows(scratch.nodes[i]!);
  // Free GPUs of the allowed types, counted until they cover the need.
  if (request.gpuTypes.length === 0 && shareMilli === 0) {
    if (scratch.freeWholeGpusTotal < wholeGpus) return 'no-gpus';
  } else if (shareMilli === 0) {
    // Whole GPUs of the allowed models: read from the count of nodes by kind and free whole GPUs.
    if (scratch.wholeGpuReplicas(1, allows) < wholeGpus) return 'no-gpus';
  } else {
    const needMilli = wholeGpus * GPU_MILLI + shareMilli;
    let freeWhole = 0;
    let freeMilli = 0;
    let covered = false;
    // The most free GPU capacity first: a gang of many shares is covered after a few nodes, where
    // the fit index's order (least free first) would add up a cluster's worth of small remainders.
    for (const group of groups) {
      if (covered) break;
      scratch.walkDownEach(group, (gpuMilli, _cpuMilli, i) => {
        if (covered || gpuMilli <= 0) return true;
        if (!allowed(i)) return false;
        freeWhole += scratch.freeWholeGpus(i);
        // The walk's key is the node's free GPU capacity as the scratch sees it.
        freeMilli += gpuMilli;
        return (covered = freeWhole >= wholeGpus && freeMilli >= needMilli);
      });
    }
    if (!covered) return 'no-gpus';
  }
  // Nodes that hold a replica's GPUs, each counted alone (the first GPU replica's shape stands for
  // the others): whole GPUs read from the count of nodes by kind and free whole GPUs (a failed gang
  // would otherwise visit every node with one replica's GPUs free), GPU shares counted node by node.
  const only = gpuOnly(example);
  let slots = 0;
  if (only.gpuMilli >= GPU_MILLI) slots = scratch.wholeGpuReplicas(only.gpus, allows);
  else {
    scratch.forEachWithFree(
      groups,
      minFreeGpuMilli(only),
      0,
      (i) => {
        if (allowed(i)) slots += scratch.fitCount(i, only);
        return slots >= gpuReplicas;
      },
      minGpuRoom(only),
    );
  }
  if (slots === 0) return 'fragmented';
  // Replicas asking for the same GPUs fit together exactly when the nodes' counts add up to them
  // (each node takes as many as it holds): only a gang of mixed GPU shapes needs a placement.
  if (identical) return slots >= gpuReplicas ? 'cpu-memory' : 'gang';
  return diagnoseByPlacement(scratch, placement, request, gpuReplicas);
}

/** True when two demands ask for the same GPUs (count and share). */
function sameGpus(a: ReplicaDemand, b: ReplicaDemand): boolean {
  return a.gpus === b.gpus && a.gpuMilli === b.gpuMilli;
}

/** The gang's GPUs placed together (then taken back): `gang` when they do not fit, else `cpu-memory`. */
function diagnoseByPlacement(scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest, gpuReplicas: number): CapacityReason {
  const replicas: ReplicaRequest[] = [];
  for (const replica of request.replicas) if (replica.demand.gpus > 0) replicas.push({ role: replica.role, demand: gpuOnly(replica.demand) });
  const tasks = placement.place(scratch, { ...request, replicas });
  if (tasks === null) return scratch.indexed || gpuReplicas > 1 ? 'gang' : 'fragmented';
  scratch.unreserve(tasks);
  return 'cpu-memory';
}

/** A diagnosis kept by DiagnosisMemo: whose it is, of what request, and the cluster's marks when it was last known to hold. */
interface KeptDiagnosis {
  readonly owner: object;
  readonly request: PlacementRequest;
  readonly reason: CapacityReason;
  /** The first GPU replica's GPUs alone, for a `fragmented` one (null otherwise). */
  readonly only: ReplicaDemand | null;
  growthMark: number;
  readonly shrinkMark: number;
}

/**
 * The last diagnosis made on a scratch that saw the cluster as it is, given again without the
 * work while it still holds: a blocked head diagnosed at every pass is most often diagnosed on a
 * cluster that only grew since, by a few finished tasks that changed nothing for it. Given the
 * same owner and request object, a scratch that still sees the cluster as it is, and a cluster
 * that only grew since (shrinkCount unchanged): `cpu-memory` of a gang whose GPU replicas all ask
 * for the same GPUs holds (its free-GPU total and its nodes' room only grew, and it still did not
 * fit); `fragmented` holds until a node grown since holds one replica's GPUs (the nodes that did
 * not grow hold no more than they did). Other reasons are worked out again.
 */
export class DiagnosisMemo {
  private kept: KeptDiagnosis | null = null;

  /** The reason `request` (of `owner`), which did not fit `scratch`, waits, as diagnoseUnplaced gives it. */
  diagnose(cluster: ClusterView, scratch: CapacityScratch, placement: PlacementPolicy, request: PlacementRequest, owner: object): CapacityReason {
    const kept = this.kept;
    // Only a scratch that sees the cluster as it is gives or takes a kept diagnosis.
    const seesCluster = scratch.untouched && scratch.indexed;
    if (seesCluster && kept !== null && kept.owner === owner && kept.request === request && cluster.shrinkCount === kept.shrinkMark) {
      if (kept.only === null || !someGrownHolds(cluster, scratch, kept.growthMark, kept.only, request.gpuTypes)) {
        kept.growthMark = cluster.growthCount;
        return kept.reason;
      }
    }
    const reason = diagnoseUnplaced(scratch, placement, request);
    this.kept = seesCluster ? lasting(cluster, request, reason, owner) : null;
    return reason;
  }
}

/** The diagnosis to keep, when its reason lasts while the cluster only grows (see DiagnosisMemo); else null. */
function lasting(cluster: ClusterView, request: PlacementRequest, reason: CapacityReason, owner: object): KeptDiagnosis | null {
  if (reason !== 'cpu-memory' && reason !== 'fragmented') return null;
  let example: ReplicaDemand | null = null;
  for (const { demand } of request.replicas) {
    if (demand.gpus === 0) continue;
    example ??= demand;
    if (demand !== example && !sameGpus(demand, example)) return null;
  }
  const only = reason === 'fragmented' && example !== null ? gpuOnly(example) : null;
  if (reason === 'fragmented' && only === null) return null;
  return { owner, request, reason, only, growthMark: cluster.growthCount, shrinkMark: cluster.shrinkCount };
}

/** True when a schedulable node of an allowed GPU model grown after `mark` holds one replica of `only` now. */
function someGrownHolds(cluster: ClusterView, scratch: CapacityScratch, mark: number, only: ReplicaDemand, gpuTypes: readonly string[]): boolean {
  if (cluster.growthCount === mark) return false;
  const grown = cluster.grownNodesSince(mark);
  for (let k = 0; k < grown.length; k++) {
    const i = grown[k]!;
    if (nodeAllows(cluster.nodes[i]!, only, gpuTypes) && scratch.fitCount(i, only) > 0) return true;
  }
  return false;
}
