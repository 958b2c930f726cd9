import { SortedMap } from '../../model/sorted-map.js';
import { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobRequest } from '../../model/job-spec.js';
import { ShapeIds } from '../../model/shape-ids.js';
import type { JobView } from '../types.js';
import { compareDue, compareLasKeys, DUE_SLACK_S, type LasKey } from './las-order.js';
import { EMPTY_CLASSES_KEPT, EmptiedClasses } from './emptied-classes.js';
import { identicalReplicas } from './shape-queue.js';
import { fitsSomeGrown } from './grown-nodes.js';
import { ByArrival } from './by-arrival.js';

/** Waiting jobs of one queue that ask for the same gang, by arrival. */
interface LasClass {
  readonly queue: number;
  /** The gang's number (see ShapeIds). */
  readonly gang: number;
  readonly jobs: SortedMap<LasKey, JobView>;
  readonly identical: boolean;
  readonly example: JobRequest;
  /** Its next job's key while it is in the walk, else null. */
  walkKey: LasKey | null;
  /** Its gang cannot be placed on the free capacity it last saw, which has only shrunk since. */
  dead: boolean;
}

/** A waiting job as the index knows it. */
interface WaitingLas {
  readonly view: JobView;
  readonly key: LasKey;
  readonly shape: LasClass;
  /** Key in the starvation index (the derived time it may be promoted), or null. */
  readonly dueKey: readonly [number, number] | null;
}

/** Where a job stands: its queue and, when it may be promoted later, the derived time it may be. */
export interface LasStanding {
  readonly queue: number;
  readonly promoteDueS: number | null;
}

/**
 * What became of a job tried in a pass; 'blocked': it failed, and every job of its class would fail
 * likewise until a job is preempted in this pass (the free capacity only shrinks until then).
 */
export type LasOutcome = 'started' | 'started-after-preempting' | 'failed' | 'blocked';

/**
 * Tiresias's waiting jobs by queue and arrival, kept from the queue's changes. Jobs of one queue
 * asking for the same gang form a class; a pass walks the classes in the order of their next
 * jobs, which is the order of the queue, so it tries jobs exactly where a walk over every waiting
 * job would change something:
 * - a job that fails (to fit, or to fit by preempting) fails again on the same free capacity and
 *   the same candidates for preemption, so its class sleeps until the pass starts a job, then
 *   resumes at its first job after that point; a blocked one (see {@link LasOutcome}) sleeps until
 *   the pass preempts a job;
 * - a gang of identical replicas that failed to fit cannot fit while the free capacity only shrinks
 *   (a placement complete for identical replicas fails only when no arrangement exists): its class
 *   is dead and is tried no more, until a node it could use gains capacity (the cluster logs every
 *   node whose free capacity grows) or a preemption frees capacity; while running jobs of lower
 *   queues could make room for it, it is still walked, to try preempting them (from the start of
 *   a pass only when they hold enough for it: see `walk`).
 * Waiting jobs attain no service, so a job's queue and the time it may be promoted are fixed while
 * it waits: promotions are checked only for jobs whose derived time has come.
 */
export class LasWaiting {
  /** The numbers of the gangs its jobs ask for. */
  private readonly gangs = new ShapeIds();
  /** Per queue: its classes by gang (those with jobs, and some emptied: see `emptied`). */
  private readonly classes: Map<number, LasClass>[] = [];
  /** Classes without jobs kept for their gang's next job in their queue (at most EMPTY_CLASSES_KEPT). */
  private readonly emptied = new EmptiedClasses<LasClass>(EMPTY_CLASSES_KEPT, (shape) => {
    const classes = this.classes[shape.queue]!;
    if (shape.jobs.size === 0 && classes.get(shape.gang) === shape) classes.delete(shape.gang);
  });
  /** Each waiting job's entry. */
  private readonly entries = new ByArrival<WaitingLas>();
  private readonly walkOrder: SortedMap<LasKey, LasClass> = new SortedMap<LasKey, LasClass>(compareLasKeys);
  private readonly promotions: SortedMap<readonly [number, number], WaitingLas> = new SortedMap<readonly [number, number], WaitingLas>(compareDue);
  private readonly deadClasses = new Set<LasClass>();
  private sequence = 0;
  /** The cluster's growth mark when dead classes were last revisited. */
  private growthMark = 0;

  /** @param standingOf a waiting job's queue and the time it may be promoted */
  constructor(private readonly standingOf: (view: JobView) => LasStanding) {}

  /** Waiting jobs indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** Takes a job in as it waits now (its standing read afresh), or out when it no longer waits. */
  update(view: JobView): void {
    this.remove(view);
    if (view.phase === 'queued') this.add(view);
  }

  /**
   * Calls `promote` for each job whose derived promotion time has come and that `starved` says
   * starves, then re-reads its standing; returns true when it promoted any.
   */
  promoteDue(nowS: number, starved: (view: JobView) => boolean, promote: (view: JobView) => void): boolean {
    const due: WaitingLas[] = [];
    const reused = [] as unknown as [readonly [number, number], WaitingLas];
    for (let pair = this.promotions.nextHigherPair(undefined, reused); pair !== undefined && pair[0][0] <= nowS + DUE_SLACK_S; pair = this.promotions.nextHigherPair(pair[0], reused)) {
      due.push(pair[1]);
    }
    let promoted = false;
    for (const entry of due) {
      if (!starved(entry.view)) continue;
      promote(entry.view);
      this.update(entry.view);
      promoted = true;
    }
    return promoted;
  }

