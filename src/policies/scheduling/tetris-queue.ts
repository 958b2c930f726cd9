import { BTree, compareNumberLists, type BTreeOf } from '../../model/btree.js';
import { SortedMap } from '../../model/sorted-map.js';
import { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import { placementRequestOf, type OracleJobView, type QueueChanges, type SchedulingAction, type SchedulingContext } from '../types.js';
import { compareSignatures, remainingMsOf, shapeSignature, type TetrisClass } from './tetris-class.js';
import { identicalDemand } from './gang-key.js';
import { TetrisRound } from './tetris-round.js';
import { fitsSomeGrown } from './grown-nodes.js';

/**
 * Tetris's queue, kept by request class from the queue's changes, and its passes over a bounded
 * candidate set (REFERENCE §6 and `createTetris`). A round scores each live class on its
 * candidates: a single replica on the `candidateMachines` machines it fits standing highest in each
 * GPU group it may use (most free GPU capacity, then free CPU, then the higher index: the fit index
 * read backwards), a gang on the machine its first replica lands on in a trial of the stack's
 * placement policy.
 *
 * The round's rule, which a plain reference implementation in the tests also follows:
 * - pairs: every queued job of a class with every candidate of its class;
 * - e = (sum of alignments over the pairs) / (sum of remaining seconds over the pairs), the sums
 *   taken class by class in signature order (a class adds its jobs x the sum of its candidates'
 *   alignments in node order, and its candidates x its jobs' remaining work in whole milliseconds,
 *   an exact integer sum);
 * - a class's pick is its job with the least remaining work (earlier in the queue on ties) on its
 *   best-aligned candidate (lower node index on ties), scoring alignment - e x remaining seconds;
 *   the round starts the best pick (earlier in the queue on ties);
 * - a gang is tried when it enters the pass and keeps its trial while the trial still fits (its
 *   alignment read again when a start uses one of its machines), and then starts as tried; once a
 *   start takes capacity the trial needs, the gang keeps the trial's last alignment and is placed
 *   anew when picked, leaving the pass if that fails; a gang whose trial fails is not tried again
 *   in the pass.
 *
 * Capacity only shrinks within a pass, so a start changes a single replica's candidates only when
 * it used one of them or the machine standing next after them in that group (a machine below only
 * falls further): only the classes watching the machine used are updated, from per-pass lists of
 * each group's machines in standing order. A class with no candidate cannot fit again while the
 * free capacity only shrinks (a single replica fits no machine; a gang of identical replicas under
 * a placement complete for them has no arrangement), so it is dead until a node it could use gains
 * capacity (the cluster logs every node whose free capacity grows); any other gang that failed is
 * retried at the next pass. A round costs the live classes plus the updates of the classes its
 * start touched, not the queue's jobs nor the cluster's machines.
 */
export class TetrisQueue {
  private readonly classes = new Map<string, TetrisClass>();
  private readonly placeOf = new Map<OracleJobView, { readonly shape: TetrisClass; readonly key: readonly number[] }>();
  /** Classes with jobs that are not dead, by signature. */
  private readonly live: BTreeOf<string, TetrisClass> = new BTree<string, TetrisClass>(undefined, compareSignatures);
  private readonly deadClasses = new Set<TetrisClass>();
  private seeded = false;
  /** The cluster's growth mark when dead classes were last revisited. */
  private growthMark = 0;

  /** @param candidateMachines how many machines of each GPU group a single replica is scored on per round (the bound) */
  constructor(private readonly candidateMachines: number) {}

  /** Jobs in the queue. */
  get size(): number {
    return this.placeOf.size;
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

  /** One Tetris pass: rounds of the best pick over the bounded candidates until nothing fits. */
  pass(context: SchedulingContext<OracleJobView>): SchedulingAction[] {
    if (!this.seeded) {
      // The first pass reads the whole queue (a policy made mid-run, or handed a queue directly); later ones only the changes.
      for (const job of context.queued) this.add(job);
      this.seeded = true;
    }
    this.sync(context.changes);
    this.reviveGrown(context.cluster);
    const actions: SchedulingAction[] = [];
    if (this.live.size === 0) return actions;
    const complete = context.placement.completeForIdentical === true;
    // A class without a candidate cannot fit later in this pass either (capacity only shrinks; a
    // failed gang is not tried again): a single replica or a gang of identical replicas under a
    // complete placement is dead until a node it could use grows.
    const round = new TetrisRound(context.scratch(), context.placement, this.candidateMachines, this.live.valuesArray(), (shape) => {
      if (!shape.gang || (shape.identical && complete)) this.markDead(shape);
    });
    for (let pick = round.pick(); pick !== null; pick = round.pick()) {
      const job = pick.shape.jobs.get(pick.shape.firstKey!)!;
      actions.push({ kind: 'start', jobId: job.request.id, tasks: pick.tasks, job });
      this.remove(job);
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
      const identical = replicas.length === 0 || identicalDemand(request) !== null;
      const jobs = new SortedMap<readonly number[], OracleJobView>(compareNumberLists);
      shape = { signature, request, first: head ?? null, gang: replicas.length > 1, identical, jobs, remainingMs: 0, firstKey: null, dead: false };
      this.classes.set(signature, shape);
      this.live.set(signature, shape);
    }
    const remainingMs = remainingMsOf(job);
    const key = [remainingMs, job.queuePosition];
    shape.jobs.set(key, job);
    shape.remainingMs += remainingMs;
    if (shape.firstKey === null || compareNumberLists(key, shape.firstKey) < 0) shape.firstKey = key;
    this.placeOf.set(job, { shape, key });
  }

  private remove(job: OracleJobView): void {
    const place = this.placeOf.get(job);
    if (!place) return;
    const { shape, key } = place;
    this.placeOf.delete(job);
    shape.jobs.delete(key);
    shape.remainingMs -= key[0]!;
    if (shape.firstKey === key) shape.firstKey = shape.jobs.minKey() ?? null;
    if (shape.jobs.size === 0) {
      this.deadClasses.delete(shape);
      this.live.delete(shape.signature);
      this.classes.delete(shape.signature);
    }
  }

  private markDead(shape: TetrisClass): void {
    shape.dead = true;
    this.deadClasses.add(shape);
    this.live.delete(shape.signature);
  }

  /** Dead classes come back when a node they could use gained capacity since they were last checked. */
  private reviveGrown(cluster: ClusterView): void {
    const mark = cluster.growthCount;
    if (mark === this.growthMark) return;
    const since = this.growthMark;
    this.growthMark = mark;
    if (this.deadClasses.size === 0) return;
    const grown = cluster.grownNodesSince(since);
    if (grown.length === 0) return;
    const scratch = new CapacityScratch(cluster);
    for (const shape of this.deadClasses) {
      if (!fitsSomeGrown(cluster, scratch, grown, shape.request.gpuTypes, shape.request.replicas)) continue;
      shape.dead = false;
      this.deadClasses.delete(shape);
      this.live.set(shape.signature, shape);
    }
  }
}
