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

/** A (class, machine) pair that fits, and its alignment. */
interface NodeScore {
  readonly nodeIndex: number;
  readonly alignment: number;
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
    for (;;) {
      const fitting = new Map<TetrisClass, NodeScore[]>();
      for (const shape of live) {
        const scores = shape.gang ? gangScore(scratch, context.placement, shape) : singleScores(scratch, shape);
        if (scores.length > 0) fitting.set(shape, scores);
        else if (!shape.gang || (shape.identical && complete)) this.markDead(shape);
      }
      // Classes without a fitting pair cannot fit later in this pass either: capacity only shrinks.
      live = live.filter((shape) => fitting.has(shape));
      if (live.length === 0) break;
      pending = pending === null ? pendingInQueueOrder(live) : pending.filter((p) => fitting.has(p.shape));
      const best = bestPair(pending, fitting);
      const tasks = placeChosen(scratch, context.placement, best.pending, best.nodeIndex);
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

/** Every machine a single replica of the class fits now, in node order, with its alignment. */
function singleScores(scratch: CapacityScratch, shape: TetrisClass): NodeScore[] {
  const first = shape.first;
  if (first === null) return [];
  const { demand } = first;
  const { gpuTypes } = shape.request;
  const nodes: number[] = [];
  const consider = (i: number): void => {
    if (nodeAllows(scratch.nodes[i]!, demand, gpuTypes) && scratch.fitCount(i, demand) >= 1) nodes.push(i);
  };
  if (scratch.indexed) {
    scratch.forEachWithFree(scratch.fitGroups(demand.gpus > 0, gpuTypes), minFreeGpuMilli(demand), demand.cpuMilli, consider);
    nodes.sort((a, b) => a - b);
  } else {
    for (let i = 0; i < scratch.nodes.length; i++) consider(i);
  }
  return nodes.map((i) => ({ nodeIndex: i, alignment: alignment(scratch.nodes[i]!, scratch.free(i), demand) }));
}

/** A gang is one task: the machine its first replica would start on, as the placement policy would place it (nothing stays reserved). */
function gangScore(scratch: CapacityScratch, placement: PlacementPolicy, shape: TetrisClass): NodeScore[] {
  const trial = placement.place(scratch, shape.request);
  if (trial === null) return [];
  scratch.unreserve(trial);
  const nodeIndex = trial[0]!.nodeIndex;
  return [{ nodeIndex, alignment: alignment(scratch.nodes[nodeIndex]!, scratch.free(nodeIndex), shape.first!.demand) }];
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
function bestPair(pending: readonly Pending[], fitting: ReadonlyMap<TetrisClass, readonly NodeScore[]>): { pending: Pending; nodeIndex: number } {
  let alignmentSum = 0;
  let remainingSum = 0;
  for (const p of pending) {
    for (const score of fitting.get(p.shape)!) {
      alignmentSum += score.alignment;
      remainingSum += p.remainingS;
    }
  }
  const e = remainingSum > 0 ? alignmentSum / remainingSum : 0;
  let best = { pending: pending[0]!, nodeIndex: fitting.get(pending[0]!.shape)![0]!.nodeIndex };
  let bestScore = -Infinity;
  for (const p of pending) {
    const penalty = e * p.remainingS;
    for (const score of fitting.get(p.shape)!) {
      const value = score.alignment - penalty;
      if (value > bestScore) {
        best = { pending: p, nodeIndex: score.nodeIndex };
        bestScore = value;
      }
    }
  }
  return best;
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
