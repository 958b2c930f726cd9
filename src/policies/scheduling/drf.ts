import { InvariantError } from '../../errors.js';
import type { JobView, PlainSchedulingPolicy, SchedulingAction, SchedulingContext } from '../types.js';
import { DrfQueue } from './drf-queue.js';
import { HeldByUser } from './held-by-user.js';
import { smallestDrfStart, type DrfCandidate, type DrfGrant, type UserWeights } from './drf-fill.js';

export { dominantShare, queuedCandidate, type ResourceAmounts, type UserWeights } from './drf-fill.js';

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
  const book = new DrfBook(options.userWeights ?? {});
  return {
    name: 'drf',
    smallestStart: smallestDrfStart,
    schedule(context: SchedulingContext): SchedulingAction[] {
      book.sync(context);
      return book.admit(context);
    },
  };
}

/** What a DRF scheduler keeps between passes, from the changes it is told: what users hold, and the queue. */
export class DrfBook {
  /** What each user's running jobs hold. */
  readonly held = new HeldByUser();
  /** The queued jobs in DRF's order. */
  readonly queue: DrfQueue;

  constructor(weights: UserWeights) {
    this.queue = new DrfQueue(weights, this.held);
  }

  /** Takes in what changed since the last pass (every pass must be told). */
  sync(context: SchedulingContext): void {
    this.held.sync(context.cluster, () => context.running, context.changes);
    this.queue.sync(context.cluster, context.placement, () => context.queued, context.changes);
  }

  /** One admission pass: queued jobs start with what progressive filling gives them on the free capacity. */
  admit(context: SchedulingContext): SchedulingAction[] {
    const grants = this.queue.fill({ cluster: context.cluster, placement: context.placement, scratch: context.scratch(), allStart: true, ...(context.why === undefined ? {} : { why: context.why }) });
    return startsOf(grants);
  }
}

/** A start action for every queued job given tasks, in queue order, naming its view. */
export function startsOf(grants: readonly DrfGrant[]): SchedulingAction[] {
  const started = new Set<DrfGrant['candidate']>();
  for (const { candidate } of grants) if (!candidate.running) started.add(candidate);
  return [...started]
    .map((c) => ({ c, view: queuedView(c) }))
    .sort((a, b) => a.view.queuePosition - b.view.queuePosition)
    .map(({ c, view }) => ({ kind: 'start' as const, jobId: c.request.id, tasks: c.planned, job: view }));
}

/** The view of a candidate the queue handed (every queued one). */
export function queuedView(candidate: DrfCandidate): JobView {
  if (candidate.view === null) throw new InvariantError(`drf: queued job ${candidate.request.id} came without its view`);
  return candidate.view;
}
