import { InvariantError } from '../../errors.js';
import type { TaskPlacement } from '../../model/allocation.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import { ReplayScratch } from '../plan-scratch.js';
import { requestedGpus, type JobRequest } from '../../model/job-spec.js';
import { GangCount } from './gang-count.js';
import { queueOf } from './las-order.js';
import { LasRunning, type RunningLas } from './las-running.js';
import { LasWaiting, type LasOutcome, type LasStanding } from './las-waiting.js';
import {
  NO_ACTIONS,
  placementRequestOf,
  type JobView,
  type PlacementRequest,
  type PlainSchedulingPolicy,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';

export { queueOf } from './las-order.js';

/**
 * `tiresias`: discretized two-dimensional least-attained-service (2D-LAS) of Tiresias (Gu et al.,
 * NSDI'19; REFERENCE §6). A job's attained service is GPUs x seconds it has held GPUs
 * (`JobView.attainedGpuS`); K queues split it at thresholds ({@link TIRESIAS_THRESHOLDS_GPU_S}).
 * Every pass:
 * - a job whose service crossed its queue's threshold is in the next queue (demotion);
 * - a waiting job in a lower queue that has waited {@link TIRESIAS_PROMOTE_KNOB} x its executed time
 *   since its last promotion goes back to the top queue, its service counted afresh (starvation guard);
 * - waiting jobs, by queue and then FIFO by arrival (submit time, then id), start with all their
 *   requested replicas (gang) where they fit; one that does not fit may preempt running jobs of
 *   strictly lower-priority queues (the lowest queue and latest arrival first, only as many as it
 *   needs); otherwise it is skipped and later jobs may still start (as in the reference simulator);
 * - running jobs of the same or a higher queue are never preempted.
 * Preempted jobs keep their progress and pause `resizePause` when they start again (the sim's rules).
 *
 * Choices: service and executed time are counted from the job's last promotion (as in the
 * SymbioticLab reference simulator, which zeroes them on promotion); executed time = service / the
 * job's requested GPUs (Tiresias runs jobs at their requested size); waiting time counts from the
 * job's first start after its last promotion, so a job never starved before it first ran. CPU-only
 * jobs attain no GPU service and stay in the top queue. Elastic jobs run at their requested size.
 */
export function createTiresias(options: TiresiasOptions = {}): PlainSchedulingPolicy {
  const thresholdsGpuS = options.thresholdsGpuS ?? TIRESIAS_THRESHOLDS_GPU_S;
  const promoteKnob = options.promoteKnob ?? TIRESIAS_PROMOTE_KNOB;
  if (thresholdsGpuS.some((t, i) => !(t > 0) || (i > 0 && t <= thresholdsGpuS[i - 1]!))) {
    throw new InvariantError(`tiresias: thresholds ${thresholdsGpuS.join(', ')} must be positive and increasing`);
  }
  if (!(promoteKnob >= 0)) throw new InvariantError(`tiresias: promoteKnob ${promoteKnob} must be >= 0`);
  const state = new TiresiasState(thresholdsGpuS, promoteKnob);
  return {
    name: 'tiresias',
    tickS: options.tickS ?? TIRESIAS_TICK_S,
    schedule: (context) => planTiresias(context, state),
  };
}

/**
 * Attained-service thresholds between queues, in GPU-seconds: one threshold, so K = 2 queues, at
 * 3,200 GPU-s. (The SymbioticLab reference simulator's `dlas-gpu` runs three queues split at 3,250
 * and 7,200 GPU-s; pass `thresholdsGpuS: [3250, 7200]` for that.)
 */
export const TIRESIAS_THRESHOLDS_GPU_S: readonly number[] = [3200];

/**
 * Tiresias's PROMOTEKNOB: a job in a lower queue that waited longer than this many times its
 * executed time (both since its last promotion) returns to the top queue; 0 disables the guard.
 * The value is ours: the reference simulator runs `dlas-gpu` without the guard and offers knobs
 * from 0.5 to 1000; 8 keeps it a guard against starvation rather than a second scheduling rule.
 */
export const TIRESIAS_PROMOTE_KNOB = 8;

/**
 * Seconds between passes: a demotion (or promotion) is acted on at most this late. (The reference
 * simulator computes the exact crossing time; the sim's ticks are periodic.) A 1-GPU job needs
 * 53 min to cross 3,200 GPU-s, a 64-GPU job 50 s.
 */
export const TIRESIAS_TICK_S = 60;

/** Options of {@link createTiresias}. */
export interface TiresiasOptions {
  /** Increasing attained-service thresholds in GPU-seconds; K = length + 1 queues ({@link TIRESIAS_THRESHOLDS_GPU_S}). */
  readonly thresholdsGpuS?: readonly number[];
  /** Starvation knob; 0 disables promotion ({@link TIRESIAS_PROMOTE_KNOB}). */
  readonly promoteKnob?: number;
  /** Seconds between passes ({@link TIRESIAS_TICK_S}). */
  readonly tickS?: number;
}

/** What the policy remembers about a job it promoted. */
interface Promotion {
  /** Attained service at the promotion; service is counted from here. */
  readonly baseGpuS: number;
  /** When the job first started after the promotion (null until then); waiting is counted from here. */
  anchorS: number | null;
}

/**
 * The policy's state: promotions, and the waiting and running jobs indexed by queue and arrival,
 * kept from the queue's changes (the first pass reads the queue and the running list).
 */
class TiresiasState {
  readonly promotions = new Map<string, Promotion>();
  readonly waiting: LasWaiting;
  readonly running: LasRunning;
  private seeded = false;
  /** The jobs `sync` took in so far in this pass. */
  private readonly seen = new Set<JobView>();
  /**
   * The cluster's change count at the end of the last pass when that pass decided nothing (-1 when
   * it decided something, or before the first): see planTiresias.
   */
  idleAtChange = -1;

  constructor(
    readonly thresholdsGpuS: readonly number[],
    readonly promoteKnob: number,
  ) {
    this.running = new LasRunning(thresholdsGpuS, (id) => this.baseOf(id));
    this.waiting = new LasWaiting((view) => this.standingOf(view));
  }

  /**
   * Takes in the pass's changes, then moves jobs whose demotion or promotion time has come; returns
   * false when none of this changed the indexes (no job changed, none was demoted or promoted).
   */
  sync(context: SchedulingContext): boolean {
    const { changes, cluster, nowS } = context;
    // A promotion is kept while its job runs or waits: jobs that left both since the last pass drop theirs.
    if (this.promotions.size > 0) {
      for (const list of [changes.stopped, changes.queued, changes.started]) {
        for (const job of list) if (job.phase !== 'running' && job.phase !== 'queued') this.promotions.delete(job.request.id);
      }
    }
    let moved = !this.seeded;
    if (!this.seeded) {
      for (const view of context.queued) this.waiting.update(view);
      for (const view of context.running) this.running.update(view, cluster, nowS);
      this.seeded = true;
    }
    // A job is taken in once as it stands now, though it may be in several lists (a preempted job was stopped and queued).
    const seen = this.seen;
    for (const list of [changes.queued, changes.started, changes.stopped, changes.resized]) {
      for (const view of list) {
        if (seen.has(view)) continue;
        seen.add(view);
        this.waiting.update(view);
        this.running.update(view, cluster, nowS);
      }
    }
    // Clearing a set makes it a new table: skipped when nothing was added.
    if (seen.size > 0) {
      moved = true;
      seen.clear();
    }
    if (this.running.demoteDue(cluster, nowS)) moved = true;
    if (this.promoteKnob > 0) {
      const promoted = this.waiting.promoteDue(
        nowS,
        (view) => starved(view, view.attainedGpuS - this.baseOf(view.request.id), this.promotionOf(view.request.id), nowS, this.promoteKnob),
        (view) => this.promotions.set(view.request.id, { baseGpuS: view.attainedGpuS, anchorS: null }),
      );
      if (promoted) moved = true;
    }
    return moved;
  }

  /** The job's promotion, if it has one (most runs promote few jobs, or none: no lookup then). */
  promotionOf(jobId: string): Promotion | undefined {
    return this.promotions.size === 0 ? undefined : this.promotions.get(jobId);
  }

  private baseOf(jobId: string): number {
    return this.promotionOf(jobId)?.baseGpuS ?? 0;
  }

  /** A waiting job's queue, and when it may starve (its service and anchor are fixed while it waits). */
  private standingOf(view: JobView): LasStanding {
    const serviceGpuS = view.attainedGpuS - this.baseOf(view.request.id);
    const queue = queueOf(serviceGpuS, this.thresholdsGpuS);
    if (queue === 0 || this.promoteKnob <= 0) return { queue, promoteDueS: null };
    const gpus = requestedGpus(view.request);
    const promotion = this.promotionOf(view.request.id);
    const anchorS = promotion ? promotion.anchorS : view.firstStartS;
    if (gpus <= 0 || anchorS === null || serviceGpuS <= 0) return { queue, promoteDueS: null };
    const executedS = serviceGpuS / gpus;
    return { queue, promoteDueS: anchorS + executedS + this.promoteKnob * executedS };
  }
}

function planTiresias(context: SchedulingContext, state: TiresiasState): readonly SchedulingAction[] {
  const moved = state.sync(context);
  if (state.waiting.size === 0) {
    state.idleAtChange = -1;
    return NO_ACTIONS;
  }
  // A pass decides from its indexes and the cluster alone (not the time): when the last pass
  // decided nothing, and since then neither changed, this one would walk the same jobs to the same
  // outcomes and give the same reasons for their waits. It is skipped.
  const changeCount = context.cluster.changeCount;
  if (!moved && state.idleAtChange === changeCount) return NO_ACTIONS;
  let plan: ReplayScratch | null = null;
  const preempted = new Set<RunningLas>();
  // Per queue: the jobs preempted in this pass and the GPU slots they held.
  const preemptedJobs = new Array<number>(state.thresholdsGpuS.length + 1).fill(0);
  const preemptedSlots = new Array<number>(state.thresholdsGpuS.length + 1).fill(0);
  const below = (perQueue: readonly number[], queue: number): number => {
    let total = 0;
    for (let q = queue + 1; q < perQueue.length; q++) total += perQueue[q]!;
    return total;
  };
  const preemptions: SchedulingAction[] = [];
  const starts: SchedulingAction[] = [];
  // The jobs preempted in this pass still run (and are indexed) until the sim applies the plan.
  const canPreempt = (queue: number): boolean => state.running.countBelow(queue) > below(preemptedJobs, queue);
  // Whole GPUs free, or held by jobs of queues below `queue` not preempted yet: an upper bound on a
  // gang of that queue that may start, which only shrinks until the pass preempts a job.
  const roomBelow = (queue: number): number =>
    (plan === null ? context.cluster.schedulableFreeWholeGpus : plan.scratch.freeWholeGpusTotal) + state.running.slotsBelow(queue) - below(preemptedSlots, queue);
  const mayPreemptFor = (queue: number, request: JobRequest): boolean => canPreempt(queue) && wholeGpusAsked(request) <= roomBelow(queue);
  const tryJob = (view: JobView, queue: number, placementFails: boolean): LasOutcome => {
    // No placement has more whole GPUs than the free ones, nor preempting more than the ones held below.
    if (wholeGpusAsked(view.request) > roomBelow(queue)) {
      context.why?.job(view, 'no-gpus');
      return 'blocked';
    }
    plan ??= new ReplayScratch(context);
    const request = placementRequestOf(view.request);
    let tasks = placementFails ? null : plan.place(request);
    let outcome: LasOutcome = 'started';
    if (tasks === null) {
      const count = GangCount.of(plan.scratch, context.placement, request);
      const chosen = victimsFor(plan, state.running, queue, preempted, request, count);
      // Counted exactly, a gang that does not fit with every candidate preempted cannot while the free capacity shrinks.
      if (chosen === null) {
        context.why?.unplaced(view, plan.scratch, request);
        return count === null ? 'failed' : 'blocked';
      }
      const committed: ReplayScratch = plan.fork();
      for (const tasksHeld of chosen.tasks) committed.unreserve(tasksHeld);
      tasks = committed.place(request);
      if (tasks === null) throw new InvariantError(`tiresias: job ${view.request.id} no longer fits after preemptions`);
      plan = committed;
      for (const victim of chosen.victims) {
        preempted.add(victim);
        preemptedJobs[victim.key.queue]!++;
        preemptedSlots[victim.key.queue]! += victim.gpuSlots;
        preemptions.push({ kind: 'preempt', jobId: victim.view.request.id });
      }
      outcome = 'started-after-preempting';
    }
    starts.push({ kind: 'start', jobId: view.request.id, tasks, job: view });
    const promotion = state.promotionOf(view.request.id);
    if (promotion && promotion.anchorS === null) promotion.anchorS = context.nowS;
    return outcome;
  };
  state.waiting.walk(context.cluster, context.placement.completeForIdentical === true, canPreempt, mayPreemptFor, tryJob);
  const actions = [...preemptions, ...starts];
  state.idleAtChange = actions.length === 0 ? changeCount : -1;
  return actions;
}

/** Whole GPUs a job asks for at its requested size (replicas of shared GPUs count none). */
function wholeGpusAsked(request: JobRequest): number {
  let gpus = 0;
  for (const role of request.roles) if (role.demand.gpuMilli >= GPU_MILLI) gpus += role.replicas * role.demand.gpus;
  return gpus;
}

/**
 * True when a waiting job has waited at least `knob` x its executed time since its last promotion.
 * Waiting counts from its first start after that promotion; before it ran again it cannot starve.
 */
function starved(view: JobView, serviceGpuS: number, promotion: Promotion | undefined, nowS: number, knob: number): boolean {
  const gpus = requestedGpus(view.request);
  const anchorS = promotion ? promotion.anchorS : view.firstStartS;
  if (gpus <= 0 || anchorS === null || serviceGpuS <= 0) return false;
  const executedS = serviceGpuS / gpus;
  const waitedS = nowS - anchorS - executedS;
  return waitedS >= knob * executedS;
}

/** Running jobs chosen for preemption, lowest priority first, and the tasks each holds. */
interface Victims {
  readonly victims: readonly RunningLas[];
  readonly tasks: readonly (readonly TaskPlacement[])[];
}

/**
 * The running jobs to preempt so that `request` fits: those of queues below `queue` not preempted
 * yet, taken lowest priority first until it fits, then pruned of any whose capacity it does not
 * need (the highest-priority ones first). Null when even all do not free enough. Whether the gang
 * fits is counted node by node where that is exact (`count`, see {@link GangCount}), else tried by
 * placing on a copy of the plan.
 */
function victimsFor(
  plan: ReplayScratch,
  running: LasRunning,
  queue: number,
  preempted: ReadonlySet<RunningLas>,
  request: PlacementRequest,
  count: GangCount | null,
): Victims | null {
  let trial: ReplayScratch | null = null;
  const chosen: RunningLas[] = [];
  const held: (readonly TaskPlacement[])[] = [];
  let fits = false;
  running.visitLowestFirst(queue, (victim) => {
    if (preempted.has(victim)) return false;
    const tasks = victim.tasks;
    chosen.push(victim);
    held.push(tasks);
    if (count !== null) {
      count.give(tasks);
      fits = count.fits();
    } else {
      trial ??= plan.fork();
      trial.unreserve(tasks);
      fits = trial.place(request) !== null;
    }
    return fits;
  });
  if (!fits) return null;
  // Spare the higher-priority victims first when the job fits without them.
  const kept = new Array<boolean>(chosen.length).fill(true);
  for (let i = chosen.length - 1; i >= 0; i--) {
    if (count !== null) {
      if (!count.fitsWithout(held[i]!)) continue;
      count.take(held[i]!);
      kept[i] = false;
      continue;
    }
    const check = plan.fork();
    for (let j = 0; j < chosen.length; j++) if (kept[j] && j !== i) check.unreserve(held[j]!);
    if (check.place(request) !== null) kept[i] = false;
  }
  return { victims: chosen.filter((_, i) => kept[i]), tasks: held.filter((_, i) => kept[i]) };
}
