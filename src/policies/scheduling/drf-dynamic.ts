import type { TaskPlacement } from '../../model/allocation.js';
import type { JobView, PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { DrfBook, queuedView, type DrfOptions } from './drf.js';
import { drfUser, heldBy, minimumRequest, smallestDrfStart, type DrfCandidate, type ResourceAmounts } from './drf-fill.js';

/**
 * Seconds between full DRF re-allocations: the Optimus paper's scheduling interval (10 minutes,
 * seed 004), so that the comparison re-plans on the same clock as the scheduler it is compared with.
 */
export const DRF_DYNAMIC_INTERVAL_S = 600;

/** Options of `drf-dynamic`. */
export interface DrfDynamicOptions extends DrfOptions {
  /** Seconds between full re-allocations (default DRF_DYNAMIC_INTERVAL_S). */
  readonly intervalS?: number;
}

/**
 * `drf-dynamic`: DRF re-run every interval (REFERENCE §6, the second reading: the Optimus authors'
 * later simulator, DL2, re-allocates from scratch each timeslot). At every interval, each running
 * elastic job is cut back to its minimum on paper, and progressive filling (weighted, per user, as
 * `drf`) shares the cluster afresh among those jobs and the queued ones; running jobs then shrink or
 * grow to their new share by resizes, which pause training `sim.resizePause`. Rigid and paused jobs
 * keep what they hold, and no job is preempted. Between intervals it admits queued jobs as `drf` does.
 */
export function createDrfDynamic(options: DrfDynamicOptions = {}): PlainSchedulingPolicy {
  const intervalS = options.intervalS ?? DRF_DYNAMIC_INTERVAL_S;
  const book = new DrfBook(options.userWeights ?? {});
  const elastic = new RunningElastic();
  let lastFullS: number | null = null;
  return {
    name: 'drf-dynamic',
    smallestStart: smallestDrfStart,
    tickS: intervalS,
    schedule(context: SchedulingContext): SchedulingAction[] {
      book.sync(context);
      elastic.sync(context);
      const due = lastFullS === null || context.nowS >= lastFullS + intervalS - 1e-6;
      if (!due) return book.admit(context);
      lastFullS = context.nowS;
      return reallocate(context, book, elastic.jobs.values());
    },
  };
}

/** The running elastic jobs in start order, kept from the changes (the first pass reads the running list). */
class RunningElastic {
  readonly jobs = new Map<string, JobView>();
  private seeded = false;

  sync(context: SchedulingContext): void {
    if (!this.seeded) {
      for (const view of context.running) if (view.request.elastic !== null) this.jobs.set(view.request.id, view);
      this.seeded = true;
    }
    const { changes } = context;
    for (const list of [changes.stopped, changes.queued, changes.resized]) {
      for (const view of list) if (view.phase !== 'running') this.jobs.delete(view.request.id);
    }
    // Started jobs join the end in the order they started (a job started twice: where it started last).
    for (const view of changes.started) {
      this.jobs.delete(view.request.id);
      if (view.phase === 'running' && view.request.elastic !== null) this.jobs.set(view.request.id, view);
    }
  }
}

/** A running job that DRF may resize: elastic, not paused, and at least at its minimum. */
interface Resizable {
  readonly job: JobView;
  /** Its tasks, in the order the cluster lists them. */
  readonly tasks: readonly TaskPlacement[];
  /** The tasks it keeps on paper: its minimum (first workers, first PS, every chief). */
  readonly kept: readonly TaskPlacement[];
  /** Grants (DRF tasks) it holds beyond its minimum. */
  readonly extraGrants: number;
}

/**
 * One full re-allocation. Phase 1 plans the fair shares in a scratch where every resizable job's
 * tasks beyond its minimum are given back. Phase 2 applies only the differences to the current
 * cluster: jobs above their new share give back whole grants (newest tasks first), then the grants
 * the plan made are placed in the plan's order for the jobs that grow or start; a grant that no
 * longer fits is skipped with the rest of that job's grants. It touches the running elastic jobs,
 * the users holding them, and the queued jobs the plan tries, not the whole queue.
 */
function reallocate(context: SchedulingContext, book: DrfBook, runningElastic: Iterable<JobView>): SchedulingAction[] {
  const resizable = new Map<string, Resizable>();
  for (const job of runningElastic) {
    const r = resizableOf(job, context);
    if (r !== null) resizable.set(job.request.id, r);
  }

  // Phase 1: the fair shares, with resizable jobs back at their minimum.
  const plan = context.scratch();
  const running: DrfCandidate[] = [];
  const heldOverride = new Map<string, ResourceAmounts>();
  const freed = new Set<number>();
  for (const r of resizable.values()) {
    const kept = new Set(r.kept);
    const extra = r.tasks.filter((task) => !kept.has(task));
    plan.unreserve(extra);
    for (const task of extra) freed.add(task.nodeIndex);
    const user = drfUser(r.job.request);
    let held = heldOverride.get(user);
    if (held === undefined) heldOverride.set(user, (held = book.held.heldOf(user)));
    const keptHeld = heldBy(r.kept);
    const fullHeld = heldBy(r.tasks);
    held.gpuMilli += keptHeld.gpuMilli - fullHeld.gpuMilli;
    held.cpuMilli += keptHeld.cpuMilli - fullHeld.cpuMilli;
    held.memMiB += keptHeld.memMiB - fullHeld.memMiB;
    running.push({ request: r.job.request, view: null, user, running: true, held: keptHeld, workers: r.job.request.elastic!.minReplicas, planned: [], grants: 0 });
  }
  const order = book.queue.fill({
    cluster: context.cluster,
    placement: context.placement,
    scratch: plan,
    active: running,
    heldOverride,
    freedNodes: [...freed],
    allStart: false,
  });

  // Phase 2: the differences, on the current cluster.
  const scratch = context.scratch();
  const removals = new Map<string, TaskPlacement[]>();
  for (const c of running) {
    const r = resizable.get(c.request.id)!;
    if (c.grants >= r.extraGrants) continue;
    const remove = newestGrants(r, r.extraGrants - c.grants);
    scratch.unreserve(remove);
    removals.set(c.request.id, remove);
  }
  const added = new Map<string, TaskPlacement[]>();
  /** The queued jobs given tasks, by id: they start. */
  const startedViews = new Map<string, JobView>();
  const seen = new Map<string, number>();
  const stuck = new Set<string>();
  for (const { candidate: c, tasks: planned } of order) {
    const id = c.request.id;
    const k = (seen.get(id) ?? 0) + 1;
    seen.set(id, k);
    if (stuck.has(id)) continue;
    if (c.running && k <= resizable.get(id)!.extraGrants) continue;
    const replicas = planned.map((task) => ({ role: task.role, demand: task.demand }));
    const tasks = context.placement.place(scratch, { jobId: id, jobKind: c.request.kind, gpuTypes: c.request.gpuTypes, replicas });
    if (tasks === null) {
      stuck.add(id);
      continue;
    }
    added.set(id, [...(added.get(id) ?? []), ...tasks]);
    if (!c.running) startedViews.set(id, queuedView(c));
  }

  // Running jobs in start order, then queued ones in queue order.
  const actions: SchedulingAction[] = [];
  for (const c of running) {
    const id = c.request.id;
    const add = added.get(id) ?? [];
    const remove = removals.get(id) ?? [];
    if (add.length > 0 || remove.length > 0) actions.push({ kind: 'resize', jobId: id, add, remove });
  }
  const starts = [...startedViews.values()].sort((a, b) => a.queuePosition - b.queuePosition);
  for (const job of starts) actions.push({ kind: 'start', jobId: job.request.id, tasks: added.get(job.request.id)!, job });
  return actions;
}

/** The running job as a resizable one, or null when DRF leaves it alone (rigid, paused, or below its minimum). */
function resizableOf(job: JobView, context: SchedulingContext): Resizable | null {
  const elastic = job.request.elastic;
  if (elastic === null || job.paused || job.workers < elastic.minReplicas) return null;
  const tasks = context.cluster.tasksOf(job.request.id) ?? [];
  const kept: TaskPlacement[] = [];
  let workers = 0;
  let ps = 0;
  for (const task of tasks) {
    if (task.role === 'worker' ? workers++ < elastic.minReplicas : task.role === 'ps' ? ps++ < 1 : true) kept.push(task);
  }
  return { job, tasks, kept, extraGrants: Math.floor((job.workers - elastic.minReplicas) / elastic.unit) };
}

/** The tasks of a job's newest `grants` grants: `unit` workers each, plus one PS each while it has more than one. */
function newestGrants(r: Resizable, grants: number): TaskPlacement[] {
  const unit = r.job.request.elastic!.unit;
  let workers = grants * unit;
  let ps = Math.min(grants, Math.max(0, r.job.ps - 1));
  const remove: TaskPlacement[] = [];
  for (let i = r.tasks.length - 1; i >= 0 && (workers > 0 || ps > 0); i--) {
    const task = r.tasks[i]!;
    if (task.role === 'worker' && workers > 0) {
      workers--;
      remove.push(task);
    } else if (task.role === 'ps' && ps > 0) {
      ps--;
      remove.push(task);
    }
  }
  return remove;
}