  /**
   * One pass: tries jobs in queue order through `tryJob` (told the job's queue and whether its placement is known to fail),
   * skipping jobs that would fail as said above. `canPreempt(queue)` tells whether running jobs of
   * lower queues than `queue` could still be preempted; `mayPreemptFor(queue, request)` whether a
   * job of `queue` asking for `request` might start by preempting them as the pass begins (false
   * only when it would be blocked); `complete` is the placement's `completeForIdentical`.
   */
  walk(
    cluster: ClusterView,
    complete: boolean,
    canPreempt: (queue: number) => boolean,
    mayPreemptFor: (queue: number, request: JobRequest) => boolean,
    tryJob: (view: JobView, queue: number, placementFails: boolean) => LasOutcome,
  ): void {
    this.reviveGrown(cluster);
    for (const shape of this.deadClasses) if (mayPreemptFor(shape.queue, shape.example)) this.enterAfter(shape, undefined);
    const sleeping: LasClass[] = [];
    const blocked: LasClass[] = [];
    const moved = new Set<LasClass>();
    let cursor: LasKey | undefined;
    const reused = [] as unknown as [LasKey, LasClass];
    for (let pair = this.walkOrder.nextHigherPair(undefined, reused); pair !== undefined; pair = this.walkOrder.nextHigherPair(cursor, reused)) {
      const [key, shape] = pair;
      cursor = key;
      const view = shape.jobs.get(key)!;
      this.walkOrder.delete(key);
      shape.walkKey = null;
      moved.add(shape);
      const outcome = tryJob(view, shape.queue, shape.dead);
      if (outcome === 'failed' || outcome === 'blocked') {
        if (!shape.dead && shape.identical && complete) {
          shape.dead = true;
          this.deadClasses.add(shape);
        }
        if (shape.dead && !canPreempt(shape.queue)) moved.delete(shape);
        else if (outcome === 'blocked') blocked.push(shape);
        else sleeping.push(shape);
        continue;
      }
      this.remove(view);
      if (outcome === 'started-after-preempting') {
        // Capacity was freed: dead classes may fit again.
        for (const other of this.deadClasses) {
          other.dead = false;
          moved.add(other);
          if (other !== shape && other.walkKey === null) this.enterAfter(other, key);
        }
        this.deadClasses.clear();
        for (const other of blocked.splice(0)) this.enterAfter(other, key);
      }
      this.enterAfter(shape, key);
      // Capacity changed: sleeping classes resume at their first job after this one.
      for (const other of sleeping.splice(0)) this.enterAfter(other, key);
    }
    // Outside a pass every live class stands at its first job; dead ones stand outside the walk.
    for (const shape of moved) {
      if (shape.walkKey !== null) this.walkOrder.delete(shape.walkKey);
      shape.walkKey = null;
      if (!shape.dead) this.enterAfter(shape, undefined);
    }
  }

  /** Puts a class in the walk at its first job after `afterKey` (from its start when undefined), if any. */
  private enterAfter(shape: LasClass, afterKey: LasKey | undefined): void {
    if (shape.walkKey !== null) this.walkOrder.delete(shape.walkKey);
    shape.walkKey = null;
    if (shape.jobs.size === 0) return;
    const next = afterKey === undefined ? shape.jobs.minKey() : shape.jobs.nextHigherKey(afterKey);
    if (next === undefined) return;
    shape.walkKey = next;
    this.walkOrder.set(next, shape);
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
      if (!fitsSomeGrown(cluster, scratch, grown, shape.example.gpuTypes, shape.example.roles)) continue;
      shape.dead = false;
      this.deadClasses.delete(shape);
      this.enterAfter(shape, undefined);
    }
  }

  private add(view: JobView): void {
    const { queue, promoteDueS } = this.standingOf(view);
    const gang = this.gangs.idOf(view.request);
    const classes = (this.classes[queue] ??= new Map<number, LasClass>());
    let shape = classes.get(gang);
    if (!shape) {
      shape = { queue, gang, jobs: new SortedMap<LasKey, JobView>(compareLasKeys), identical: identicalReplicas(view.request), example: view.request, walkKey: null, dead: false };
      classes.set(gang, shape);
    }
    const key: LasKey = { queue, submitS: view.request.submitS, id: view.request.id };
    shape.jobs.set(key, view);
    const dueKey: readonly [number, number] | null = promoteDueS === null ? null : [promoteDueS, this.sequence++];
    const entry: WaitingLas = { view, key, shape, dueKey };
    this.entries.set(view, entry);
    if (dueKey !== null) this.promotions.set(dueKey, entry);
    if (!shape.dead && (shape.walkKey === null || compareLasKeys(key, shape.walkKey) < 0)) this.enterAfter(shape, undefined);
  }

  private remove(view: JobView): void {
    const entry = this.entries.take(view);
    if (!entry) return;
    const { shape, key } = entry;
    if (entry.dueKey !== null) this.promotions.delete(entry.dueKey);
    shape.jobs.delete(key);
    if (shape.walkKey !== null && compareLasKeys(key, shape.walkKey) === 0) this.enterAfter(shape, key);
    if (shape.jobs.size === 0) {
      this.deadClasses.delete(shape);
      shape.dead = false;
      this.emptied.emptied(shape);
    }
  }
}
