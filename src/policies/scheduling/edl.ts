import { InvariantError } from '../../errors.js';
import { NO_TASKS, type TaskPlacement } from '../../model/allocation.js';
import { ReplayScratch } from '../plan-scratch.js';
import type { JobRequest, ReplicaDemand } from '../../model/job-spec.js';
import {
  placementRequestOf,
  type JobView,
  type PlacementRequest,
  type PlainSchedulingPolicy,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';

/**
 * `edl`: PaddlePaddle EDL elastic scheduling (REFERENCE §3, seed 002). Every pass, on a scratch copy:
 * (a) queued jobs start, in submission order, at their minimum trainer count; a job that does not fit
 *     takes trainer units from the most fulfilled running jobs (down to their min) if that frees
 *     enough, otherwise it and every job behind it wait (the seed: "new jobs wait");
 * (b) elastic jobs in ascending fulfillment grow by one unit each, while allocated GPU, CPU and memory
 *     stay at or below L x capacity;
 * (c) elastic jobs in descending fulfillment shrink by one unit each while the cluster is over L;
 * (a)-(c) repeat until nothing changes; each job then gets at most one action (a start, or a net
 * resize that only adds or only removes).
 *
 * Choices the seed leaves open (documented here, tested in test/policies/edl.test.ts):
 * - A queued job's fulfillment is {@link QUEUED_FULFILLMENT} (-1): below every running job. Queued
 *   jobs are served in submission order rather than by EDL's resource tie-breaks, which would let a
 *   stream of small jobs starve a large one.
 * - Only trainers (workers) scale, by the job's `elastic.unit`; PS and chief replicas keep their
 *   requested counts (EDL scaled trainers only). A job without `request.elastic` has min = max = its
 *   requested workers: fulfillment 1, never resized, never a donor.
 * - Tie-breaks compare one trainer's demand (EDL compared trainer resource requests): GPUs, then CPU,
 *   then memory, then job id; the descending walk uses the exact reverse order.
 * - Starts need only fit (they may use the 1 - L headroom, which is what the headroom is for); step
 *   (c) then trims elastic jobs back to L. Scale-up obeys L for GPUs too (EDL's code let GPUs fill to
 *   100% and then scaled down above L, which can flip-flop); capacity is the installed capacity.
 * - Step (c) shrinks a job only when an over-L resource is one its trainers use.
 * - Within one pass a job moves in one direction only: a job that gave units (as a donor or in (c))
 *   can only take back the last unit it gave, on the very resources it held (when (c) overshot with
 *   a large unit of another job), and shrinking a job that grew in the pass undoes its growth first.
 *   So an action never both adds and removes, and a second pass over the result returns nothing.
 * - Donors lose units in removal order "newest first" (units added in this pass, then the trainer
 *   tasks the job got last); after a fit is found, units that turn out not to be needed are kept.
 */
export function createEdl(options: EdlOptions = {}): PlainSchedulingPolicy {
  const maxLoad = options.maxLoad ?? EDL_MAX_LOAD;
  if (!(maxLoad > 0 && maxLoad <= 1)) throw new InvariantError(`edl: maxLoad ${maxLoad} must be in (0, 1]`);
  // Running elastic jobs in start order, kept from the changes instead of picked out of every running job at every pass.
  const elastic = new RunningElastic();
  return {
    name: 'edl',
    smallestStart: (request) => (request.elastic ? placementRequestOf(request, trainerBounds(request).min) : null),
    tickS: options.tickS ?? EDL_TICK_S,
    schedule: (context) => planEdl(context, maxLoad, elastic.sync(context)),
  };
}

/** Seconds between EDL passes: 30 s, as in later EDL versions (the first controller ran every 5 s). */
export const EDL_TICK_S = 30;

/** EDL's max-load target L: growth keeps allocated GPU, CPU and memory at or below this share of capacity. */
export const EDL_MAX_LOAD = 0.97;

/** Fulfillment of a job that waits to start: below every running job's fulfillment in [0, 1]. */
export const QUEUED_FULFILLMENT = -1;

/** Upper bound on (a)-(c) rounds in one pass; the loop provably stops long before (see {@link planEdl}). */
const MAX_ROUNDS = 100_000;

/** Options of {@link createEdl}. */
export interface EdlOptions {
  /** Max-load target L in (0, 1] ({@link EDL_MAX_LOAD}). */
  readonly maxLoad?: number;
  /** Seconds between passes ({@link EDL_TICK_S}). */
  readonly tickS?: number;
}

/** Trainer bounds of a job: min and max workers and the step between allowed counts. */
export interface TrainerBounds {
  readonly min: number;
  readonly max: number;
  readonly unit: number;
}

/** What EDL ranks a job by: its trainer count, bounds and one trainer's demand. */
export interface EdlRank {
  readonly id: string;
  readonly workers: number;
  readonly bounds: TrainerBounds;
  /** One trainer's demand (the tie-breaks compare it). */
  readonly demand: ReplicaDemand;
}

/** The job's trainer bounds: `request.elastic`, or min = max = unit = its requested workers when rigid. */
export function trainerBounds(request: Pick<JobRequest, 'id' | 'roles' | 'elastic'>): TrainerBounds {
  if (request.elastic) return { min: request.elastic.minReplicas, max: request.elastic.maxReplicas, unit: request.elastic.unit };
  const workers = workerRole(request).replicas;
  return { min: workers, max: workers, unit: workers };
}

/** EDL's fulfillment (cur - min) / (max - min) in [0, 1]; 1 when min == max. */
export function fulfillment(workers: number, bounds: TrainerBounds): number {
  return bounds.max === bounds.min ? 1 : (workers - bounds.min) / (bounds.max - bounds.min);
}

/**
 * EDL's ascending order: lower fulfillment first (compared exactly, as fractions); ties go to fewer
 * GPUs per trainer, then less CPU, then less memory per trainer, then the smaller id.
 */
export function compareFulfillment(a: EdlRank, b: EdlRank): number {
  const [aNum, aDen] = fraction(a);
  const [bNum, bDen] = fraction(b);
  const byFulfillment = aNum * bDen - bNum * aDen;
  if (byFulfillment !== 0) return byFulfillment;
  const byGpu = a.demand.gpus * a.demand.gpuMilli - b.demand.gpus * b.demand.gpuMilli;
  if (byGpu !== 0) return byGpu;
  if (a.demand.cpuMilli !== b.demand.cpuMilli) return a.demand.cpuMilli - b.demand.cpuMilli;
  if (a.demand.memMiB !== b.demand.memMiB) return a.demand.memMiB - b.demand.memMiB;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function fraction(rank: EdlRank): [number, number] {
  const { min, max } = rank.bounds;
  return max === min ? [1, 1] : [rank.workers - min, max - min];
}

/**
 * One EDL pass. The loop stops: (b) grows only while allocation stays <= L, (c) shrinks only while it
 * is > L, so only starts (finitely many) push it over L; between starts (b) only adds, up to max.
 */
function planEdl(context: SchedulingContext, maxLoad: number, runningElastic: Iterable<JobView>): SchedulingAction[] {
  const plan = new EdlPlan(context, maxLoad, runningElastic);
  const queue = new QueueHead(context.queuedInOrder());
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const started = startQueued(plan, queue);
    const grown = scaleUp(plan);
    const shrunk = scaleDown(plan);
    if (!started && !grown && !shrunk) break;
  }
  return plan.actions();
}

/**
 * The queue read lazily in submission order during one pass. The jobs a pass starts are always the
 * queue's first ones (each round starts jobs in order and stops at the first that cannot start), so
 * every round resumes at the job the last one stopped at instead of walking the queue again.
 */
class QueueHead {
  private readonly iterator: Iterator<JobView>;
  private current: JobView | undefined;

  constructor(queued: Iterable<JobView>) {
    this.iterator = queued[Symbol.iterator]();
    this.current = this.read();
  }

  /** The first job not started in this pass, or undefined when none is left. */
  get head(): JobView | undefined {
    return this.current;
  }

  /** Moves past the head (it started). */
  advance(): void {
    this.current = this.read();
  }

  private read(): JobView | undefined {
    const next = this.iterator.next();
    return next.done === true ? undefined : next.value;
  }
}

/** (a) Starts queued jobs in submission order at their min, with donors if needed; stops at the first that cannot start. */
function startQueued(plan: EdlPlan, queue: QueueHead): boolean {
  let changed = false;
  for (let view = queue.head; view !== undefined; view = queue.head) {
    const { request } = view;
    if (plan.has(request.id)) {
      queue.advance();
      continue;
    }
    const bounds = trainerBounds(request);
    const gang = placementRequestOf(request, request.elastic ? bounds.min : undefined);
    const tasks = plan.scratch.place(gang);
    if (tasks !== null) {
      plan.addStart(request, bounds, tasks, view);
      queue.advance();
      changed = true;
      continue;
    }
    if (!startWithDonors(plan, view, bounds, gang)) break;
    queue.advance();
    changed = true;
  }
  return changed;
}

/** A unit a donor would give: trainer tasks it got in this pass (`fromAdded`) or held before it. */
interface DonatedUnit {
  readonly job: JobPlan;
  readonly tasks: readonly TaskPlacement[];
  readonly fromAdded: boolean;
}

/**
 * Starts the job of `request` at its min (the placement request `gang`) by taking units from the most fulfilled elastic jobs (never below their
 * min). Works on a copy of the plan's scratch; commits only when the job fits, and then gives back
 * units that turned out not to be needed. Returns false (changing nothing) when donors cannot free enough.
 */
function startWithDonors(plan: EdlPlan, view: JobView, bounds: TrainerBounds, gang: PlacementRequest): boolean {
  const { request } = view;
  if (!plan.anyDonor() || !plan.donorsCouldFree(gang)) return false;
  const trial = plan.scratch.fork();
  const given = new Map<JobPlan, number>();
  const donated: DonatedUnit[] = [];
  let fits = false;
  while (!fits) {
    const donor = mostFulfilledDonor(plan.elasticJobs(), given);
    if (donor === null) return false;
    const count = given.get(donor) ?? 0;
    const unit = donor.removableUnits()[count];
    if (!unit) throw new InvariantError(`edl: job ${donor.request.id} has no unit left to give`);
    given.set(donor, count + 1);
    donated.push({ job: donor, ...unit });
    trial.unreserve(unit.tasks);
    fits = trial.place(gang) !== null;
  }
  // Keep units whose removal the start does not need (fragmentation can make early ones useless).
  let needed = donated;
  for (const unit of donated) {
    const without = needed.filter((u) => u !== unit);
    if (fitsAfter(plan, without, gang)) needed = without;
  }
  const committed = plan.scratch.fork();
  for (const unit of needed) committed.unreserve(unit.tasks);
  const tasks = committed.place(gang);
  if (tasks === null) throw new InvariantError(`edl: job ${request.id} no longer fits after its donors gave their units`);
  plan.adoptScratch(committed);
  for (const unit of needed) plan.commitRemoval(unit);
  plan.addStart(request, bounds, tasks, view);
  return true;
}

function fitsAfter(plan: EdlPlan, units: readonly DonatedUnit[], request: PlacementRequest): boolean {
  const trial = plan.scratch.fork();
  for (const unit of units) trial.unreserve(unit.tasks);
  return trial.place(request) !== null;
}

/** The most fulfilled elastic job that can still give a unit, counting units already given in the trial. */
function mostFulfilledDonor(jobs: readonly JobPlan[], given: ReadonlyMap<JobPlan, number>): JobPlan | null {
  let best: JobPlan | null = null;
  let bestRank: EdlRank | null = null;
  for (const job of jobs) {
    const workers = job.workers - (given.get(job) ?? 0) * job.bounds.unit;
    if (workers - job.bounds.unit < job.bounds.min) continue;
    const rank: EdlRank = { id: job.request.id, workers, bounds: job.bounds, demand: job.demand };
    if (bestRank === null || compareFulfillment(rank, bestRank) > 0) {
      best = job;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * (b) Grows each elastic job by one unit, least fulfilled first, where it fits and allocation stays
 * <= L. A job that gave units in this pass can only take back the last unit it gave, on the very
 * resources it held (so its action never both adds and removes).
 */
function scaleUp(plan: EdlPlan): boolean {
  let changed = false;
  for (const job of sortedAscending(plan.elasticJobs())) {
    if (job.workers + job.bounds.unit > job.bounds.max) continue;
    if (!plan.load.fitsUnderTarget(job.unitUsage)) continue;
    if (job.removedUnits.length > 0) {
      if (plan.restoreUnit(job)) changed = true;
      continue;
    }
    const tasks = plan.scratch.place(job.unitRequest());
    if (tasks === null) continue;
    plan.addUnit(job, tasks);
    changed = true;
  }
  return changed;
}

/** (c) Shrinks each elastic job by one unit, most fulfilled first, while a resource it uses is over L. */
function scaleDown(plan: EdlPlan): boolean {
  let changed = false;
  if (!plan.load.overTarget()) return false;
  for (const job of sortedAscending(plan.elasticJobs()).reverse()) {
    // Shrinking only lowers the load: once no resource is over L, no later job shrinks.
    if (!plan.load.overTarget()) break;
    if (job.workers - job.bounds.unit < job.bounds.min) continue;
    if (!plan.load.overTargetFor(job.unitUsage)) continue;
    const unit = job.removableUnits()[0];
    if (!unit) throw new InvariantError(`edl: job ${job.request.id} has no unit left to give`);
    plan.scratch.unreserve(unit.tasks);
    plan.commitRemoval({ job, ...unit });
    changed = true;
  }
  return changed;
}

function sortedAscending(jobs: readonly JobPlan[]): JobPlan[] {
  return [...jobs].sort((a, b) => compareFulfillment(a.rank(), b.rank()));
}

/** GPU (thousandths), CPU (thousandths of a core) and memory (MiB) of some tasks. */
interface Usage {
  readonly gpuMilli: number;
  readonly cpuMilli: number;
  readonly memMiB: number;
}

function usageOf(tasks: readonly TaskPlacement[]): Usage {
  let gpuMilli = 0;
  let cpuMilli = 0;
  let memMiB = 0;
  for (const task of tasks) {
    gpuMilli += task.gpuIndices.length * task.demand.gpuMilli;
    cpuMilli += task.demand.cpuMilli;
    memMiB += task.demand.memMiB;
  }
  return { gpuMilli, cpuMilli, memMiB };
}

/** Allocated resources of the planned cluster against the max-load target. */
class LoadTracker {
  private gpuMilli: number;
  private cpuMilli: number;
  private memMiB: number;
  private readonly capGpuMilli: number;
  private readonly capCpuMilli: number;
  private readonly capMemMiB: number;

  constructor(context: SchedulingContext, maxLoad: number) {
    const { cluster } = context;
    this.gpuMilli = Math.round(cluster.allocatedGpus * 1000);
    this.cpuMilli = cluster.allocatedCpuMilli;
    this.memMiB = cluster.allocatedMemMiB;
    this.capGpuMilli = maxLoad * cluster.totalGpus * 1000;
    this.capCpuMilli = maxLoad * cluster.totalCpuMilli;
    this.capMemMiB = maxLoad * cluster.totalMemMiB;
  }

  add(usage: Usage, sign: 1 | -1): void {
    this.gpuMilli += sign * usage.gpuMilli;
    this.cpuMilli += sign * usage.cpuMilli;
    this.memMiB += sign * usage.memMiB;
  }

  /** True when adding `usage` keeps every resource it uses at or below the target. */
  fitsUnderTarget(usage: Usage): boolean {
    return (
      (usage.gpuMilli === 0 || this.gpuMilli + usage.gpuMilli <= this.capGpuMilli) &&
      (usage.cpuMilli === 0 || this.cpuMilli + usage.cpuMilli <= this.capCpuMilli) &&
      (usage.memMiB === 0 || this.memMiB + usage.memMiB <= this.capMemMiB)
    );
  }

  /** True when some resource is over the target. */
  overTarget(): boolean {
    return this.gpuMilli > this.capGpuMilli || this.cpuMilli > this.capCpuMilli || this.memMiB > this.capMemMiB;
  }

  /** True when a resource that `usage` uses is over the target. */
  overTargetFor(usage: Usage): boolean {
    return (
      (usage.gpuMilli > 0 && this.gpuMilli > this.capGpuMilli) ||
      (usage.cpuMilli > 0 && this.cpuMilli > this.capCpuMilli) ||
      (usage.memMiB > 0 && this.memMiB > this.capMemMiB)
    );
  }
}

/** A job's planned change in this pass. */
class JobPlan {
  readonly demand: ReplicaDemand;
  readonly unitUsage: Usage;
  /** Trainer tasks held at the start of the pass and still kept, in allocation order. */
  readonly kept: TaskPlacement[];
  /** Units of tasks held at the start of the pass that the plan gives up, in the order given. */
  readonly removedUnits: (readonly TaskPlacement[])[] = [];
  /** Task groups added in this pass, oldest first; for a starting job the first is its whole start gang. */
  readonly added: TaskPlacement[][] = [];
  workers: number;
  /** A starting job's view, as the policy was given it. */
  startView: JobView | undefined = undefined;

  constructor(
    readonly request: JobRequest,
    readonly bounds: TrainerBounds,
    readonly starting: boolean,
    held: readonly TaskPlacement[],
  ) {
    const demand = workerRole(request).demand;
    this.demand = demand;
    this.unitUsage = {
      gpuMilli: bounds.unit * demand.gpus * demand.gpuMilli,
      cpuMilli: bounds.unit * demand.cpuMilli,
      memMiB: bounds.unit * demand.memMiB,
    };
    this.kept = held.filter((t) => t.role === 'worker');
    this.workers = this.kept.length;
  }

  get elastic(): boolean {
    return this.bounds.max > this.bounds.min;
  }

  rank(): EdlRank {
    return { id: this.request.id, workers: this.workers, bounds: this.bounds, demand: this.demand };
  }

  unitRequest(): PlacementRequest {
    const replicas = Array.from({ length: this.bounds.unit }, () => ({ role: 'worker' as const, demand: this.demand }));
    return { jobId: this.request.id, gpuTypes: this.request.gpuTypes, replicas };
  }

  /** Units this job could give, in the order it gives them: this pass's additions newest first, then its newest held trainers. */
  removableUnits(): { tasks: readonly TaskPlacement[]; fromAdded: boolean }[] {
    const units: { tasks: readonly TaskPlacement[]; fromAdded: boolean }[] = [];
    for (let k = this.added.length - 1; k >= (this.starting ? 1 : 0); k--) units.push({ tasks: this.added[k]!, fromAdded: true });
    const { unit } = this.bounds;
    for (let end = this.kept.length; end - unit >= 0; end -= unit) units.push({ tasks: this.kept.slice(end - unit, end), fromAdded: false });
    return units.slice(0, Math.max(0, Math.floor((this.workers - this.bounds.min) / unit)));
  }
}

/** The plan of one pass: a replayable scratch, the load, and the jobs that start or change. */
/** The running jobs with min < max trainers, in start order (the running list's), kept from the changes. */
class RunningElastic {
  private readonly jobs = new Map<string, JobView>();
  private seeded = false;

  /** Takes in the pass's changes and returns the jobs (the first pass reads the running list). */
  sync(context: SchedulingContext): Iterable<JobView> {
    if (!this.seeded) {
      for (const view of context.running) if (isElastic(view)) this.jobs.set(view.request.id, view);
      this.seeded = true;
    }
    const { changes } = context;
    for (const list of [changes.stopped, changes.queued, changes.resized]) {
      for (const view of list) if (view.phase !== 'running') this.jobs.delete(view.request.id);
    }
    // Started jobs join the end in the order they started (a job started twice: where it started last).
    for (const view of changes.started) {
      this.jobs.delete(view.request.id);
      if (view.phase === 'running' && isElastic(view)) this.jobs.set(view.request.id, view);
    }
    return this.jobs.values();
  }
}

function isElastic(view: JobView): boolean {
  const bounds = trainerBounds(view.request);
  return bounds.max !== bounds.min;
}

class EdlPlan {
  scratch: ReplayScratch;
  readonly load: LoadTracker;
  private readonly jobs = new Map<string, JobPlan>();
  private readonly order: JobPlan[] = [];

  /** @param runningElastic the running jobs with min < max trainers, in start order */
  constructor(context: SchedulingContext, maxLoad: number, runningElastic: Iterable<JobView>) {
    this.scratch = new ReplayScratch(context);
    this.load = new LoadTracker(context, maxLoad);
    for (const view of runningElastic) {
      this.track(new JobPlan(view.request, trainerBounds(view.request), false, context.cluster.tasksOf(view.request.id) ?? []));
    }
  }

  has(jobId: string): boolean {
    return this.jobs.has(jobId);
  }

  /** True when some elastic job could give a unit (runs above its min by at least one unit). */
  anyDonor(): boolean {
    return this.order.some((j) => j.elastic && j.workers - j.bounds.unit >= j.bounds.min);
  }

  /** Elastic jobs (min < max), running or starting, in the order they entered the plan. */
  elasticJobs(): JobPlan[] {
    return this.order.filter((j) => j.elastic);
  }

  /** A queued job starts on `tasks` (`view`: the policy's view of it, which its start carries). */
  addStart(request: JobRequest, bounds: TrainerBounds, tasks: TaskPlacement[], view: JobView): void {
    const job = new JobPlan(request, bounds, true, []);
    job.startView = view;
    job.added.push(tasks);
    let workers = 0;
    for (const task of tasks) if (task.role === 'worker') workers++;
    job.workers = workers;
    this.load.add(usageOf(tasks), 1);
    this.track(job);
  }

  addUnit(job: JobPlan, tasks: TaskPlacement[]): void {
    job.added.push(tasks);
    job.workers += job.bounds.unit;
    this.load.add(usageOf(tasks), 1);
  }

  /** Records a unit the job gives (its capacity must already be back in the scratch). */
  commitRemoval(unit: DonatedUnit): void {
    const { job, tasks, fromAdded } = unit;
    if (fromAdded) {
      const index = job.added.indexOf(tasks as TaskPlacement[]);
      if (index < (job.starting ? 1 : 0)) throw new InvariantError(`edl: job ${job.request.id} cannot give back that unit`);
      job.added.splice(index, 1);
    } else {
      for (const task of tasks) {
        const index = job.kept.indexOf(task);
        if (index < 0) throw new InvariantError(`edl: job ${job.request.id} does not hold that task`);
        job.kept.splice(index, 1);
      }
      job.removedUnits.push(tasks);
    }
    job.workers -= job.bounds.unit;
    this.load.add(usageOf(tasks), -1);
  }

  /** True unless free capacity plus every unit donors could give is short of the request in GPU, CPU or memory. */
  donorsCouldFree(request: PlacementRequest): boolean {
    let gpuMilli = 0;
    let cpuMilli = 0;
    let memMiB = 0;
    for (const replica of request.replicas) {
      gpuMilli += replica.demand.gpus * replica.demand.gpuMilli;
      cpuMilli += replica.demand.cpuMilli;
      memMiB += replica.demand.memMiB;
    }
    const scratch = this.scratch.scratch;
    for (let i = 0; i < scratch.nodes.length; i++) {
      if (!scratch.schedulable(i)) continue;
      const free = scratch.free(i);
      gpuMilli -= scratch.freeGpuMilli(i);
      cpuMilli -= free.cpuMilli;
      memMiB -= free.memMiB;
    }
    for (const job of this.elasticJobs()) {
      for (const unit of job.removableUnits()) {
        const usage = usageOf(unit.tasks);
        gpuMilli -= usage.gpuMilli;
        cpuMilli -= usage.cpuMilli;
        memMiB -= usage.memMiB;
      }
    }
    return gpuMilli <= 0 && cpuMilli <= 0 && memMiB <= 0;
  }

  /**
   * Takes back the last unit the job gave in this pass, if its resources are still free: rebuilds the
   * scratch without that removal and keeps the result only if every other placement comes out the same.
   */
  restoreUnit(job: JobPlan): boolean {
    const tasks = job.removedUnits[job.removedUnits.length - 1];
    if (!tasks) return false;
    const rebuilt = this.scratch.withoutRemoval(tasks);
    if (rebuilt === null) return false;
    this.scratch = rebuilt;
    job.removedUnits.pop();
    job.kept.push(...tasks);
    job.workers += job.bounds.unit;
    this.load.add(usageOf(tasks), 1);
    return true;
  }

  adoptScratch(scratch: ReplayScratch): void {
    this.scratch = scratch;
  }

  /** At most one action per job: resizes of running jobs (in start order), then starts (in submission order). */
  actions(): SchedulingAction[] {
    const resizes: SchedulingAction[] = [];
    const starts: SchedulingAction[] = [];
    for (const job of this.order) {
      // Most jobs of a pass start on one gang and give nothing: their lists as they are.
      const add = job.added.length === 1 ? job.added[0]! : job.added.flat();
      const remove = job.removedUnits.length === 0 ? NO_TASKS : job.removedUnits.flat();
      if (job.starting) {
        starts.push({ kind: 'start', jobId: job.request.id, tasks: add, job: job.startView });
      } else if (add.length > 0 || remove.length > 0) {
        if (add.length > 0 && remove.length > 0) throw new InvariantError(`edl: job ${job.request.id} would both grow and shrink`);
        resizes.push({ kind: 'resize', jobId: job.request.id, add, remove });
      }
    }
    return resizes.length === 0 ? starts : [...resizes, ...starts];
  }

  private track(job: JobPlan): void {
    this.jobs.set(job.request.id, job);
    this.order.push(job);
  }
}

function workerRole(request: Pick<JobRequest, 'id' | 'roles'>): JobRequest['roles'][number] {
  const role = request.roles.find((r) => r.role === 'worker');
  if (!role) throw new InvariantError(`job ${request.id} has no worker role`);
  return role;
}
