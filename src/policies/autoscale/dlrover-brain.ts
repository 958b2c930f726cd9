/**
 * `dlrover-brain`: DLRover's auto-scaling of asynchronous PS jobs (REFERENCE §2, seed 000). A job is
 * managed when it is a PS job with elastic workers whose optimize mode is not `manual` (a job that
 * names none gets the policy's `mode`). Stages:
 * 1. create, as the job is submitted: single-job mode sizes 1 PS and 1 worker from its budget (the
 *    local optimizer); cluster mode from the history of the same user and dataset in the last 7
 *    days, else the cold plan (the brain service);
 * 2. initial estimation, once it has trained ~3 minutes: PS and worker counts and sizes from what
 *    the chief and the PS used;
 * 3. running-stage tuning, checked every 30 s and planned at most every 300 s once the worker count
 *    has been stable 60 s: a memory-hot PS gets more memory before the OOM killer comes, a CPU-hot PS
 *    is replaced by a bigger one (a PS change at most once an hour), workers are added while the PS
 *    have CPU headroom and the last addition paid, removed when a PS is exhausted.
 * Workers join and leave a running job without pausing it; a PS change pauses it for a checkpoint,
 * the new PS set and the checkpoint's load (REFERENCE §2, "PS scaling"); a plan changing both makes
 * the PS change first and the workers' at the next check after it. A scale-up that cannot be
 * placed stays pending; after 900 s it is asked again with half the CPU and memory (floors 4 cores,
 * 6 GiB). The policy reads only sampled records, never the jobs' truth.
 */
import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { JobRequest, OptimizeMode, ReplicaDemand, Role, RoleSpec } from '../../model/job-spec.js';
import type { Decision } from '../decision.js';
import type { JobView, ObservingContext } from '../types.js';
import { recordsSince, workersIn } from './brain-observe.js';
import { speedOf, type JobReading, type ResourcePlan, type RolePlan } from './brain-plan.js';
import { brainCreate, brainInitial, brainRunning, type HistoryUsage } from './brain-service.js';
import { BRAIN_SERVICE, JOB_MASTER } from './dlrover-constants.js';
import { localCreate, localInitial, localRunning, memoryHotPs } from './local-optimizer.js';
import type { AutoscalePolicy, CreatePlan } from './types.js';

/** What the brain service reads of past jobs: those of a user and dataset finished within `withinS` before `nowS`. */
export interface BrainHistory {
  similar(user: string, dataset: string, withinS: number, nowS: number): readonly HistoryUsage[];
}

/** Options of `dlrover-brain`. */
export interface DlroverBrainOptions {
  /** The mode of jobs that name no optimize mode: the local optimizer (`single-job`, DLRover's default) or the brain service (`cluster`). */
  readonly mode?: Exclude<OptimizeMode, 'manual'>;
  /** Seconds between two checks (JOB_MASTER.checkS). */
  readonly checkS?: number;
  /** Seconds between two plans of a job at least (JOB_MASTER.planIntervalS). */
  readonly planIntervalS?: number;
  /** Seconds of training before the initial estimation (JOB_MASTER.estimateAfterS). */
  readonly estimateAfterS?: number;
  /** Seconds between two PS changes at least (JOB_MASTER.psChangeIntervalS). */
  readonly psChangeIntervalS?: number;
  /** The history the brain service sizes new jobs from; absent: every job gets the cold plan. */
  readonly history?: BrainHistory;
}

/** Where a managed job stands. */
interface JobState {
  readonly mode: Exclude<OptimizeMode, 'manual'>;
  stage: 'estimate' | 'running';
  /** When it was first seen training, seconds. */
  trainingSinceS: number | null;
  /** When its tasks last changed (records before it are of another shape), seconds. */
  shapeSinceS: number;
  /** Its shape then, to see changes the brain did not make (recovery, restarts). */
  shapeKey: string;
  lastPlanS: number;
  lastWorkerChangeS: number;
  lastPsChangeS: number;
  beforeLastAddition: JobReading['beforeLastAddition'];
  /** A scale-up that could not be placed: since when, and at what size. */
  pending: { readonly sinceS: number; plan: ResourcePlan } | null;
}

