/**
 * GPU fragmentation as the FGD paper measures it (Weng et al., "Beware of Fragmentation: Scheduling
 * GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC '23; its simulator,
 * hkust-adsl/kubernetes-scheduler-simulator, pkg/utils/frag.go `NodeGpuShareFragAmount` and
 * `GetNodePodFrag`, pkg/simulator/analysis.go `ClusterAnalysis`).
 *
 * A node's fragmentation measured by one pod shape is the part of its idle GPU capacity that a pod
 * of that shape cannot use: all of it when the pod cannot run on the node (too few GPUs with its
 * share left, too little CPU, a GPU type it does not accept, or no GPU asked for at all: a CPU-only
 * pod uses none), otherwise the idle capacity of the GPUs with less than the pod's share left. The
 * node's fragmentation is the expectation over the target workload (the shapes of the workload's
 * pods with their shares); the cluster's is the sum over nodes, reported in GPUs and as a share of
 * the idle GPU capacity. Memory is not part of the measure, as in FGD.
 *
 * The target workload is FGD's "typical pods": shapes counted per pod (CPU-only pods included, as
 * the simulator's experiment scripts set), most common first, taken until they cover `coverage` of
 * the pods, their shares renormalised. Ties keep the order shapes first appear in (FGD's order is
 * that of a Go map).
 */
import { GPU_MILLI } from '../model/cluster-spec.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { JobSpec } from '../model/job-spec.js';

/** One pod shape of the target workload and its share of the pods. */
export interface TargetShape {
  /** CPU per pod in thousandths of a core. */
  readonly cpuMilli: number;
  /** Whole GPUs per pod (0: a CPU-only pod). */
  readonly gpus: number;
  /** Share of each GPU in thousandths (0 for a CPU-only pod). */
  readonly gpuMilli: number;
  /** GPU models the pod accepts (empty: any). */
  readonly gpuTypes: readonly string[];
  /** Share of the target workload's pods with this shape (the shares sum to 1). */
  readonly share: number;
}

/** GPU fragmentation of a cluster, in GPUs (shared GPUs fractionally). */
export interface Fragmentation {
  /** Idle GPU capacity the target workload cannot use. */
  readonly fragmentedGpus: number;
  /** All idle GPU capacity. */
  readonly idleGpus: number;
}

/**
 * The target workload of `jobs`: every replica counted as one pod, shapes most common first, kept
 * until they cover `coverage` (0..1] of the pods, shares renormalised over the kept shapes.
 */
export function targetShapes(jobs: readonly JobSpec[], coverage: number): TargetShape[] {
  const counts = new Map<string, { shape: Omit<TargetShape, 'share'>; pods: number }>();
  let total = 0;
  for (const job of jobs) {
    const gpuTypes = [...job.gpuTypes].sort();
    for (const role of job.roles) {
      const { gpus, gpuMilli, cpuMilli } = role.demand;
      const shape = { cpuMilli, gpus, gpuMilli: gpus === 0 ? 0 : gpuMilli, gpuTypes };
      const key = JSON.stringify(shape);
      const entry = counts.get(key);
      if (entry) entry.pods += role.replicas;
      else counts.set(key, { shape, pods: role.replicas });
      total += role.replicas;
    }
  }
  // A stable sort: equal counts keep their first-seen order.
  const ordered = [...counts.values()].sort((a, b) => b.pods - a.pods);
  const wanted = coverage * total;
  const kept: { shape: Omit<TargetShape, 'share'>; pods: number }[] = [];
  let covered = 0;
  for (const entry of ordered) {
    if (covered >= wanted) break;
    kept.push(entry);
    covered += entry.pods;
  }
  return kept.map(({ shape, pods }) => ({ ...shape, share: pods / covered }));
}

/** Idle GPU capacity of a node, in thousandths. */
function idleGpuMilli(cluster: ClusterView, nodeIndex: number): number {
  let idle = 0;
  for (let g = 0; g < cluster.nodes[nodeIndex]!.gpus; g++) idle += cluster.gpuFreeMilli(nodeIndex, g);
  return idle;
}

/** The node's idle GPU capacity, in thousandths, that a pod of `shape` cannot use (see the header). */
export function nodeFragmentedMilli(cluster: ClusterView, nodeIndex: number, shape: Omit<TargetShape, 'share'>): number {
  const node = cluster.nodes[nodeIndex]!;
  const idle = idleGpuMilli(cluster, nodeIndex);
  if (idle === 0 || shape.gpus === 0) return idle;
  if (shape.gpuTypes.length > 0 && (node.gpuType === null || !shape.gpuTypes.includes(node.gpuType))) return idle;
  let usable = 0;
  let tooSmall = 0;
  for (let g = 0; g < node.gpus; g++) {
    const free = cluster.gpuFreeMilli(nodeIndex, g);
    if (free >= shape.gpuMilli) usable++;
    else tooSmall += free;
  }
  const runs = usable >= shape.gpus && cluster.freeCpuMilli(nodeIndex) >= shape.cpuMilli;
  return runs ? tooSmall : idle;
}

/** The cluster's GPU fragmentation measured by the target workload `shapes`. */
export function clusterFragmentation(cluster: ClusterView, shapes: readonly TargetShape[]): Fragmentation {
  let fragmentedMilli = 0;
  let idleMilli = 0;
  for (let i = 0; i < cluster.nodes.length; i++) {
    const idle = idleGpuMilli(cluster, i);
    if (idle === 0) continue;
    idleMilli += idle;
    for (const shape of shapes) fragmentedMilli += shape.share * nodeFragmentedMilli(cluster, i, shape);
  }
  return { fragmentedGpus: fragmentedMilli / GPU_MILLI, idleGpus: idleMilli / GPU_MILLI };
}
