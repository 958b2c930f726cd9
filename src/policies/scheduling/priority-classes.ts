/**
 * Priority classes under any scheduling policy: high-priority jobs take capacity back from spot
 * jobs (a job's class is its spec's `priority`, `high` by default).
 *
 * The policy host runs this stage after every scheduling pass of a workload holding spot jobs, once
 * the policy's own decisions are applied, so it plans on the capacity really left and never has to
 * replay another policy's starts and resizes; no policy needs to know about classes. For each queued
 * high-priority job, in queue order, that does not fit on the free capacity, it preempts running spot
 * jobs and starts the job on what they free:
 * - candidates are spot jobs holding GPUs of a model the job may use (any model when it names
 *   none), most recently started first (they have run the least since they started);
 * - they are taken in that order until the job fits, then those it fits without are spared, the
 *   earliest started first: the fewest, youngest spot jobs that make room;
 * - a job that fits without preempting anything is left to the policy (its order stands); one that
 *   does not fit even with every candidate gone preempts nothing and waits;
 * - a high-priority job is never preempted here, and spot jobs never preempt anything;
 * - a preempted spot job is reclaimed: stopped without a save, it loses the work since its last
 *   checkpoint and queues again (the policy restarts it when capacity allows).
 * Jobs a policy changed in the same instant are left alone (the host's rule for later stages).
 */
import type { TaskPlacement } from '../../model/allocation.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import { priorityOf, requestedGpus, type JobSpec } from '../../model/job-spec.js';
import type { Decision } from '../decision.js';
import { ReplayScratch } from '../plan-scratch.js';
import { placementRequestOf, type JobView, type PlacementRequest, type SchedulingContext } from '../types.js';

/** The name decisions of this stage go by in errors. */
export const PRIORITY_CLASSES = 'priority-classes';

/** True when some job is a spot job: only then can the stage change anything, so only then the host runs it. */
export function hasSpotJobs(jobs: readonly Pick<JobSpec, 'priority'>[]): boolean {
  return jobs.some((job) => priorityOf(job) === 'spot');
}

/**
 * The preemptions and starts that give queued high-priority jobs the capacity of running spot jobs
 * (see the module comment); `locked` names jobs that must not be touched in this instant.
 */
export function reclaimForHighPriority(context: SchedulingContext, locked: ReadonlySet<string>): Decision[] {
  // Running is in start order: the most recently started spot jobs come first.
  const spot = context.running.filter((job) => priorityOf(job.request) === 'spot' && !locked.has(job.request.id)).reverse();
  if (spot.length === 0) return [];
  const taken = new Set<JobView>();
  const preemptions: Decision[] = [];
  const starts: Decision[] = [];
  let spotGpus = spot.reduce((sum, job) => sum + job.gpus, 0);
  // Shapes no spot capacity can make room for; capacity only shrinks during a pass, so they stay so.
  const hopeless = new Set<string>();
  let plan = new ReplayScratch(context);
  for (const job of context.queued) {
    if (priorityOf(job.request) !== 'high' || locked.has(job.request.id)) continue;
    // No placement is tried for a job of whole GPUs beyond what is free and what spot jobs hold.
    if (wholeGpusOnly(job) && requestedGpus(job.request) > plan.scratch.freeWholeGpusTotal + spotGpus) continue;
    const shape = JSON.stringify([job.request.kind, job.request.gpuTypes, job.request.roles]);
    if (hopeless.has(shape)) continue;
    const request = placementRequestOf(job.request);
    if (plan.fork().place(request) !== null) continue;
    const eligible = spot.filter((victim) => !taken.has(victim) && holdsUsableGpus(context, victim, request));
    const chosen = victimsFor(plan, context, eligible, request);
    if (chosen === null) {
      hopeless.add(shape);
      continue;
    }
    const committed = plan.fork();
    for (const victim of chosen) committed.unreserve(tasksOf(context, victim));
    const tasks = committed.place(request);
    if (tasks === null) continue;
    plan = committed;
    for (const victim of chosen) {
      taken.add(victim);
      spotGpus -= victim.gpus;
      preemptions.push({ kind: 'preempt', jobId: victim.request.id, reclaim: true });
    }
    starts.push({ kind: 'start', jobId: job.request.id, tasks, job });
  }
  return [...preemptions, ...starts];
}

/** True when every replica of the job asks for whole GPUs (or none): free whole GPUs then bound what it can use. */
function wholeGpusOnly(job: JobView): boolean {
  return job.request.roles.every((role) => role.demand.gpus === 0 || role.demand.gpuMilli >= GPU_MILLI);
}

/** What a running job holds. */
function tasksOf(context: SchedulingContext, job: JobView): readonly TaskPlacement[] {
  return context.cluster.tasksOf(job.request.id) ?? [];
}

/** True when the victim holds GPUs of a model the request may use (for a request of no GPUs or any model: always). */
function holdsUsableGpus(context: SchedulingContext, victim: JobView, request: PlacementRequest): boolean {
  if (request.gpuTypes.length === 0 || request.replicas.every((replica) => replica.demand.gpus === 0)) return true;
  return tasksOf(context, victim).some((task) => {
    const type = context.cluster.nodes[task.nodeIndex]!.gpuType;
    return task.gpuIndices.length > 0 && type !== null && request.gpuTypes.includes(type);
  });
}

/**
 * The spot jobs to preempt so that `request` fits: taken in the given order until it fits (no
 * placement is tried before they free the GPUs it lacks), then pruned of those it fits without,
 * the last taken first. Null when even all of them do not free enough.
 */
function victimsFor(plan: ReplayScratch, context: SchedulingContext, eligible: readonly JobView[], request: PlacementRequest): JobView[] | null {
  if (eligible.length === 0) return null;
  const lackingGpus = requestedGpus({ roles: request.replicas.map((replica) => ({ role: replica.role, replicas: 1, demand: replica.demand })) }) - plan.scratch.freeWholeGpusTotal;
  const trial = plan.fork();
  const chosen: JobView[] = [];
  let freedGpus = 0;
  let fits = false;
  for (const victim of eligible) {
    trial.unreserve(tasksOf(context, victim));
    chosen.push(victim);
    freedGpus += victim.gpus;
    if (freedGpus >= lackingGpus && trial.place(request) !== null) {
      fits = true;
      break;
    }
  }
  // GPU shares left free on partly used GPUs are not counted above: try once with all freed.
  if (!fits && freedGpus < lackingGpus) fits = trial.place(request) !== null;
  if (!fits) return null;
  let needed = chosen;
  for (const victim of [...chosen].reverse()) {
    const without = needed.filter((v) => v !== victim);
    const check = plan.fork();
    for (const v of without) check.unreserve(tasksOf(context, v));
    if (check.place(request) !== null) needed = without;
  }
  return needed;
}
