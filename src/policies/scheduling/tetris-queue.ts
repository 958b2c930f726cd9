import type { TaskPlacement } from '../../model/allocation.js';
import { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobRequest, ReplicaDemand, Role } from '../../model/job-spec.js';
import { minFreeGpuMilli } from '../placement/pack.js';
import { nodeAllows } from '../placement/node-filter.js';
import {
  placementRequestOf,
  type OracleJobView,
  type PlacementPolicy,
  type PlacementRequest,
  type QueueChanges,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';
import { oracleRemainingS } from './sjf.js';
import { alignment } from './tetris-alignment.js';

/** Queued jobs that ask for the same replicas (roles, demands, GPU models and kind): they score alike on every node. */
interface TetrisClass {
  readonly signature: string;
  /** The placement request of the class's first job (gang trials: jobs of a class place alike). */
  readonly request: PlacementRequest;
  /** The first replica's role and demand, or null for a job without replicas. */
  readonly first: { readonly role: Role; readonly demand: ReplicaDemand } | null;
  /** More than one replica: the placement policy places it. */
  readonly gang: boolean;
  /** All replicas ask for the same resources. */
  readonly identical: boolean;
  /** Its jobs, with their oracle remaining seconds (fixed while a job waits). */
  readonly jobs: Map<OracleJobView, number>;
  /** No candidate on the free capacity it last saw, which has only shrunk since. */
  dead: boolean;
}

/** A queued job in a pass, with its class and remaining seconds. */
interface Pending {
  readonly job: OracleJobView;
  readonly shape: TetrisClass;
  readonly remainingS: number;
}

/**
 * Tetris's queue, kept up to date from the queue's changes, so that a pass scores only the pairs
 * that fit (REFERENCE §6). A round scores every (queued job, machine) pair that fits; a pair that
 * does not fit adds nothing to the round's sums nor to its choice, so a round that looks only at the
 * fitting pairs, in the same order (queue order, then node order), picks the same pair with the
 * same floating-point sums. Jobs asking for the same replicas form a class: they fit the same
 * machines with the same alignment. A class with no fitting pair cannot fit again while the free
 * capacity only shrinks (a single replica fits no node; a gang of identical replicas under a
 * placement complete for them has no arrangement), so it is dead until a node it could use gains
 * capacity (the cluster logs every node whose free capacity grows); any other gang that failed is
 * retried at the next pass. Machines that fit a single replica are read from the fit index, not
 * scanned. A pass costs the fitting pairs of its rounds and the classes it tries.
 */
export class TetrisQueue {
  private readonly classes = new Map<string, TetrisClass>();
  private readonly classOf = new Map<OracleJobView, TetrisClass>();
  private readonly deadClasses = new Set<TetrisClass>();
  private seeded = false;
  /** The cluster's growth mark when dead classes were last revisited. */
  private growthMark = 0;

  /** Jobs in the queue. */
  get size(): number {
    return this.classOf.size;
  }

  /** Takes in what changed in the queue: jobs now queued join their class, others leave. */
  sync(changes: QueueChanges<OracleJobView>): void {
    for (const list of [changes.queued, changes.started, changes.stopped, changes.resized]) {
      for (const job of list) {
        this.remove(job);
        if (job.phase === 'queued') this.add(job);
      }
    }
  }

  /** One Tetris pass: rounds of the best fitting pair until nothing fits. */
  pass(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
    if (!this.seeded) {
      // The first pass reads the whole queue (a policy made mid-run, or handed a queue directly); later ones only the changes.
      for (const job of context.queued) this.add(job);
      this.seeded = true;
    }
    this.sync(context.changes);
    this.reviveGrown(context.cluster);
    const actions: SchedulingAction[] = [];
    let live = [...this.classes.values()].filter((shape) => !shape.dead);
    if (live.length === 0) return actions;
    const scratch = context.scratch();
    const complete = context.placement.completeForIdentical === true;
    let pending: Pending[] | null = null;
    // Each single-replica class's fitting machines, kept through the pass: a start changes only the machines it used.
    const kept = new Map<TetrisClass, Scores>();
    let touched: readonly number[] = [];
    for (;;) {
      const fitting = new Map<TetrisClass, Scores>();
      for (const shape of live) {
        let scores: Scores;
        if (shape.gang) scores = gangScores(scratch, context.placement, shape);
        else {
          const before = kept.get(shape);
          scores = before === undefined ? singleScores(scratch, shape) : rescore(scratch, shape, before, touched);
          kept.set(shape, scores);
        }
        if (scores.nodes.length > 0) fitting.set(shape, scores);
        else if (!shape.gang || (shape.identical && complete)) this.markDead(shape);
      }
      // Classes without a fitting pair cannot fit later in this pass either: capacity only shrinks.
      live = live.filter((shape) => fitting.has(shape));
      if (live.length === 0) break;
      pending = pending === null ? pendingInQueueOrder(live) : pending.filter((p) => fitting.has(p.shape));
      const best = bestPair(pending, fitting);
      const tasks = placeChosen(scratch, context.placement, best.pending, best.nodeIndex);
      touched = tasks === null ? [] : [...new Set(tasks.map((task) => task.nodeIndex))];
      pending = pending.filter((p) => p !== best.pending);
      this.remove(best.pending.job);
      if (best.pending.shape.jobs.size === 0) live = live.filter((shape) => shape !== best.pending.shape);
      if (tasks !== null) actions.push({ kind: 'start', jobId: best.pending.job.request.id, tasks });
    }
    return actions;
  }

  private add(job: OracleJobView): void {
    const signature = shapeSignature(job.request);
    let shape = this.classes.get(signature);
    if (!shape) {
      const request = placementRequestOf(job.request);
      const replicas = request.replicas;
      const head = replicas[0];
      const identical = replicas.every((r) => sameDemand(r.demand, head!.demand));
      shape = { signature, request, first: head ?? null, gang: replicas.length > 1, identical, jobs: new Map(), dead: false };
      this.classes.set(signature, shape);
    }
    shape.jobs.set(job, oracleRemainingS(job));
    this.classOf.set(job, shape);
  }

  private remove(job: OracleJobView): void {
    const shape = this.classOf.get(job);
    if (!shape) return;
    this.classOf.delete(job);
    shape.jobs.delete(job);
    if (shape.jobs.size === 0) {
      this.deadClasses.delete(shape);
      this.classes.delete(shape.signature);
    }
  }

  private markDead(shape: TetrisClass): void {
    shape.dead = true;
    this.deadClasses.add(shape);
  }

  /** Dead classes come back when a node they could use gained capacity since they were last checked. */
  private reviveGrown(cluster: ClusterView): void {
    const mark = cluster.growthCount;
    if (mark === this.growthMark) return;
    const grown = [...new Set(cluster.grownNodesSince(this.growthMark))].filter((i) => cluster.schedulable(i));
    this.growthMark = mark;
    if (grown.length === 0 || this.deadClasses.size === 0) return;
    const scratch = new CapacityScratch(cluster);
    for (const shape of this.deadClasses) {
      const { gpuTypes, replicas } = shape.request;
      const fitsSomewhere = replicas.some((replica) => grown.some((i) => nodeAllows(cluster.nodes[i]!, replica.demand, gpuTypes) && scratch.fitCount(i, replica.demand) > 0));
      if (!fitsSomewhere) continue;
      shape.dead = false;
      this.deadClasses.delete(shape);
    }
  }
}

/** The machines a class fits, in node order, and its alignment with each. */
interface Scores {
  readonly nodes: number[];
  readonly alignments: number[];
}

/** True when one replica of the class fits the machine now. */
function singleFits(scratch: CapacityScratch, shape: TetrisClass, nodeIndex: number): boolean {
  const { demand } = shape.first!;
  return nodeAllows(scratch.nodes[nodeIndex]!, demand, shape.request.gpuTypes) && scratch.fitCount(nodeIndex, demand) >= 1;
}

/** Every machine a single replica of the class fits now, in node order, with its alignment. */
function singleScores(scratch: CapacityScratch, shape: TetrisClass): Scores {
  const scores: Scores = { nodes: [], alignments: [] };
  const first = shape.first;
  if (first === null) return scores;
  const { demand } = first;
  const consider = (i: number): void => {
    if (singleFits(scratch, shape, i)) scores.nodes.push(i);
  };
  if (scratch.indexed) {
    scratch.forEachWithFree(scratch.fitGroups(demand.gpus > 0, shape.request.gpuTypes), minFreeGpuMilli(demand), demand.cpuMilli, consider);
    scores.nodes.sort((a, b) => a - b);
  } else {
    for (let i = 0; i < scratch.nodes.length; i++) consider(i);
  }
  for (const i of scores.nodes) scores.alignments.push(alignment(scratch.nodes[i]!, scratch.free(i), demand));
  return scores;
}

/**
 * The class's scores after a start that used the `touched` machines (capacity only shrank, so a
 * machine can only leave the list or change its alignment; the others keep theirs).
 */
function rescore(scratch: CapacityScratch, shape: TetrisClass, scores: Scores, touched: readonly number[]): Scores {
  const { demand } = shape.first!;
  for (const nodeIndex of touched) {
    const at = indexOf(scores.nodes, nodeIndex);
    if (at < 0) continue;
    if (singleFits(scratch, shape, nodeIndex)) scores.alignments[at] = alignment(scratch.nodes[nodeIndex]!, scratch.free(nodeIndex), demand);
    else {
      scores.nodes.splice(at, 1);
      scores.alignments.splice(at, 1);
    }
  }
  return scores;
}

/** Position of `value` in an ascending list, or -1. */
function indexOf(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A gang is one task: the machine its first replica would start on, as the placement policy would place it (nothing stays reserved). */
function gangScores(scratch: CapacityScratch, placement: PlacementPolicy, shape: TetrisClass): Scores {
  const trial = placement.place(scratch, shape.request);
  if (trial === null) return { nodes: [], alignments: [] };
  scratch.unreserve(trial);
  const nodeIndex = trial[0]!.nodeIndex;
  return { nodes: [nodeIndex], alignments: [alignment(scratch.nodes[nodeIndex]!, scratch.free(nodeIndex), shape.first!.demand)] };
}

/** The jobs of the classes, in queue order. */
function pendingInQueueOrder(shapes: readonly TetrisClass[]): Pending[] {
  const pending: Pending[] = [];
  for (const shape of shapes) for (const [job, remainingS] of shape.jobs) pending.push({ job, shape, remainingS });
  return pending.sort((a, b) => a.job.queuePosition - b.job.queuePosition);
}

/**
 * The pair with the highest alignment - e x remainingS, e scaling the second term's mean over the
 * round's pairs to the first's; the sums and the ties (earlier in the queue, then lower node index)
 * run over the pairs in queue order, then node order.
 */
function bestPair(pending: readonly Pending[], fitting: ReadonlyMap<TetrisClass, Scores>): { pending: Pending; nodeIndex: number } {
  let alignmentSum = 0;
  let remainingSum = 0;
  for (const p of pending) {
    const alignments = fitting.get(p.shape)!.alignments;
    const remainingS = p.remainingS;
    for (let k = 0; k < alignments.length; k++) {
      alignmentSum += alignments[k]!;
      remainingSum += remainingS;
    }
  }
  const e = remainingSum > 0 ? alignmentSum / remainingSum : 0;
  let best = pending[0]!;
  let bestAt = 0;
  let bestScore = -Infinity;
  for (const p of pending) {
    const alignments = fitting.get(p.shape)!.alignments;
    const penalty = e * p.remainingS;
    for (let k = 0; k < alignments.length; k++) {
      const value = alignments[k]! - penalty;
      if (value > bestScore) {
        best = p;
        bestAt = k;
        bestScore = value;
      }
    }
  }
  return { pending: best, nodeIndex: fitting.get(best.shape)!.nodes[bestAt]! };
}

/** Reserves the chosen pair: a single replica on its machine, a gang through the placement policy. */
function placeChosen(scratch: CapacityScratch, placement: PlacementPolicy, chosen: Pending, nodeIndex: number): TaskPlacement[] | null {
  const { request } = chosen.job;
  if (chosen.shape.gang) return placement.place(scratch, placementRequestOf(request));
  const replica = chosen.shape.first!;
  const task = scratch.reserve(nodeIndex, replica.role, replica.demand);
  return task === null ? null : [task];
}

function sameDemand(a: ReplicaDemand, b: ReplicaDemand): boolean {
  return a.gpus === b.gpus && a.gpuMilli === b.gpuMilli && a.cpuMilli === b.cpuMilli && a.memMiB === b.memMiB;
}

/** What a job asks for, as a string: jobs with the same one score and place alike. */
function shapeSignature(request: JobRequest): string {
  let signature = `${request.kind}|${request.gpuTypes.join(',')}`;
  for (const role of request.roles) {
    const d = role.demand;
    signature += `|${role.role}x${role.replicas}:${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB}`;
  }
  return signature;
}