/** Creates the policy. */
export function createDlroverBrain(options: DlroverBrainOptions = {}): AutoscalePolicy {
  const defaultMode = options.mode ?? 'single-job';
  const planIntervalS = options.planIntervalS ?? JOB_MASTER.planIntervalS;
  const estimateAfterS = options.estimateAfterS ?? JOB_MASTER.estimateAfterS;
  const psChangeIntervalS = options.psChangeIntervalS ?? JOB_MASTER.psChangeIntervalS;
  const states = new Map<string, JobState>();
  /** Jobs it manages that have not ended: sized at submission, or first seen running. */
  const managed = new Set<string>();

  const modeOf = (request: JobRequest): Exclude<OptimizeMode, 'manual'> | null => {
    if (request.kind !== 'ps' || request.elastic === null || request.optimizeMode === 'manual') return null;
    return request.optimizeMode ?? defaultMode;
  };

  const stateOf = (job: JobView, nowS: number): JobState | null => {
    let state = states.get(job.request.id);
    if (state !== undefined) return state;
    const mode = modeOf(job.request);
    if (mode === null) return null;
    managed.add(job.request.id);
    state = { mode, stage: 'estimate', trainingSinceS: null, shapeSinceS: nowS, shapeKey: '', lastPlanS: -Infinity, lastWorkerChangeS: nowS, lastPsChangeS: -Infinity, beforeLastAddition: null, pending: null };
    states.set(job.request.id, state);
    return state;
  };

  return {
    name: 'dlrover-brain',
    tickS: options.checkS ?? JOB_MASTER.checkS,
    active: () => managed.size > 0,
    createPlan(request: JobRequest, nowS: number): CreatePlan | null {
      const mode = modeOf(request);
      if (mode === null) return null;
      managed.add(request.id);
      const limits = budgetOf(request, mode);
      if (mode === 'single-job') {
        const plan = localCreate(limits.cpuMilli, limits.memMiB);
        return { roles: rolesFor(request, plan.ps, plan.worker), reason: `create: 1 PS and 1 worker of ${plan.ps.cpuMilli / 1000} cores from a ${limits.cpuMilli / 1000}-core budget` };
      }
      const history = options.history && request.dataset !== undefined ? options.history.similar(request.user, request.dataset, BRAIN_SERVICE.historyDays * 86_400, nowS) : [];
      const plan = brainCreate(history);
      return { roles: rolesFor(request, plan.ps, plan.worker), reason: `create: ${plan.reason}` };
    },
    autoscale(context: ObservingContext): Decision[] {
      const decisions: Decision[] = [];
      // One scratch for the pass: the jobs' plans share the free capacity they are placed in.
      let scratch: CapacityScratch | null = null;
      const scratchOf = (): CapacityScratch => (scratch ??= context.scratch());
      // Only the jobs it manages are read (a pass costs them, not the running list); those that
      // ended are forgotten, so the policy goes idle when none is left.
      for (const id of managed) {
        const job = context.job(id);
        if (job === undefined || job.phase === 'completed' || job.phase === 'failed') {
          managed.delete(id);
          states.delete(id);
          continue;
        }
        if (job.phase !== 'running') continue;
        const state = stateOf(job, context.nowS);
        if (state === null) continue;
        context.listen(job.request.id);
        const tasks = context.cluster.tasksOf(job.request.id) ?? [];
        const key = shapeKeyOf(tasks);
        if (key !== state.shapeKey) {
          if (workersOf(tasks) !== workersOfKey(state.shapeKey)) state.lastWorkerChangeS = context.nowS;
          state.shapeKey = key;
          state.shapeSinceS = context.nowS;
        }
        if (job.paused) continue;
        state.trainingSinceS ??= context.nowS;
        const psRanked = psTasksOf(job, tasks);
        const reading = readingOf(job, tasks, psRanked, state, context);
        const plan = nextPlan(state, reading, context.nowS);
        if (plan === null) continue;
        const decision = decide(context, scratchOf(), job, tasks, psRanked, reading, plan, state);
        if (decision !== null) decisions.push(decision);
      }
      return decisions;
    },
  };

  /** The plan due for the job now, if any (the pending one first). */
  function nextPlan(state: JobState, reading: JobReading, nowS: number): ResourcePlan | null {
    if (state.pending !== null) {
      if (nowS - state.pending.sinceS >= JOB_MASTER.pendingRelaunchS) state.pending = { sinceS: nowS, plan: halved(state.pending.plan) };
      return state.pending.plan;
    }
    if (reading.records.length === 0) return null;
    // OOM risk is checked at every check, whatever the stage and the plan interval: the kill would not wait.
    const memHot = memoryHotPs(reading);
    if (memHot.length > 0) {
      const migrate = state.mode === 'cluster' ? memHot.map((m) => ({ ...m, memMiB: reading.psMemMiB[m.rank]! + BRAIN_SERVICE.memStepMiB })) : memHot;
      return { migrate, reason: `OOM risk: PS memory over ${BRAIN_SERVICE.hotPsMemUtil} of its limit in ${BRAIN_SERVICE.utilRecords} records: ${migrate.map((m) => `PS ${m.rank} to ${m.memMiB} MiB`).join(', ')}` };
    }
    if (state.stage === 'estimate') {
      if (nowS - state.trainingSinceS! < estimateAfterS || reading.records.length < 3) return null;
      state.stage = 'running';
      state.lastPlanS = nowS;
      return state.mode === 'single-job' ? localInitial(reading) : brainInitial(reading);
    }
    if (nowS - state.lastPlanS < planIntervalS || nowS - state.lastWorkerChangeS < JOB_MASTER.stableWorkersS) return null;
    const psMayChange = nowS - state.lastPsChangeS >= psChangeIntervalS;
    const plan = state.mode === 'single-job' ? localRunning(reading, psMayChange) : brainRunning(reading, psMayChange);
    state.lastPlanS = nowS;
    return plan;
  }

  /** Turns a plan into one decision on the job (PS changes first: a batch names a job once), or null when nothing changes or nothing fits. */
  function decide(
    context: ObservingContext,
    scratch: CapacityScratch,
    job: JobView,
    tasks: readonly TaskPlacement[],
    psRanked: readonly TaskPlacement[],
    reading: JobReading,
    plan: ResourcePlan,
    state: JobState,
  ): Decision | null {
    const place = (role: Role, count: number, demand: ReplicaDemand): TaskPlacement[] | null => {
      if (count <= 0) return [];
      const replicas = Array.from({ length: count }, () => ({ role, demand }));
      const placed = context.placement.place(scratch, { jobId: job.request.id, jobKind: job.request.kind, gpuTypes: job.request.gpuTypes, replicas });
      if (placed !== null) reserved.push(...placed);
      return placed;
    };
    // What this decision reserved and freed in the shared scratch, to give back when it cannot be placed.
    const reserved: TaskPlacement[] = [];
    const freed: TaskPlacement[] = [];
    const pending = (): null => {
      scratch.unreserve(reserved);
      for (const task of freed) scratch.reserve(task.nodeIndex, task.role, task.demand);
      state.pending ??= { sinceS: context.nowS, plan };
      return null;
    };
    const demandOf = (role: Role, cpuMilli: number, memMiB: number): ReplicaDemand => {
      const base = job.request.roles.find((r) => r.role === role)!.demand;
      return { gpus: base.gpus, gpuMilli: base.gpuMilli, cpuMilli, memMiB };
    };
    // A new PS set: the PS kept get the plan's size too (the checkpoint restores onto the new set).
    const resized = plan.ps !== undefined && psRanked.some((t) => t.demand.cpuMilli !== plan.ps!.cpuMilli || t.demand.memMiB !== plan.ps!.memMiB);
    const migrations = plan.migrate ?? (resized ? psRanked.slice(0, plan.ps!.replicas).map((_, rank) => ({ rank, cpuMilli: plan.ps!.cpuMilli, memMiB: plan.ps!.memMiB })) : []);
    const psChange = migrations.length > 0 || (plan.ps !== undefined && plan.ps.replicas !== psRanked.length);
    if (psChange) {
      const remove: TaskPlacement[] = [];
      const add: TaskPlacement[] = [];
      for (const m of migrations) {
        const old = psRanked[m.rank];
        if (old === undefined) continue;
        scratch.unreserve([old]);
        freed.push(old);
        remove.push(old);
      }
      for (const m of migrations) {
        if (psRanked[m.rank] === undefined) continue;
        const placed = place('ps', 1, demandOf('ps', m.cpuMilli, m.memMiB));
        if (placed === null) return pending();
        add.push(...placed);
      }
      if (plan.ps !== undefined && plan.ps.replicas > psRanked.length) {
        const placed = place('ps', plan.ps.replicas - psRanked.length, demandOf('ps', plan.ps.cpuMilli, plan.ps.memMiB));
        if (placed === null) return pending();
        add.push(...placed);
      } else if (plan.ps !== undefined && plan.ps.replicas < psRanked.length) {
        remove.push(...psRanked.slice(plan.ps.replicas));
      }
      // The plan's workers follow at the next check after the PS change (a batch names a job once).
      state.pending = plan.workers === undefined ? null : { sinceS: context.nowS, plan: { workers: plan.workers, reason: plan.reason } };
      state.lastPsChangeS = context.nowS;
      return { kind: 'reshape-role', jobId: job.request.id, role: 'ps', add, remove, pause: 'checkpoint-restore', reason: plan.reason };
    }
    if (plan.workers === undefined) {
      state.pending = null;
      return null;
    }
    const chiefs = tasks.filter((t) => t.role === 'chief').length;
    const current = tasks.filter((t) => t.role === 'worker');
    const elastic = job.request.elastic!;
    let target = plan.workers.replicas - chiefs;
    target = Math.min(elastic.maxReplicas, Math.max(elastic.minReplicas, target - (target % elastic.unit)));
    if (target === current.length) {
      state.pending = null;
      return null;
    }
    if (target > current.length) {
      const placed = place('worker', target - current.length, demandOf('worker', plan.workers.cpuMilli, plan.workers.memMiB));
      if (placed === null) return pending();
      state.beforeLastAddition = { stepsPerS: speedOf(reading), workers: reading.workers };
      state.pending = null;
      state.lastWorkerChangeS = context.nowS;
      return { kind: 'reshape-role', jobId: job.request.id, role: 'worker', add: placed, remove: [], pause: 'none', reason: plan.reason };
    }
    state.pending = null;
    state.lastWorkerChangeS = context.nowS;
    return { kind: 'reshape-role', jobId: job.request.id, role: 'worker', add: [], remove: current.slice(target), pause: 'none', reason: plan.reason };
  }
}

