import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch, NodeFree } from '../../model/capacity.js';
import { GPU_MILLI, type NodeSpec } from '../../model/cluster-spec.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import { nodeAllows } from '../placement/node-filter.js';
import {
  placementRequestOf,
  type OracleJobView,
  type OracleSchedulingPolicy,
  type PlacementRequest,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';
import { oracleRemainingS } from './sjf.js';

/** A queued job Tetris has not placed yet in this pass. */
interface Pending {
  readonly jobId: string;
  /** Position in the queue (submission order), for ties. */
  readonly index: number;
  readonly request: PlacementRequest;
  /** Oracle remaining run time in seconds. */
  readonly remainingS: number;
}

/** One (task, machine) pair of a round. */
interface Candidate {
  readonly job: Pending;
  readonly nodeIndex: number;
  readonly alignment: number;
}

/**
 * Tetris's alignment of a replica with a node: the sum over GPU, CPU and memory of
 * demand x free, both as shares of the node's capacity (a node without GPUs has no GPU term).
 */
export function alignment(node: NodeSpec, free: Readonly<NodeFree>, demand: ReplicaDemand): number {
  let score = 0;
  if (node.gpus > 0) {
    let freeGpuMilli = 0;
    for (const milli of free.gpuFreeMilli) freeGpuMilli += milli;
    const capacityMilli = node.gpus * GPU_MILLI;
    score += ((demand.gpus * demand.gpuMilli) / capacityMilli) * (freeGpuMilli / capacityMilli);
  }
  score += (demand.cpuMilli / node.cpuMilli) * (free.cpuMilli / node.cpuMilli);
  score += (demand.memMiB / node.memMiB) * (free.memMiB / node.memMiB);
  return score;
}

/**
 * `tetris`: multi-resource packing with a shortest-remaining-work bias (REFERENCE §6), an oracle
 * baseline (remaining work = `oracleRemainingS`). Each round scores every (task, machine) pair that
 * fits as alignment - e x remainingS, where e makes the second term's mean over the round's pairs
 * equal the first's; the best pair (ties: earlier submission, then lower node index) is reserved
 * and the round repeats until nothing fits. A job with one replica is one task and Tetris picks its
 * machine itself. A gang (more than one replica, rigid or elastic at its requested size) is one task
 * too: the stack's placement policy decides where the gang would go, the gang is scored by its first
 * replica's alignment with the node that replica would start on, and if chosen the gang is placed by
 * the placement policy. Gang start, no preemption, no resizes.
 */
export function createTetris(): OracleSchedulingPolicy {
  return {
    name: 'tetris',
    oracle: true,
    schedule(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
      const scratch = context.scratch();
      let pending: Pending[] = context.queued.map((job, index) => ({
        jobId: job.request.id,
        index,
        request: placementRequestOf(job.request),
        remainingS: oracleRemainingS(job),
      }));
      const actions: SchedulingAction[] = [];
      for (;;) {
        const candidates = roundCandidates(scratch, context, pending);
        if (candidates.length === 0) break;
        // Jobs without a candidate cannot fit later in this pass either: capacity only shrinks.
        const fitting = new Set(candidates.map((c) => c.job));
        const best = bestCandidate(candidates);
        const tasks = placeChosen(scratch, context, best);
        pending = pending.filter((job) => job !== best.job && fitting.has(job));
        if (tasks !== null) actions.push({ kind: 'start', jobId: best.job.jobId, tasks });
      }
      return actions;
    },
  };
}

/** Every (task, machine) pair that fits now. */
function roundCandidates(scratch: CapacityScratch, context: SchedulingContext, pending: readonly Pending[]): Candidate[] {
  const candidates: Candidate[] = [];
  const frees = new Map<number, Readonly<NodeFree>>();
  const freeOf = (i: number): Readonly<NodeFree> => {
    let free = frees.get(i);
    if (!free) {
      free = scratch.free(i);
      frees.set(i, free);
    }
    return free;
  };
  for (const job of pending) {
    const { request } = job;
    const first = request.replicas[0];
    if (!first) continue;
    if (request.replicas.length === 1) {
      for (let i = 0; i < scratch.nodes.length; i++) {
        const node = scratch.nodes[i]!;
        if (!nodeAllows(node, first.demand, request.gpuTypes) || scratch.fitCount(i, first.demand) < 1) continue;
        candidates.push({ job, nodeIndex: i, alignment: alignment(node, freeOf(i), first.demand) });
      }
    } else {
      const trial = context.placement.place(scratch, request);
      if (trial === null) continue;
      scratch.unreserve(trial);
      const nodeIndex = trial[0]!.nodeIndex;
      candidates.push({ job, nodeIndex, alignment: alignment(scratch.nodes[nodeIndex]!, freeOf(nodeIndex), first.demand) });
    }
  }
  return candidates;
}

/** The pair with the highest alignment - e x remainingS, e scaling the second term's mean to the first's. */
function bestCandidate(candidates: readonly Candidate[]): Candidate {
  let alignmentSum = 0;
  let remainingSum = 0;
  for (const c of candidates) {
    alignmentSum += c.alignment;
    remainingSum += c.job.remainingS;
  }
  const e = remainingSum > 0 ? alignmentSum / remainingSum : 0;
  let best = candidates[0]!;
  let bestScore = -Infinity;
  // Candidates come in queue order, then node order, so keeping the first of equal scores breaks ties.
  for (const c of candidates) {
    const score = c.alignment - e * c.job.remainingS;
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/** Reserves the chosen pair: a single replica on its machine, a gang through the placement policy. */
function placeChosen(scratch: CapacityScratch, context: SchedulingContext, chosen: Candidate): TaskPlacement[] | null {
  const { request } = chosen.job;
  if (request.replicas.length > 1) return context.placement.place(scratch, request);
  const replica = request.replicas[0]!;
  const task = scratch.reserve(chosen.nodeIndex, replica.role, replica.demand);
  return task === null ? null : [task];
}
