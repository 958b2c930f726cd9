import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { JobRequest, ReplicaDemand } from '../../model/job-spec.js';
import { fitLossCurve, predictConvergenceStep } from '../fitting/loss-curve.js';
import {
  asyncStepsPerS,
  distinctShapes,
  fitAsyncSpeedModel,
  scaleAsyncPrior,
  type AsyncSpeedParams,
} from '../fitting/speed-model.js';
import {
  type JobView,
  type PlacementRequest,
  type PlainSchedulingPolicy,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';
import { allocateByMarginalGain, type AllocationJob, type PsShape, type ResourceVector } from './optimus-allocation.js';
import { EvenSpreadIndex } from './optimus-placement.js';
import { isElasticPsJob, OptimusQueue } from './optimus-queue.js';
import { DEFAULT_SIM_PARAMS } from '../../model/sim-params.js';

export { isElasticPsJob } from './optimus-queue.js';

/** Seconds between Optimus's full re-plans (the paper re-allocates every scheduling interval of 10 minutes). */
export const OPTIMUS_TICK_S = 600;
/** Loss samples a job needs before its own loss-curve fit is trusted; fewer use the prior. */
export const MIN_LOSS_SAMPLES = 5;
/** Distinct (ps, workers) shapes a job needs before all four speed parameters are fitted; fewer scale the prior. */
export const MIN_SPEED_SHAPES = 4;
/** Prior total steps of a job when no other job has a fitted loss curve yet. */
export const DEFAULT_PRIOR_TOTAL_STEPS = 50_000;
/**
 * Prior shape of the asynchronous speed model until MIN_PRIOR_JOBS jobs have fitted models (the
 * relative sizes of t0..t3: compute, PS communication per worker/PS, worker contention, per-PS
 * overhead). Only its shape is used once a job has a speed sample: the sample sets its level.
 */
export const PRIOR_SPEED: AsyncSpeedParams = { t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 };
/** Weight of the prior in a full speed fit, relative to one sample (see SpeedFitOptions). */
export const PRIOR_SPEED_WEIGHT = 0.05;
/** Jobs with fitted speed models needed before their mean shape replaces PRIOR_SPEED as the prior. */
export const MIN_PRIOR_JOBS = 3;
/** A job not yet converged is assumed to need at least this share of the steps it has done. */
const MIN_REMAINING_FRACTION = 0.02;

/** Where an estimate of remaining steps came from. */
export type RemainingSource = 'loss-fit' | 'prior' | 'declared';

/** A job's estimated remaining steps (Q) and how it was obtained. */
export interface RemainingStepsEstimate {
  readonly steps: number;
  readonly source: RemainingSource;
}

/** Where a speed model came from. */
export type SpeedSource = 'fit' | 'scaled-prior' | 'prior';

/** A job's estimated speed function and how it was obtained. */
export interface SpeedEstimate {
  readonly params: AsyncSpeedParams;
  readonly source: SpeedSource;
}

/** Options of the optimus policy. */
export interface OptimusOptions {
  /** Seconds between full re-plans (default OPTIMUS_TICK_S). */
  readonly tickS?: number;
  /** Training pause a resize costs, in seconds: the scenario's `sim.resizePause` (default 30). */
  readonly resizePauseS?: number;
}

/** The smallest gang Optimus starts a job with: an elastic PS job's fewest workers (a multiple of its unit) and one PS; null for any other job (its requested gang). */
function smallestStart(request: JobRequest): PlacementRequest | null {
  if (!isElasticPsJob(request)) return null;
  const unit = Math.max(1, request.elastic!.unit);
  const workers = Math.max(unit, Math.ceil(request.elastic!.minReplicas / unit) * unit);
  const replicas = request.roles.flatMap((role) => Array.from({ length: role.role === 'worker' ? workers : 1 }, () => ({ role: role.role, demand: role.demand })));
  return { jobId: request.id, jobKind: request.kind, gpuTypes: request.gpuTypes, replicas };
}

/**
 * The total steps the job's fitted loss curve predicts (the step where it reaches the job's declared
 * `request.targetLoss`), or null without a target, with fewer than MIN_LOSS_SAMPLES samples, or when
 * the fitted asymptote does not reach the target yet. Uses only the reported (step, loss) values and
 * the declared target (a view has no true curve nor true step count).
 */
export function fittedTotalSteps(job: JobView): number | null {
  const targetLoss = job.request.targetLoss;
  if (targetLoss === null) return null;
  const samples = job.lossSamples();
  if (samples.length < MIN_LOSS_SAMPLES) return null;
  const fit = fitLossCurve(samples);
  if (fit === null) return null;
  const total = predictConvergenceStep(fit, targetLoss);
  return Number.isFinite(total) ? total : null;
}

/**
 * Optimus's estimate of a job's remaining steps Q. A job with a loss curve: its fitted total (when
 * fittedTotalSteps gives one) or else `priorTotalSteps`, minus its progress, but at least
 * MIN_REMAINING_FRACTION of its progress (it has not converged yet, whatever the fit says). A job
 * without a loss curve ends after the number of steps its submitter declared (`request.declaredSteps`).
 */
export function estimateRemainingSteps(job: JobView, priorTotalSteps: number, fitted: number | null = fittedTotalSteps(job)): RemainingStepsEstimate {
  const declaredSteps = job.request.declaredSteps;
  if (declaredSteps !== null) return { steps: Math.max(0, declaredSteps - job.progressSteps), source: 'declared' };
  const total = fitted ?? priorTotalSteps;
  const steps = Math.max(total - job.progressSteps, MIN_REMAINING_FRACTION * job.progressSteps, 1);
  return { steps, source: fitted === null ? 'prior' : 'loss-fit' };
}

/** What a job's speed estimate starts from before its own samples pin it down. */
export interface SpeedPrior {
  /** Relative sizes of t0..t3 (only the shape matters once the job has a sample). */
  readonly shape: AsyncSpeedParams;
  /** Steps/s at 1 PS + 1 worker for a job without samples; null keeps `shape` as it is. */
  readonly stepsPerSAtOne: number | null;
}

/**
 * Optimus's estimate of a job's speed function from its measured speeds (never its true model):
 * with MIN_SPEED_SHAPES or more distinct shapes an NNLS fit of all four parameters, pulled lightly
 * towards the prior's shape scaled to the samples; with fewer samples, the prior's shape scaled to
 * them; with none, the prior's shape at the prior's level.
 */
export function estimateSpeedModel(job: JobView, prior: SpeedPrior = { shape: PRIOR_SPEED, stepsPerSAtOne: null }): SpeedEstimate {
  const samples = job.speedSamples;
  const scaled = samples.length > 0 ? scaleAsyncPrior(samples, prior.shape) : null;
  if (scaled !== null) {
    if (distinctShapes(samples) >= MIN_SPEED_SHAPES) {
      const fit = fitAsyncSpeedModel(samples, { prior: scaled, priorWeight: PRIOR_SPEED_WEIGHT });
      if (fit !== null) return { params: fit, source: 'fit' };
    }
    return { params: scaled, source: 'scaled-prior' };
  }
  const p = prior.shape;
  if (prior.stepsPerSAtOne === null || !(prior.stepsPerSAtOne > 0)) return { params: p, source: 'prior' };
  const factor = asyncStepsPerS(p, 1, 1) / prior.stepsPerSAtOne;
  return { params: { t0: p.t0 * factor, t1: p.t1 * factor, t2: p.t2 * factor, t3: p.t3 * factor }, source: 'prior' };
}

/**
 * `optimus` (REFERENCE §5): every OPTIMUS_TICK_S it re-plans all elastic PS jobs from what it has
 * learned. Remaining steps come from each job's fitted loss curve (before MIN_LOSS_SAMPLES samples:
 * the mean fitted total of the jobs seen so far, else DEFAULT_PRIOR_TOTAL_STEPS); speed functions
 * from NNLS fits of measured speeds (before MIN_SPEED_SHAPES shapes: the prior shape scaled to the
 * samples, the prior being the mean fitted shape of other jobs, PRIOR_SPEED until MIN_PRIOR_JOBS
 * have one; a new job starts from the prior and is profiled as it runs, since the simulation
 * records a speed sample at every shape change, and a re-plan that would keep such a job's shape
 * moves it to an unmeasured neighbouring one instead). Allocation is the marginal-gain greedy, placement
 * the even spread on the fewest servers. A running job keeps its tasks where it can: a resize only
 * removes what shrinks and adds what grows, and a running job keeps its shape when the new one
 * would not make up for the resize pause within one re-plan interval (f_new * (tick - pause) <=
 * f_old * tick) and the budget left allows it. Jobs that get nothing are preempted.
 *
 * Between re-plans (arrivals, completions) it only starts queued jobs in the free capacity.
 * Rigid jobs (anything but elastic PS jobs) start at their requested shape when they fit the free
 * capacity, in submission order without blocking; the first one that does not fit has its demand
 * held back from the elastic budget so that elastic jobs shrink for it. Rigid jobs are never resized.
 * Capacity per resource is counted in aggregate; a gang that then does not place is shrunk one
 * replica at a time until it does.
 */
export function createOptimus(options: OptimusOptions = {}): PlainSchedulingPolicy {
  const tickS = options.tickS ?? OPTIMUS_TICK_S;
  const resizePauseS = options.resizePauseS ?? DEFAULT_SIM_PARAMS.resizePauseS;
  const memory = new Knowledge();
  const fits = new FitCache();
  const queue = new OptimusQueue();
  let lastFullPlanS: number | null = null;
  return {
    name: 'optimus',
    tickS,
    smallestStart,
    schedule(context: SchedulingContext): readonly SchedulingAction[] {
      const full = lastFullPlanS === null || context.nowS >= lastFullPlanS + tickS - 1e-6;
      if (full) lastFullPlanS = context.nowS;
      queue.sync(context);
      for (const job of context.changes.stopped) if (job.phase === 'completed' || job.phase === 'failed') fits.forget(job);
      return planRound(context, queue, memory, fits, full, tickS, resizePauseS);
    },
  };
}

/**
 * What the policy remembers across passes, per job it has seen: its fitted total steps, its speed
 * level (steps/s at 1 PS + 1 worker) and the shape of its fitted speed model. Priors for a job are
 * means over the other jobs (empirical Bayes: jobs of one cluster resemble each other); running
 * sums keep each prior O(1).
 */
class Knowledge {
  private readonly totals = new RunningMean(1);
  private readonly levels = new RunningMean(1);
  private readonly shapes = new RunningMean(4);

  noteTotal(jobId: string, total: number): void {
    this.totals.set(jobId, [total]);
  }

  noteSpeed(jobId: string, estimate: SpeedEstimate): void {
    if (estimate.source === 'prior') return;
    const t = estimate.params;
    this.levels.set(jobId, [asyncStepsPerS(t, 1, 1)]);
    if (estimate.source !== 'fit') return;
    const sum = t.t0 + t.t1 + t.t2 + t.t3;
    this.shapes.set(jobId, [t.t0 / sum, t.t1 / sum, t.t2 / sum, t.t3 / sum]);
  }

  /** Mean fitted total steps over the other jobs, or DEFAULT_PRIOR_TOTAL_STEPS. */
  priorTotal(jobId: string): number {
    return this.totals.meanExcept(jobId, 1)?.[0] ?? DEFAULT_PRIOR_TOTAL_STEPS;
  }

  /**
   * The speed prior for a job: the mean fitted shape of the other jobs once MIN_PRIOR_JOBS have
   * fitted models (else PRIOR_SPEED), at the mean level of the other jobs.
   */
  speedPrior(jobId: string): SpeedPrior {
    const stepsPerSAtOne = this.levels.meanExcept(jobId, 1)?.[0] ?? null;
    const shape = this.shapes.meanExcept(jobId, MIN_PRIOR_JOBS);
    if (shape === null) return { shape: PRIOR_SPEED, stepsPerSAtOne };
    const [t0, t1, t2, t3] = shape as [number, number, number, number];
    return { shape: { t0, t1, t2, t3 }, stepsPerSAtOne };
  }
}

/**
 * Each job's fitted models, kept until new observations come: its loss-curve fit until its
 * progress moves (a job reports loss as it progresses, so a waiting job's samples stay the same),
 * its speed estimate until it has a new speed sample or its prior moves. A pass over waiting jobs
 * then fits nothing again.
 */
class FitCache {
  private readonly totals = new Map<JobView, { readonly progressSteps: number; readonly total: number | null }>();
  private readonly speeds = new Map<JobView, { readonly samples: JobView['speedSamples']; readonly count: number; readonly prior: SpeedPrior; readonly estimate: SpeedEstimate }>();

  /** fittedTotalSteps(view), fitted again only when the job's progress moved. */
  totalSteps(view: JobView): number | null {
    const cached = this.totals.get(view);
    if (cached !== undefined && cached.progressSteps === view.progressSteps) return cached.total;
    const total = fittedTotalSteps(view);
    this.totals.set(view, { progressSteps: view.progressSteps, total });
    return total;
  }

  /** estimateSpeedModel(view, prior), estimated again only on a new speed sample or another prior. */
  speed(view: JobView, prior: SpeedPrior): SpeedEstimate {
    const cached = this.speeds.get(view);
    const samples = view.speedSamples;
    if (cached !== undefined && cached.samples === samples && cached.count === samples.length && samePrior(cached.prior, prior)) return cached.estimate;
    const estimate = estimateSpeedModel(view, prior);
    this.speeds.set(view, { samples, count: samples.length, prior, estimate });
    return estimate;
  }

  /** Forgets a job that left for good. */
  forget(view: JobView): void {
    this.totals.delete(view);
    this.speeds.delete(view);
  }
}

function samePrior(a: SpeedPrior, b: SpeedPrior): boolean {
  return a.stepsPerSAtOne === b.stepsPerSAtOne && a.shape.t0 === b.shape.t0 && a.shape.t1 === b.shape.t1 && a.shape.t2 === b.shape.t2 && a.shape.t3 === b.shape.t3;
}

/** Per-job vectors with their running sum, for means over "every job but one". */
class RunningMean {
  private readonly byJob = new Map<string, number[]>();
  private readonly sum: number[];

  constructor(size: number) {
    this.sum = new Array<number>(size).fill(0);
  }

  set(jobId: string, value: readonly number[]): void {
    const old = this.byJob.get(jobId);
    value.forEach((v, i) => (this.sum[i]! += v - (old?.[i] ?? 0)));
    this.byJob.set(jobId, [...value]);
  }

  /** The mean over the jobs other than `jobId`, or null when fewer than `atLeast` of them exist. */
  meanExcept(jobId: string, atLeast: number): number[] | null {
    const own = this.byJob.get(jobId);
    const count = this.byJob.size - (own ? 1 : 0);
    if (count < atLeast) return null;
    return this.sum.map((v, i) => (v - (own?.[i] ?? 0)) / count);
  }
}

/** An elastic PS job in this round: its view, what the allocation needs, and (running) what it holds. */
interface PlannedJob {
  readonly view: JobView;
  readonly alloc: AllocationJob;
  readonly running: boolean;
  readonly held: readonly TaskPlacement[];
  readonly current: PsShape;
  target: PsShape | null;
  /** True while its speed model is not fitted yet (fewer than MIN_SPEED_SHAPES shapes measured). */
  readonly profiling: boolean;
  /** Shapes it has been measured at, and its current one, as "ps:workers". */
  readonly visited: ReadonlySet<string>;
}

/** One scheduling pass; `full` re-plans running elastic jobs too, otherwise only queued jobs start. */
function planRound(context: SchedulingContext, queue: OptimusQueue, memory: Knowledge, fits: FitCache, full: boolean, tickS: number, resizePauseS: number): readonly SchedulingAction[] {
  const scratch = context.scratch();

  // Rigid jobs: start at their requested shape in the free capacity, in submission order.
  const rigidStarts = queue.startRigid(context, scratch);
  const views = [...(full ? context.running.filter((j) => isElasticPsJob(j.request)) : []), ...queue.queuedElastic()];
  if (views.length === 0) return rigidStarts;
  const actions = [...rigidStarts];
  const heldBack = firstRigidLeft(context, actions);
  const planned = planJobs(context, views, memory, fits);

  const budget = freeCapacity(scratch);
  for (const job of planned) for (const task of job.held) addTo(budget, taskVector(task));
  if (heldBack !== null) for (let r = 0; r < 3; r++) budget[r] = Math.max(0, budget[r]! - heldBack[r]!);
  const capacity: ResourceVector = [context.cluster.totalGpus * 1000, context.cluster.totalCpuMilli, context.cluster.totalMemMiB];
  const shapes = allocateByMarginalGain(
    planned.map((j) => j.alloc),
    budget,
    capacity,
  );
  planned.forEach((job, k) => (job.target = shapes[k]!));
  if (full) {
    keepWorthlessChanges(planned, budget, tickS, resizePauseS);
    profileNeighbours(planned, budget);
  }

  // Free what shrinks or stops, then place what grows or starts.
  const removals = new Map<PlannedJob, TaskPlacement[]>();
  for (const job of planned) {
    if (!job.running) continue;
    if (job.target === null) {
      scratch.unreserve(job.held);
      actions.push({ kind: 'preempt', jobId: job.view.request.id });
      continue;
    }
    const remove = [...pickRemovals(job.held, 'worker', job.current.workers - job.target.workers), ...pickRemovals(job.held, 'ps', job.current.ps - job.target.ps)];
    if (remove.length > 0) {
      scratch.unreserve(remove);
      removals.set(job, remove);
    }
  }
  const index = new EvenSpreadIndex(scratch);
  for (const job of planned) {
    if (job.running || job.target === null) continue;
    const tasks = placeShrinking(index, job, job.target, { ps: 1, workers: job.alloc.minWorkers }, []);
    if (tasks !== null) actions.push({ kind: 'start', jobId: job.view.request.id, tasks, job: job.view });
  }
  for (const job of planned) {
    if (!job.running || job.target === null) continue;
    const remove = removals.get(job) ?? [];
    const kept = job.held.filter((t) => !remove.includes(t));
    const grow: PsShape = {
      ps: Math.max(0, job.target.ps - job.current.ps),
      workers: Math.max(0, job.target.workers - job.current.workers),
    };
    const add = placeShrinking(index, job, grow, { ps: 0, workers: 0 }, kept) ?? [];
    if (add.length > 0 || remove.length > 0) actions.push({ kind: 'resize', jobId: job.view.request.id, add, remove });
  }
  return actions;
}

/** The requested demand of the first rigid job in the queue that this pass did not start (every other one was tried and did not fit), or null. */
function firstRigidLeft(context: SchedulingContext, started: readonly SchedulingAction[]): ResourceVector | null {
  const startedIds = new Set(started.map((action) => action.jobId));
  for (const job of context.queuedInOrder()) {
    if (isElasticPsJob(job.request) || startedIds.has(job.request.id)) continue;
    return requestedDemand(job.request);
  }
  return null;
}

/** Estimates Q and f for every elastic PS job and records what was learned. */
function planJobs(context: SchedulingContext, views: readonly JobView[], memory: Knowledge, fits: FitCache): PlannedJob[] {
  const fitted = views.map((view) => fits.totalSteps(view));
  views.forEach((view, k) => {
    const total = fitted[k];
    if (total !== null && total !== undefined) memory.noteTotal(view.request.id, total);
  });
  const speeds = views.map((view) => fits.speed(view, memory.speedPrior(view.request.id)));
  views.forEach((view, k) => memory.noteSpeed(view.request.id, speeds[k]!));
  return views.map((view, k) => {
    const request = view.request;
    const elastic = request.elastic!;
    const unit = Math.max(1, elastic.unit);
    const workerRole = request.roles.find((r) => r.role === 'worker')!;
    const psRole = request.roles.find((r) => r.role === 'ps')!;
    const params = speeds[k]!.params;
    const remaining = estimateRemainingSteps(view, memory.priorTotal(request.id), fitted[k] ?? null);
    const held = view.phase === 'running' ? (context.cluster.tasksOf(request.id) ?? []) : [];
    const visited = new Set(view.speedSamples.map((x) => `${x.ps}:${x.workers}`));
    if (view.phase === 'running') visited.add(`${view.ps}:${view.workers}`);
    return {
      view,
      running: view.phase === 'running',
      held,
      current: { ps: view.ps, workers: view.workers },
      target: null,
      profiling: speeds[k]!.source !== 'fit',
      visited,
      alloc: {
        id: request.id,
        minWorkers: Math.max(unit, Math.ceil(elastic.minReplicas / unit) * unit),
        workerUnit: unit,
        maxWorkers: Math.floor(elastic.maxReplicas / unit) * unit,
        maxPs: elastic.maxReplicas,
        workerDemand: demandVector(workerRole.demand),
        psDemand: demandVector(psRole.demand),
        remainingSteps: remaining.steps,
        stepsPerS: (ps, workers) => asyncStepsPerS(params, ps, workers),
      },
    };
  });
}

/**
 * Running jobs whose new shape does not pay for the resize pause within one re-plan interval keep
 * their current shape, when the budget the allocation left covers it: changes that only grow are
 * reverted first (they free budget), then the others in job order.
 */
function keepWorthlessChanges(planned: readonly PlannedJob[], budget: Readonly<ResourceVector>, tickS: number, resizePauseS: number): void {
  const left: ResourceVector = [budget[0], budget[1], budget[2]];
  for (const job of planned) if (job.target !== null) subtractFrom(left, shapeVector(job.alloc, job.target));
  const candidates = planned.filter((job) => {
    if (!job.running || job.target === null) return false;
    if (job.target.ps === job.current.ps && job.target.workers === job.current.workers) return false;
    const before = job.alloc.stepsPerS(job.current.ps, job.current.workers);
    const after = job.alloc.stepsPerS(job.target.ps, job.target.workers);
    return after * (tickS - resizePauseS) <= before * tickS;
  });
  const growsOnly = (job: PlannedJob): boolean => job.target!.ps >= job.current.ps && job.target!.workers >= job.current.workers;
  for (const job of [...candidates.filter(growsOnly), ...candidates.filter((j) => !growsOnly(j))]) {
    const extra = shapeVector(job.alloc, job.current);
    subtractFrom(extra, shapeVector(job.alloc, job.target!));
    if (extra[0] <= left[0] && extra[1] <= left[1] && extra[2] <= left[2]) {
      subtractFrom(left, extra);
      job.target = job.current;
    }
  }
}

/**
 * Online profiling: a running job whose speed model is not fitted yet and whose shape would stay
 * the same moves to a neighbouring shape it has not been measured at (one PS or one worker unit
 * more or less; the fastest by its current estimate among those the budget left allows), so that
 * the resize records a new speed sample. The paper profiled jobs offline with ~10 short runs;
 * here each of the first re-plans of a job doubles as a profiling run.
 */
function profileNeighbours(planned: readonly PlannedJob[], budget: Readonly<ResourceVector>): void {
  const left: ResourceVector = [budget[0], budget[1], budget[2]];
  for (const job of planned) if (job.target !== null) subtractFrom(left, shapeVector(job.alloc, job.target));
  for (const job of planned) {
    const target = job.target;
    if (!job.running || !job.profiling || target === null) continue;
    if (target.ps !== job.current.ps || target.workers !== job.current.workers) continue;
    const { alloc } = job;
    const neighbours: PsShape[] = [
      { ps: target.ps + 1, workers: target.workers },
      { ps: target.ps, workers: target.workers + alloc.workerUnit },
      { ps: target.ps - 1, workers: target.workers },
      { ps: target.ps, workers: target.workers - alloc.workerUnit },
    ];
    // Vary the dimension measured at fewer distinct values first (a fit needs both to vary), then the fastest.
    const distinct = (pick: (shape: PsShape) => number, extra: PsShape): number => {
      const values = new Set([...job.visited].map((key) => Number(key.split(':')[pick === psOf ? 0 : 1])));
      values.add(pick(extra));
      return values.size;
    };
    let best: PsShape | null = null;
    let bestSpeed = -Infinity;
    let bestNovelty = -Infinity;
    for (const shape of neighbours) {
      if (shape.ps < 1 || shape.ps > alloc.maxPs || shape.workers < alloc.minWorkers || shape.workers > alloc.maxWorkers) continue;
      if (job.visited.has(`${shape.ps}:${shape.workers}`)) continue;
      const extra = shapeVector(alloc, shape);
      subtractFrom(extra, shapeVector(alloc, target));
      if (extra[0] > left[0] || extra[1] > left[1] || extra[2] > left[2]) continue;
      const speed = alloc.stepsPerS(shape.ps, shape.workers);
      const novelty = Math.min(distinct(psOf, shape), distinct(workersOf, shape));
      if (novelty > bestNovelty || (novelty === bestNovelty && speed > bestSpeed)) {
        best = shape;
        bestSpeed = speed;
        bestNovelty = novelty;
      }
    }
    if (best === null) continue;
    const extra = shapeVector(alloc, best);
    subtractFrom(extra, shapeVector(alloc, target));
    subtractFrom(left, extra);
    job.target = best;
  }
}

const psOf = (shape: PsShape): number => shape.ps;
const workersOf = (shape: PsShape): number => shape.workers;

/**
 * Places `want` more replicas for the job (first on nodes it already uses, then evenly on the
 * fewest new servers), dropping one PS or one unit of workers when that fails, down to `floor`;
 * the dropped one is whichever slows the job least. Null when even `floor` does not place.
 */
function placeShrinking(index: EvenSpreadIndex, job: PlannedJob, want: PsShape, floor: PsShape, kept: readonly TaskPlacement[]): TaskPlacement[] | null {
  const { alloc } = job;
  // What the job runs with besides the replicas placed here: the kept ones of a running job.
  const base: PsShape = job.running && job.target !== null
    ? { ps: Math.min(job.current.ps, job.target.ps), workers: Math.min(job.current.workers, job.target.workers) }
    : { ps: 0, workers: 0 };
  let { ps, workers } = want;
  for (;;) {
    const tasks = tryPlace(index, job, ps, workers, kept);
    if (tasks !== null) return tasks;
    const canDropWorkers = workers - alloc.workerUnit >= floor.workers;
    const canDropPs = ps - 1 >= floor.ps;
    if (!canDropWorkers && !canDropPs) return null;
    const total = (p: number, w: number): number => alloc.stepsPerS(base.ps + p, base.workers + w);
    const withoutWorkers = canDropWorkers ? total(ps, workers - alloc.workerUnit) : -Infinity;
    const withoutPs = canDropPs ? total(ps - 1, workers) : -Infinity;
    if (withoutWorkers >= withoutPs) workers -= alloc.workerUnit;
    else ps -= 1;
  }
}

/** All-or-nothing: `workers` workers and `ps` PS, first round-robin on the nodes of `kept`, the rest by the index. */
function tryPlace(index: EvenSpreadIndex, job: PlannedJob, ps: number, workers: number, kept: readonly TaskPlacement[]): TaskPlacement[] | null {
  const request = job.view.request;
  const workerDemand = request.roles.find((r) => r.role === 'worker')!.demand;
  const psDemand = request.roles.find((r) => r.role === 'ps')!.demand;
  const local: TaskPlacement[] = [];
  let workersLeft = workers;
  let psLeft = ps;
  if (kept.length > 0) {
    const count = new Map<string, number>();
    for (const task of kept) count.set(`${task.role}:${task.nodeIndex}`, (count.get(`${task.role}:${task.nodeIndex}`) ?? 0) + 1);
    const nodes = [...new Set(kept.map((t) => t.nodeIndex))].sort((a, b) => a - b);
    const spreadOn = (role: 'worker' | 'ps', demand: ReplicaDemand, wanted: number): number => {
      let placed = 0;
      const open = new Set(nodes);
      while (placed < wanted && open.size > 0) {
        // The open node holding the fewest of this role gets the next replica (keeps the spread even).
        let best = -1;
        for (const n of open) if (best < 0 || (count.get(`${role}:${n}`) ?? 0) < (count.get(`${role}:${best}`) ?? 0)) best = n;
        const task = index.reserveOn(best, role, demand, request.gpuTypes);
        if (task === null) {
          open.delete(best);
          continue;
        }
        local.push(task);
        count.set(`${role}:${best}`, (count.get(`${role}:${best}`) ?? 0) + 1);
        placed++;
      }
      return placed;
    };
    workersLeft -= spreadOn('worker', workerDemand, workersLeft);
    psLeft -= spreadOn('ps', psDemand, psLeft);
  }
  const rest = index.place({ jobId: request.id, gpuTypes: request.gpuTypes, workerDemand, psDemand, workers: workersLeft, ps: psLeft });
  if (rest === null) {
    index.unreserve(local);
    return null;
  }
  return [...local, ...rest];
}

/** `count` tasks of a role to remove, each from the node holding the most of them (then the highest index). */
function pickRemovals(held: readonly TaskPlacement[], role: 'worker' | 'ps', count: number): TaskPlacement[] {
  if (count <= 0) return [];
  const byNode = new Map<number, TaskPlacement[]>();
  for (const task of held) {
    if (task.role !== role) continue;
    const list = byNode.get(task.nodeIndex);
    if (list) list.push(task);
    else byNode.set(task.nodeIndex, [task]);
  }
  const removed: TaskPlacement[] = [];
  for (let k = 0; k < count; k++) {
    let best: number | null = null;
    for (const [node, list] of byNode) {
      if (list.length === 0) continue;
      const bestList = best === null ? null : byNode.get(best)!;
      if (bestList === null || list.length > bestList.length || (list.length === bestList.length && node > best!)) best = node;
    }
    if (best === null) break;
    removed.push(byNode.get(best)!.pop()!);
  }
  return removed;
}

/** Free GPU, CPU and memory over the scratch's schedulable nodes. */
function freeCapacity(scratch: CapacityScratch): ResourceVector {
  const free: ResourceVector = [0, 0, 0];
  for (let i = 0; i < scratch.nodes.length; i++) {
    if (!scratch.schedulable(i)) continue;
    const f = scratch.free(i);
    free[0] += scratch.freeGpuMilli(i);
    free[1] += f.cpuMilli;
    free[2] += f.memMiB;
  }
  return free;
}

function demandVector(demand: ReplicaDemand): ResourceVector {
  return [demand.gpus * demand.gpuMilli, demand.cpuMilli, demand.memMiB];
}

function taskVector(task: TaskPlacement): ResourceVector {
  return [task.gpuIndices.length * task.demand.gpuMilli, task.demand.cpuMilli, task.demand.memMiB];
}

function requestedDemand(request: JobRequest): ResourceVector {
  const total: ResourceVector = [0, 0, 0];
  for (const role of request.roles) {
    const d = demandVector(role.demand);
    addTo(total, [d[0] * role.replicas, d[1] * role.replicas, d[2] * role.replicas]);
  }
  return total;
}

function shapeVector(alloc: AllocationJob, shape: PsShape): ResourceVector {
  const w = alloc.workerDemand;
  const p = alloc.psDemand;
  return [w[0] * shape.workers + p[0] * shape.ps, w[1] * shape.workers + p[1] * shape.ps, w[2] * shape.workers + p[2] * shape.ps];
}

function addTo(a: ResourceVector, b: Readonly<ResourceVector>): void {
  a[0] += b[0];
  a[1] += b[1];
  a[2] += b[2];
}

function subtractFrom(a: ResourceVector, b: Readonly<ResourceVector>): void {
  a[0] -= b[0];
  a[1] -= b[1];
  a[2] -= b[2];
}