/** The job's budget: its resourceLimits; without, what it asked for in single-job mode and no bound in cluster mode. */
function budgetOf(request: JobRequest, mode: Exclude<OptimizeMode, 'manual'>): { cpuMilli: number; memMiB: number } {
  if (request.resourceLimits !== undefined) return request.resourceLimits;
  if (mode === 'cluster') return { cpuMilli: Infinity, memMiB: Infinity };
  let cpuMilli = 0;
  let memMiB = 0;
  for (const role of request.roles) {
    cpuMilli += role.replicas * role.demand.cpuMilli;
    memMiB += role.replicas * role.demand.memMiB;
  }
  return { cpuMilli, memMiB };
}

/** The job's roles as a create plan sizes them: the PS, and the chief (or a first worker) with the worker plan. */
function rolesFor(request: JobRequest, ps: RolePlan, worker: RolePlan): RoleSpec[] {
  const hasChief = request.roles.some((r) => r.role === 'chief');
  const elastic = request.elastic!;
  return request.roles.map((role): RoleSpec => {
    const sized = (plan: RolePlan, replicas: number): RoleSpec => ({ ...role, replicas, demand: { ...role.demand, cpuMilli: plan.cpuMilli, memMiB: plan.memMiB } });
    if (role.role === 'ps') return sized(ps, ps.replicas);
    if (role.role === 'chief') return sized(worker, role.replicas);
    const replicas = hasChief ? elastic.minReplicas : Math.max(elastic.minReplicas, 1);
    return sized(worker, Math.ceil(replicas / elastic.unit) * elastic.unit);
  });
}

