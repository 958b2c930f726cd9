import type { PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { HeldByUser } from './held-by-user.js';
import { capacityOf, heldBy, minimumRequest, noResources, progressiveFill, drfUser, type DrfCandidate, type ResourceAmounts, type UserWeights } from './drf-fill.js';

export { dominantShare, type ResourceAmounts, type UserWeights } from './drf-fill.js';

/** Options of the DRF schedulers. */
export interface DrfOptions {
  /** Weights of users (the scenario's `users`); a user not listed weighs 1. */
  readonly userWeights?: UserWeights;
}

/**
 * `drf`: weighted Dominant Resource Fairness by progressive filling at admission (REFERENCE §6, the
 * reading "a fixed amount of resources when the job is submitted", as Borg and YARN apply it).
 * Each pass fills the queued jobs, user by user (lowest weighted dominant share first, counting
 * what the user's running jobs hold); a job starts with what the pass gave it and keeps that
 * allocation while it runs. Nothing is grown, shrunk or preempted.
 */
export function createDrf(options: DrfOptions = {}): PlainSchedulingPolicy {
  const weights = options.userWeights ?? {};
  // What users' running jobs hold, kept from the changes rather than summed at every pass.
  const held = new HeldByUser();
  return {
    name: 'drf',
    smallestStart: minimumRequest,
    schedule(context: SchedulingContext): SchedulingAction[] {
      held.sync(context.cluster, () => context.running, context.changes);
      const candidates = context.queued.map((job) => queuedCandidate(job.request));
      const scratch = context.scratch();
      progressiveFill(candidates, {
        capacity: capacityOf(context.cluster),
        weights,
        usersHeld: held.snapshot(),
        placement: context.placement,
        scratch,
      });
      return startsOf(candidates);
    },
  };
}

/** A queued job as a candidate: it holds nothing yet. */
export function queuedCandidate(request: DrfCandidate['request']): DrfCandidate {
  return { request, user: drfUser(request), running: false, held: noResources(), workers: 0, planned: [], grants: 0 };
}

/** What each user's running jobs hold, by DRF user. */
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
  return byUser;
}

/** A start action for every queued candidate that was given tasks. */
export function startsOf(candidates: readonly DrfCandidate[]): SchedulingAction[] {
  const actions: SchedulingAction[] = [];
  for (const c of candidates) if (!c.running && c.planned.length > 0) actions.push({ kind: 'start', jobId: c.request.id, tasks: c.planned });
  return actions;
}
