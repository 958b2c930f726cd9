import { InvariantError } from '../../errors.js';
import type { TaskPlacement } from '../../model/allocation.js';
import { ReplayScratch } from '../plan-scratch.js';
import { requestedGpus } from '../../model/job-spec.js';
import {
  placementRequestOf,
  type JobView,
  type PlacementRequest,
  type PlainSchedulingPolicy,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';

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
  const promotions = new Map<string, Promotion>();
  return {
    name: 'tiresias',
    tickS: options.tickS ?? TIRESIAS_TICK_S,
    schedule: (context) => planTiresias(context, thresholdsGpuS, promoteKnob, promotions),
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

/** A job's standing in one pass. */
interface Ranked {
  readonly view: JobView;
  readonly queue: number;
}

/** The queue (0 = highest priority) a service level falls in. */
export function queueOf(serviceGpuS: number, thresholdsGpuS: readonly number[]): number {
  let queue = 0;
  while (queue < thresholdsGpuS.length && serviceGpuS >= thresholdsGpuS[queue]!) queue++;
  return queue;
}

function planTiresias(
  context: SchedulingContext,
  thresholdsGpuS: readonly number[],
  promoteKnob: number,
  promotions: Map<string, Promotion>,
): SchedulingAction[] {
  // A promotion is kept while its job runs or waits: jobs that left both since the last pass drop theirs.
  for (const list of [context.changes.stopped, context.changes.queued, context.changes.started]) {
    for (const job of list) if (job.phase !== 'running' && job.phase !== 'queued') promotions.delete(job.request.id);
  }

  const rank = (view: JobView, waiting: boolean): Ranked => {
    let service = view.attainedGpuS - (promotions.get(view.request.id)?.baseGpuS ?? 0);
    let queue = queueOf(service, thresholdsGpuS);
    if (waiting && queue > 0 && promoteKnob > 0 && starved(view, service, promotions.get(view.request.id), context.nowS, promoteKnob)) {
      promotions.set(view.request.id, { baseGpuS: view.attainedGpuS, anchorS: null });
      service = 0;
      queue = 0;
    }
    return { view, queue };
  };
  const waiting = context.queued.map((v) => rank(v, true)).sort(byPriority);
  // Running jobs by priority, lowest first: ranked only when some waiting job does not fit.
  let victims: Ranked[] | null = null;

  let plan = new ReplayScratch(context);
  const preempted = new Set<Ranked>();
  const preemptions: SchedulingAction[] = [];
  const starts: SchedulingAction[] = [];
  for (const job of waiting) {
    const request = placementRequestOf(job.view.request);
    let tasks = plan.place(request);
    if (tasks === null) {
      victims ??= context.running.map((v) => rank(v, false)).sort((a, b) => byPriority(b, a));
      const eligible = victims.filter((v) => v.queue > job.queue && !preempted.has(v));
      const chosen = victimsFor(plan, context, eligible, request);
      if (chosen === null) continue;
      const committed = plan.fork();
      for (const victim of chosen) committed.unreserve(context.cluster.tasksOf(victim.view.request.id) ?? []);
      tasks = committed.place(request);
      if (tasks === null) throw new InvariantError(`tiresias: job ${job.view.request.id} no longer fits after preemptions`);
      plan = committed;
      for (const victim of chosen) {
        preempted.add(victim);
        preemptions.push({ kind: 'preempt', jobId: victim.view.request.id });
      }
    }
    starts.push({ kind: 'start', jobId: job.view.request.id, tasks });
    const promotion = promotions.get(job.view.request.id);
    if (promotion && promotion.anchorS === null) promotion.anchorS = context.nowS;
  }
  return [...preemptions, ...starts];
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

/** Higher priority first: lower queue, then earlier arrival (submit time, then id). */
function byPriority(a: Ranked, b: Ranked): number {
  if (a.queue !== b.queue) return a.queue - b.queue;
  if (a.view.request.submitS !== b.view.request.submitS) return a.view.request.submitS - b.view.request.submitS;
  return a.view.request.id < b.view.request.id ? -1 : a.view.request.id > b.view.request.id ? 1 : 0;
}

/**
 * The running jobs to preempt so that `request` fits: taken in the given order (lowest priority
 * first) until it fits, then pruned of any whose capacity it does not need. Null when even all do not free enough.
 */
function victimsFor(
  plan: ReplayScratch,
  context: SchedulingContext,
  eligible: readonly Ranked[],
  request: PlacementRequest,
): Ranked[] | null {
  if (eligible.length === 0) return null;
  const tasksOf = (victim: Ranked): readonly TaskPlacement[] => context.cluster.tasksOf(victim.view.request.id) ?? [];
  const trial = plan.fork();
  const chosen: Ranked[] = [];
  let fits = false;
  for (const victim of eligible) {
    trial.unreserve(tasksOf(victim));
    chosen.push(victim);
    if (trial.place(request) !== null) {
      fits = true;
      break;
    }
  }
  if (!fits) return null;
  // Spare the higher-priority victims first when the job fits without them.
  let needed = chosen;
  for (const victim of [...chosen].reverse()) {
    const without = needed.filter((v) => v !== victim);
    const check = plan.fork();
    for (const v of without) check.unreserve(tasksOf(v));
    if (check.place(request) !== null) needed = without;
  }
  return needed;
}