/** The job's PS pods in rank order (as the job reports them; else in the order it holds them). */
function psTasksOf(job: JobView, tasks: readonly TaskPlacement[]): readonly TaskPlacement[] {
  return job.psRanked.length > 0 ? job.psRanked : tasks.filter((t) => t.role === 'ps');
}

/** What the optimizers read of a job now. */
function readingOf(job: JobView, tasks: readonly TaskPlacement[], psRanked: readonly TaskPlacement[], state: JobState, context: ObservingContext): JobReading {
  let workerCpuMilli = Infinity;
  let workerMemMiB = Infinity;
  for (const task of tasks) {
    if (task.role === 'ps') continue;
    workerCpuMilli = Math.min(workerCpuMilli, task.demand.cpuMilli);
    workerMemMiB = Math.min(workerMemMiB, task.demand.memMiB);
  }
  const limits = budgetOf(job.request, state.mode);
  const records = recordsSince(context.samples(job.request.id), state.shapeSinceS).filter((r) => workersIn(r) === workersOf(tasks));
  return {
    request: job.request,
    nowS: context.nowS,
    records,
    workers: workersOf(tasks),
    workerCpuMilli: Number.isFinite(workerCpuMilli) ? workerCpuMilli : 1000,
    workerMemMiB: Number.isFinite(workerMemMiB) ? workerMemMiB : 1024,
    psCpuMilli: psRanked.map((t) => t.demand.cpuMilli),
    psMemMiB: psRanked.map((t) => t.demand.memMiB),
    limitCpuMilli: limits.cpuMilli,
    limitMemMiB: limits.memMiB,
    beforeLastAddition: state.beforeLastAddition,
    progressSteps: job.progressSteps,
  };
}

