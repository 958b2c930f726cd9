import type { TaskPlacement } from '../../src/model/allocation.js';
import type { CapacityScratch } from '../../src/model/capacity.js';
import type { JobRequest } from '../../src/model/job-spec.js';
import {
  addTask,
  capacityOf,
  dominantShare,
  drfUser,
  heldBy,
  minimumRequest,
  nextRequest,
  noResources,
  queuedCandidate,
  type DrfCandidate,
  type DrfGrant,
  type ResourceAmounts,
  type UserWeights,
} from '../../src/policies/scheduling/drf-fill.js';
import { identicalGangKey } from '../../src/policies/scheduling/gang-key.js';
import type { JobView, PlacementPolicy, PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../../src/policies/types.js';

// The DRF schedulers as they were before they kept their own queue: every pass reads the whole
// queue and the running list and scans every open user for each grant. Tests hold the shipped
// schedulers equal to these.

/** What one DRF pass needs besides its candidates. */
export interface FillSetup {
  readonly capacity: ResourceAmounts;
  readonly weights: UserWeights;
  /** What each user holds outside the candidates' `held` (running jobs that are not candidates). */
  readonly usersHeld: Map<string, ResourceAmounts>;
  readonly placement: PlacementPolicy;
  readonly scratch: CapacityScratch;
}

/**
 * Weighted DRF by progressive filling (REFERENCE §6): repeatedly gives one more task to the user
 * with the lowest weighted dominant share (what all the user's jobs hold, running ones included)
 * among users with a job that can still take one; within that user, to the job with the lowest
 * dominant share (ties: earlier submission, then id). A job whose task does not fit is skipped for
 * the rest of the pass. Stops when no task fits. Candidates' `held`, `workers`, `planned` and
 * `grants` are updated in place; every grant is reserved in the scratch. Returns the grants in
 * the order they were made.
 */
export function progressiveFill(candidates: readonly DrfCandidate[], setup: FillSetup): DrfGrant[] {
  const { capacity, weights, usersHeld } = setup;
  const userHeld = (user: string): ResourceAmounts => {
    let held = usersHeld.get(user);
    if (!held) usersHeld.set(user, (held = noResources()));
    return held;
  };
  for (const c of candidates) {
    const held = userHeld(c.user);
    held.gpuMilli += c.held.gpuMilli;
    held.cpuMilli += c.held.cpuMilli;
    held.memMiB += c.held.memMiB;
  }
  const open = new Map<string, DrfCandidate[]>();
  for (const c of candidates) {
    if (nextRequest(c) === null) continue;
    const list = open.get(c.user) ?? [];
    list.push(c);
    open.set(c.user, list);
  }
  const order: DrfGrant[] = [];
  // Gangs of identical replicas that failed: the free capacity only shrinks in a pass, so their likes fail too (a complete placement).
  const failed = new Set<string>();
  const complete = setup.placement.completeForIdentical === true;
  while (open.size > 0) {
    const user = lowestUser(open, usersHeld, capacity, weights);
    const jobs = open.get(user)!;
    const k = lowestJob(jobs, capacity);
    const candidate = jobs[k]!;
    const request = nextRequest(candidate);
    const key = request !== null && complete ? identicalGangKey(request) : null;
    const tasks = request === null || (key !== null && failed.has(key)) ? null : setup.placement.place(setup.scratch, request);
    if (tasks === null) {
      if (key !== null) failed.add(key);
      jobs.splice(k, 1);
    } else {
      const held = userHeld(user);
      for (const task of tasks) {
        candidate.planned.push(task);
        addTask(candidate.held, task);
        addTask(held, task);
        if (task.role === 'worker') candidate.workers++;
      }
      candidate.grants++;
      order.push({ candidate, tasks });
      if (nextRequest(candidate) === null) jobs.splice(k, 1);
    }
    if (jobs.length === 0) open.delete(user);
  }
  return order;
}

/** The user with the lowest weighted dominant share among `open`; ties: the user of the earliest-submitted open job, then its id. */
function lowestUser(
  open: ReadonlyMap<string, readonly DrfCandidate[]>,
  usersHeld: ReadonlyMap<string, ResourceAmounts>,
  capacity: ResourceAmounts,
  weights: UserWeights,
): string {
  let best = '';
  let bestShare = Infinity;
  let bestFirst: JobRequest | null = null;
  for (const [user, jobs] of open) {
    const share = dominantShare(usersHeld.get(user)!, capacity, weights[user] ?? 1);
    const first = earliest(jobs);
    if (share < bestShare || (share === bestShare && bestFirst !== null && before(first, bestFirst))) {
      best = user;
      bestShare = share;
      bestFirst = first;
    }
  }
  return best;
}

function earliest(jobs: readonly DrfCandidate[]): JobRequest {
  let first = jobs[0]!.request;
  for (const c of jobs) if (before(c.request, first)) first = c.request;
  return first;
}

function before(a: JobRequest, b: JobRequest): boolean {
  return a.submitS < b.submitS || (a.submitS === b.submitS && a.id < b.id);
}

/** Index of the job with the lowest dominant share; ties: earlier submission, then id. */
function lowestJob(jobs: readonly DrfCandidate[], capacity: ResourceAmounts): number {
  let best = 0;
  let bestShare = Infinity;
  jobs.forEach((c, k) => {
    const share = dominantShare(c.held, capacity, 1);
    if (share < bestShare || (share === bestShare && before(c.request, jobs[best]!.request))) {
      best = k;
      bestShare = share;
    }
  });
  return best;
}


/** What each user's running jobs hold, by DRF user (running jobs in `skip` left out). */
export function runningHeld(context: SchedulingContext, skip?: ReadonlySet<string>): Map<string, ResourceAmounts> {
  const byUser = new Map<string, ResourceAmounts>();
  for (const job of context.running) {
    if (skip?.has(job.request.id)) continue;
    const held = heldBy(context.cluster.tasksOf(job.request.id) ?? []);
    const user = drfUser(job.request);
    const total = byUser.get(user);
    if (total === undefined) {
      byUser.set(user, held);
    } else {
      total.gpuMilli += held.gpuMilli;
      total.cpuMilli += held.cpuMilli;
      total.memMiB += held.memMiB;
    }
  }
  for (const [user, held] of byUser) if (held.gpuMilli === 0 && held.cpuMilli === 0 && held.memMiB === 0) byUser.delete(user);
  return byUser;
}

/** A start action for every queued candidate that was given tasks. */
function startsOf(candidates: readonly DrfCandidate[]): SchedulingAction[] {
  const actions: SchedulingAction[] = [];
  for (const c of candidates) if (!c.running && c.planned.length > 0) actions.push({ kind: 'start', jobId: c.request.id, tasks: c.planned });
  return actions;
}

/** One `drf` admission pass over the whole queue. */
export function referenceAdmit(context: SchedulingContext, weights: UserWeights): SchedulingAction[] {
  const candidates = context.queued.map((job) => queuedCandidate(job.request));
  progressiveFill(candidates, { capacity: capacityOf(context.cluster), weights, usersHeld: runningHeld(context), placement: context.placement, scratch: context.scratch() });
  return startsOf(candidates);
}

/** `drf` reading the whole queue and running list at every pass. */
export function referenceDrf(weights: UserWeights = {}): PlainSchedulingPolicy {
  return { name: 'drf', smallestStart: minimumRequest, schedule: (context) => referenceAdmit(context, weights) };
}

/** `drf-dynamic` reading the whole queue and running list at every pass. */
export function referenceDrfDynamic(intervalS: number, weights: UserWeights = {}): PlainSchedulingPolicy {
  let lastFullS: number | null = null;
  return {
    name: 'drf-dynamic',
    smallestStart: minimumRequest,
    tickS: intervalS,
    schedule(context: SchedulingContext): SchedulingAction[] {
      const due = lastFullS === null || context.nowS >= lastFullS + intervalS - 1e-6;
      if (!due) return referenceAdmit(context, weights);
      lastFullS = context.nowS;
      return reallocate(context, weights);
    },
  };
}

interface Resizable {
  readonly job: JobView;
  readonly tasks: readonly TaskPlacement[];
  readonly kept: readonly TaskPlacement[];
  readonly extraGrants: number;
}

function reallocate(context: SchedulingContext, weights: UserWeights): SchedulingAction[] {
  const capacity = capacityOf(context.cluster);
  const resizable = new Map<string, Resizable>();
  for (const job of context.running) {
    const r = resizableOf(job, context);
    if (r !== null) resizable.set(job.request.id, r);
  }
  const plan = context.scratch();
  const candidates: DrfCandidate[] = [];
  for (const r of resizable.values()) {
    const kept = new Set(r.kept);
    plan.unreserve(r.tasks.filter((task) => !kept.has(task)));
    candidates.push({ request: r.job.request, view: null, user: drfUser(r.job.request), running: true, held: heldBy(r.kept), workers: r.job.request.elastic!.minReplicas, planned: [], grants: 0 });
  }
  for (const job of context.queued) candidates.push(queuedCandidate(job.request));
  const order = progressiveFill(candidates, { capacity, weights, usersHeld: runningHeld(context, new Set(resizable.keys())), placement: context.placement, scratch: plan });
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
