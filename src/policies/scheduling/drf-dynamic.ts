import type { TaskPlacement } from '../../model/allocation.js';
import type { JobView, PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { createDrf, queuedCandidate, runningHeld, type DrfOptions } from './drf.js';
import { capacityOf, drfUser, heldBy, minimumRequest, progressiveFill, type DrfCandidate, type UserWeights } from './drf-fill.js';

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
  const weights = options.userWeights ?? {};
  const intervalS = options.intervalS ?? DRF_DYNAMIC_INTERVAL_S;
  const admit = createDrf(options);
  let lastFullS: number | null = null;
  return {
    name: 'drf-dynamic',
    smallestStart: minimumRequest,
    tickS: intervalS,
    schedule(context: SchedulingContext): SchedulingAction[] {
      const due = lastFullS === null || context.nowS >= lastFullS + intervalS - 1e-6;
      if (!due) return admit.schedule(context);
      lastFullS = context.nowS;
      return reallocate(context, weights);
    },
  };
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
 * longer fits is skipped with the rest of that job's grants.
 */
function reallocate(context: SchedulingContext, weights: UserWeights): SchedulingAction[] {
  const capacity = capacityOf(context.cluster);
  const resizable = new Map<string, Resizable>();
  for (const job of context.running) {
    const r = resizableOf(job, context);
    if (r !== null) resizable.set(job.request.id, r);
  }

  // Phase 1: the fair shares, with resizable jobs back at their minimum.
  const plan = context.scratch();
  const candidates: DrfCandidate[] = [];
  for (const r of resizable.values()) {
    const kept = new Set(r.kept);
    plan.unreserve(r.tasks.filter((task) => !kept.has(task)));
    candidates.push({
      request: r.job.request,
      user: drfUser(r.job.request),
      running: true,
      held: heldBy(r.kept),
      workers: r.job.request.elastic!.minReplicas,
      planned: [],
      grants: 0,
    });
  }
  for (const job of context.queued) candidates.push(queuedCandidate(job.request));
  const order = progressiveFill(candidates, {
    capacity,
    weights,
    usersHeld: runningHeld(context, new Set(resizable.keys())),
    placement: context.placement,
    scratch: plan,
  });

  // Phase 2: the differences, on the current cluster.
  const scratch = context.scratch();
  const removals = new Map<string, TaskPlacement[]>();
  for (const c of candidates) {
    if (!c.running) continue;
    const r = resizable.get(c.request.id)!;
    if (c.grants >= r.extraGrants) continue;
    const remove = newestGrants(r, r.extraGrants - c.grants);
    scratch.unreserve(remove);
    removals.set(c.request.id, remove);
  }
  const added = new Map<string, TaskPlacement[]>();
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
  }

  const actions: SchedulingAction[] = [];
  for (const c of candidates) {
    const id = c.request.id;
    const add = added.get(id) ?? [];
    if (c.running) {
      const remove = removals.get(id) ?? [];
      if (add.length > 0 || remove.length > 0) actions.push({ kind: 'resize', jobId: id, add, remove });
    } else if (add.length > 0) {
      actions.push({ kind: 'start', jobId: id, tasks: add });
    }
  }
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