/** A scale-up asked again after 900 s pending: half the CPU and memory of its new pods (floors 4 cores, 6 GiB). */
function halved(plan: ResourcePlan): ResourcePlan {
  const half = (cpuMilli: number, memMiB: number) => ({
    cpuMilli: Math.max(Math.min(cpuMilli, JOB_MASTER.pendingFloorCpuCores * 1000), Math.ceil(cpuMilli / 2000) * 1000),
    memMiB: Math.max(Math.min(memMiB, JOB_MASTER.pendingFloorMemMiB), Math.ceil(memMiB / 2)),
  });
  return {
    ...(plan.ps === undefined ? {} : { ps: { replicas: plan.ps.replicas, ...half(plan.ps.cpuMilli, plan.ps.memMiB) } }),
    ...(plan.migrate === undefined ? {} : { migrate: plan.migrate.map((m) => ({ rank: m.rank, ...half(m.cpuMilli, m.memMiB) })) }),
    ...(plan.workers === undefined ? {} : { workers: { replicas: plan.workers.replicas, ...half(plan.workers.cpuMilli, plan.workers.memMiB) } }),
    reason: `${plan.reason} (pending over ${JOB_MASTER.pendingRelaunchS} s: half the CPU and memory)`,
  };
}

/** Training workers among tasks (the chief included). */
function workersOf(tasks: readonly TaskPlacement[]): number {
  let count = 0;
  for (const task of tasks) if (task.role !== 'ps') count++;
  return count;
}

/** A key that changes when the job's tasks change: its training workers, then each PS's CPU and memory. */
function shapeKeyOf(tasks: readonly TaskPlacement[]): string {
  return `${workersOf(tasks)}|${tasks.filter((t) => t.role === 'ps').map((t) => `${t.demand.cpuMilli}:${t.demand.memMiB}`).join(',')}`;
}

/** The worker count a shape key holds. */
function workersOfKey(key: string): number {
  return key === '' ? -1 : Number(key.split('|')[0]);
}
