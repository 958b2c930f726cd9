import { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import { sameDemand, type JobRequest } from '../../model/job-spec.js';
import { ShapeIds } from '../../model/shape-ids.js';
import { SortedMap } from '../../model/sorted-map.js';
import { NO_ACTIONS, placementRequestOf, type JobView, type PlacementRequest, type WaitExplainer, type QueueChanges, type SchedulingAction, type SchedulingContext } from '../types.js';
import { EMPTY_CLASSES_KEPT, EmptiedClasses } from './emptied-classes.js';
import { fitsSomeGrown } from './grown-nodes.js';
import { ByArrival, JobKeys } from './by-arrival.js';

/** Queued jobs that ask for the same gang (same replicas, GPU models and kind), in the policy's order. */
interface ShapeClass<V extends JobView> {
  /**
   * The gang's number (see ShapeIds), the class's key, and its jobs' wait-reason group: one number
   * per gang for the whole run (the queue numbers gangs only as jobs join it).
   */
  readonly gang: number;
  /** Its jobs by arrival index, in the order of their keys. */
  readonly jobs: SortedMap<number, V>;
  /** All replicas ask for the same resources (a gang of identical replicas). */
  readonly identical: boolean;
  readonly example: JobRequest;
  /**
   * The arrival index of the job it stands at in the walk, its key there, or -1 when out of it (no
   * two jobs of a queue share an order key: its tie-breaker is unique).
   */
  nextKey: number;
  /** It cannot fit the free capacity it last saw, which has only shrunk since (see ShapeQueue). */
  dead: boolean;
  /** The pass that last took it out of the walk or put it back, to put it at its first job when the pass ends (0: none). */
  movedIn: number;
}

/**
 * The queue of a backfilling policy (first fit in the policy's order: `fifo-backfill`, `sjf`), kept
 * up to date from the queue's changes instead of re-read and re-sorted at every pass. Jobs asking
 * for the same gang form a class; a pass walks the classes in the order of their next jobs, which
 * is the policy's order, so it starts exactly the jobs a walk over the whole queue starts, while
 * skipping what cannot start:
 * - a gang of identical replicas that failed cannot fit while the free capacity only shrinks (a
 *   placement complete for identical replicas fails only when no arrangement exists), so its class
 *   is dead: skipped in this pass and the next ones, until some node it could use gains capacity
 *   (the cluster logs every node whose free capacity grows);
 * - any gang that failed fails again on the same free capacity, so its class sleeps until the pass
 *   starts another job, then resumes at its first job after that point.
 * A pass costs the jobs it starts and the classes it tries, not the length of the queue.
 */
export class ShapeQueue<V extends JobView> {
  /** The numbers of the gangs its jobs ask for. */
  private readonly gangs = new ShapeIds();
  /** Classes by gang: those with jobs, and some emptied (see `emptied`). */
  private readonly classes = new Map<number, ShapeClass<V>>();
  /** Classes without jobs kept for their gang's next job (at most `emptyClassesKept`). */
  private readonly emptied: EmptiedClasses<ShapeClass<V>>;
  /** The order keys of its jobs, by arrival index (jobs are ordered by them wherever they are kept). */
  private readonly keys = new JobKeys();
  /** The class each queued job is in. */
  private readonly classOf = new ByArrival<ShapeClass<V>>();
  /** Classes in the walk, by their next job. */
  private readonly walk = new SortedMap<number, ShapeClass<V>>(this.keys.compare);
  private readonly deadClasses = new Set<ShapeClass<V>>();
  /** Ties of the order key go to the job taken in first. */
  private taken = 0;
  private seeded = false;
  /** The cluster's growth mark when dead classes were last revisited. */
  private growthMark = 0;
  /** Where the current pass says why jobs wait (absent: nothing is recorded). */
  private why: WaitExplainer<V> | undefined;
  /** Passes so far, and the classes the current one moved (those marked with it: see `movedIn`), in lists kept from pass to pass. */
  private passes = 0;
  private readonly moved: ShapeClass<V>[] = [];
  private readonly sleeping: ShapeClass<V>[] = [];

  /**
   * @param orderKey the policy's order of a queued job, ending with `tie` (a number that gives ties
   * to the job taken in first), of the same length for every job; the queue copies its numbers
   * @param emptyClassesKept how many classes without jobs it keeps at most (see `emptied`)
   */
  constructor(
    private readonly orderKey: (job: V, tie: number) => readonly number[],
    emptyClassesKept = EMPTY_CLASSES_KEPT,
  ) {
    this.emptied = new EmptiedClasses(emptyClassesKept, (shape) => {
      if (shape.jobs.size === 0 && this.classes.get(shape.gang) === shape) this.classes.delete(shape.gang);
    });
  }

  /** Jobs in the queue. */
  get size(): number {
    return this.classOf.size;
  }

  /** Takes in what changed in the queue: jobs now queued are (re)placed by their order key, others leave. */
  sync(changes: QueueChanges<V>): void {
    for (const list of [changes.queued, changes.started, changes.stopped, changes.resized]) {
      for (const job of list) {
        this.remove(job);
        if (job.phase === 'queued') this.add(job);
      }
    }
  }

  /** One backfilling pass: walks the queue in order and starts every job that fits what is left. */
  backfill(context: SchedulingContext<V>): readonly SchedulingAction[] {
    this.why = context.why;
    if (!this.seeded) {
      // The first pass reads the whole queue (a policy made mid-run, or handed a queue directly); later ones only the changes.
      for (const job of context.queued) this.add(job);
      this.seeded = true;
    }
    this.sync(context.changes);
    this.reviveGrown(context.cluster);
    if (this.walk.size === 0) return NO_ACTIONS;
    // Made at the first start: most passes start nothing or one job.
    let actions: SchedulingAction[] | null = null;
    const scratch = context.scratch();
    const complete = context.placement.completeForIdentical === true;
    const { sleeping, moved } = this;
    // Empty unless a pass before this one was cut short by an error.
    sleeping.length = 0;
    const pass = ++this.passes;
    let movedCount = 0;
    let cursor: number | undefined;
    // One pair the walk's reads fill in turn (read before the next).
    const reused: [number, ShapeClass<V>] = [-1, null!];
    for (let pair = this.walk.nextHigherPair(undefined, reused); pair !== undefined; pair = this.walk.nextHigherPair(cursor, reused)) {
      const [jobKey, shape] = pair;
      cursor = jobKey;
      const job = shape.jobs.get(jobKey)!;
      const request = placementRequestOf(job.request);
      const tasks = context.placement.place(scratch, request);
      this.walk.delete(jobKey);
      shape.nextKey = -1;
      if (tasks !== null) {
        const start: SchedulingAction = { kind: 'start', jobId: job.request.id, tasks, job };
        if (actions === null) actions = [start];
        else actions.push(start);
        this.remove(job);
        if (shape.movedIn !== pass) moved[movedCount++] = shape;
        shape.movedIn = pass;
        this.enterAfter(shape, jobKey);
        // Capacity changed: sleeping classes resume at their first job after this one.
        for (let k = 0; k < sleeping.length; k++) this.enterAfter(sleeping[k]!, jobKey);
        sleeping.length = 0;
      } else if (shape.identical && complete) {
        this.explainFailure(shape, scratch, request);
        shape.dead = true;
        this.deadClasses.add(shape);
        shape.movedIn = 0;
      } else {
        this.explainFailure(shape, scratch, request);
        sleeping.push(shape);
        if (shape.movedIn !== pass) moved[movedCount++] = shape;
        shape.movedIn = pass;
      }
    }
    sleeping.length = 0;
    // Outside a pass every live class stands at its first job.
    for (let k = 0; k < movedCount; k++) {
      const shape = moved[k]!;
      if (shape.movedIn === pass && !shape.dead) this.enterAfter(shape, undefined);
    }
    return actions ?? NO_ACTIONS;
  }

  /** The class's jobs wait for why its gang `failed` did not fit the scratch. */
  private explainFailure(shape: ShapeClass<V>, scratch: CapacityScratch, failed: PlacementRequest): void {
    if (this.why === undefined) return;
    this.why.group(shape.gang, this.why.diagnose(scratch, failed));
  }

  /** Puts a class in the walk at its first job after `afterKey` (from its start when undefined), if any. */
  private enterAfter(shape: ShapeClass<V>, afterKey: number | undefined): void {
    if (shape.nextKey >= 0) this.walk.delete(shape.nextKey);
    shape.nextKey = -1;
    if (shape.dead || shape.jobs.size === 0) return;
    const next = afterKey === undefined ? shape.jobs.minKey() : shape.jobs.nextHigherKey(afterKey);
    if (next === undefined) return;
    shape.nextKey = next;
    this.walk.set(next, shape);
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

  private add(job: V): void {
    const gang = this.gangs.idOf(job.request);
    let shape = this.classes.get(gang);
    if (!shape) {
      const identical = identicalReplicas(job.request);
      shape = { gang, jobs: new SortedMap<number, V>(this.keys.compare), identical, example: job.request, nextKey: -1, dead: false, movedIn: 0 };
      this.classes.set(gang, shape);
    }
    // Its arrival index checked here; its key written before it joins any ordered set (a job queued again gets its new key here).
    this.classOf.set(job, shape);
    const index = job.arrivalIndex;
    this.keys.write(index, this.orderKey(job, this.taken++));
    shape.jobs.set(index, job);
    this.why?.joinGroup(job, shape.gang);
    if (!shape.dead && (shape.nextKey < 0 || this.keys.compare(index, shape.nextKey) < 0)) this.enterAfter(shape, undefined);
  }

  private remove(job: V): void {
    const shape = this.classOf.take(job);
    if (shape === undefined) return;
    const index = job.arrivalIndex;
    shape.jobs.delete(index);
    if (shape.nextKey === index) this.enterAfter(shape, index);
    if (shape.jobs.size === 0) {
      this.deadClasses.delete(shape);
      shape.dead = false;
      this.emptied.emptied(shape);
    }
  }
}

/** Empty classes a queue keeps at most unless told otherwise (see EmptiedClasses). */
export { EMPTY_CLASSES_KEPT } from './emptied-classes.js';

/** True when all replicas of the gang ask for the same resources. */
export function identicalReplicas(request: JobRequest): boolean {
  let first: JobRequest['roles'][number]['demand'] | null = null;
  for (const role of request.roles) {
    if (role.replicas <= 0) continue;
    if (first === null) first = role.demand;
    else if (!sameDemand(role.demand, first)) return false;
  }
  return true;
}
