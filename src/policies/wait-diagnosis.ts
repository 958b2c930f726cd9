/** The capacity reason a gang that could not be placed waits for (see WaitReason). */
import type { CapacityScratch } from '../model/capacity.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import type { ReplicaDemand } from '../model/job-spec.js';
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
  // Free GPUs of the allowed types, counted until they cover the need.
  if (request.gpuTypes.length === 0 && shareMilli === 0) {
    if (scratch.freeWholeGpusTotal < wholeGpus) return 'no-gpus';
  } else if (shareMilli === 0) {
    // Whole GPUs of the allowed models: only nodes with a whole GPU free count.
    let freeWhole = 0;
    scratch.forEachWithFree(groups, GPU_MILLI, 0, (i) => (freeWhole += scratch.freeWholeGpus(i)) >= wholeGpus, GPU_MILLI);
    if (freeWhole < wholeGpus) return 'no-gpus';
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
        freeWhole += scratch.freeWholeGpus(i);
        // The walk's key is the node's free GPU capacity as the scratch sees it.
        freeMilli += gpuMilli;
        return (covered = freeWhole >= wholeGpus && freeMilli >= needMilli);
      });
    }
    if (!covered) return 'no-gpus';
  }
  // Nodes that hold a replica's GPUs, each counted alone (the first GPU replica's shape stands for the others).
  const only = gpuOnly(example);
  let slots = 0;
  scratch.forEachWithFree(
    groups,
    minFreeGpuMilli(only),
    0,
    (i) => {
      slots += scratch.fitCount(i, only);
      return slots >= gpuReplicas;
    },
    minGpuRoom(only),
  );
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
