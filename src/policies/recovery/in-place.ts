import type { TaskPlacement } from '../../model/allocation.js';
import { restartSteps, type CheckpointCosts } from '../../model/checkpoint.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ReplicaDemand } from '../../model/job-spec.js';
import type { PauseStep } from '../../model/pause.js';
import type { JobView } from '../types.js';
import { runNodeCheck } from './node-check.js';
import type { CrashCause, GrowBackContext, GrowPlan, InPlacePlan, RecoveryCleanup, RecoveryContext, RecoveryPlan } from './types.js';

/** How an in-place recovery of one crash goes, in seconds where timed. */
export interface InPlaceSettings {
  /** Until the failure is noticed. */
  readonly detectS: number;
  /** Run DLRover's node check on the job's live nodes: faulty nodes and stragglers are replaced (stragglers cordoned). */
  readonly nodeCheck: boolean;
  /** Starting a replacement pod on a healthy node. */
  readonly replaceS: number;
  /**
   * Re-forming the group with fewer workers (a multiple of the job's node unit, at least its minimum)
   * when no replacement fits; null = wait in the queue for capacity. It grows back when capacity returns.
   */
  readonly scaleDownS: number | null;
  /** Restarting the training processes in place. */
  readonly restartS: number;
  /** Nodes whose pods are relaunched although their hardware is fine (their agent gave up restarting). */
  readonly relaunchNodeIndices: readonly number[];
  /** Relaunches a pod's lineage may take; a pod past it is not replaced (null = no limit). */
  readonly maxRelaunchesPerPod: number | null;
  /** Memory in MiB the relaunched pods of the OOM-killed role get (null: unchanged). */
  readonly relaunchMemMiB: number | null;
}

/** Workers a scale-down keeps, and the ones it drops. */
interface ScaleDown {
  readonly workers: number;
  readonly dropped: readonly TaskPlacement[];
}

/**
 * In-place recovery, shared by the stacks that keep a crashed job's healthy pods. With a node check,
 * faulty nodes and stragglers are found (and stragglers cordoned); the pods on lost or bad nodes are
 * replaced on healthy nodes, or the job shrinks to a multiple of its node unit, or, when neither is
 * possible, it waits in the queue for capacity (and pays detection and the check when it starts
 * again). Then its processes restart and load the last checkpoint. A pod whose lineage used up its
 * relaunches is not replaced: a worker is dropped for good (the job shrinks, or fails when it
 * cannot), any other pod fails the job. Jobs it shrank grow back a node unit at a time as capacity returns.
 */
export class InPlaceRecovery {
  /** How often each pod's lineage was relaunched after a failure (pods that never were: absent). */
  private readonly relaunches = new WeakMap<TaskPlacement, number>();
  /** Replaced pods whose count a replacement already took. */
  private readonly relaunchCounted = new WeakSet<TaskPlacement>();
  /** Jobs shrunk and not yet grown back, with the pause each step back towards their size costs. */
  private readonly shrunk = new Map<JobView, readonly PauseStep[]>();

  /** `checkpointCosts`: the stack's checkpoint costs, replacing the jobs' own when set. */
  constructor(private readonly checkpointCosts: CheckpointCosts | undefined) {}

  /** The plan for a crashed job: restart, replace, shrink, wait or fail. */
  plan(job: JobView, cause: CrashCause, context: RecoveryContext, settings: InPlaceSettings): RecoveryPlan {
    const tasks = context.tasksOf(job.request.id);
    const steps: PauseStep[] = [{ kind: 'detecting', seconds: settings.detectS }];
    const bad = new Set(cause.lostNodeIndices);
    const cordon: number[] = [];
    // A node that is down takes no part in the check (its agent cannot join it; its loss is known):
    // the check tests the job's live nodes, where broken hardware the scheduler cannot see fails its groups.
    const liveNodeIndices = [...new Set(tasks.map((t) => t.nodeIndex))].filter((nodeIndex) => context.cluster.nodeHealth(nodeIndex) !== 'down');
    if (settings.nodeCheck && liveNodeIndices.length > 0) {
      const check = runNodeCheck(context.testNodes(liveNodeIndices));
      steps.push({ kind: 'health-check', seconds: check.durationS });
      for (const nodeIndex of check.faulty) bad.add(nodeIndex);
      for (const nodeIndex of check.stragglers) {
        bad.add(nodeIndex);
        if (context.cluster.nodeHealth(nodeIndex) === 'up') cordon.push(nodeIndex);
      }
    }
    for (const nodeIndex of settings.relaunchNodeIndices) bad.add(nodeIndex);
    const remove = tasks.filter((t) => bad.has(t.nodeIndex));
    if (remove.length === 0) {
      steps.push({ kind: 'starting', seconds: settings.restartS });
      return this.inPlace(job, { cordon, remove, foundBad: [] }, [], steps, false, 'processes restarted');
    }
    // Broken hardware the check found is taken out of service once the job has left it.
    const cleanup: RecoveryCleanup = { cordon, remove, foundBad: settings.nodeCheck ? [...bad] : [] };
    const maxRelaunches = settings.maxRelaunchesPerPod;
    const exhausted = maxRelaunches === null ? [] : remove.filter((t) => (this.relaunches.get(t) ?? 0) >= maxRelaunches);
    const lastPod = exhausted.find((t) => t.role !== 'worker');
    if (lastPod) return { kind: 'fail', why: `relaunches of a ${lastPod.role} pod exhausted`, ...cleanup };
    if (exhausted.length > 0) {
      const scaled = settings.scaleDownS === null ? null : this.scaleDown(job, tasks, remove);
      if (scaled === null) return { kind: 'fail', why: `relaunches of ${exhausted.length} worker pod(s) exhausted`, ...cleanup };
      // The dropped workers are not replaced for the rest of the job's life.
      this.shrunk.delete(job);
      steps.push({ kind: 'rescheduling', seconds: settings.scaleDownS! });
      return this.inPlace(job, { ...cleanup, remove: [...remove, ...scaled.dropped] }, [], steps, true, `relaunches exhausted: scaled down to ${scaled.workers} workers`);
    }
    const replacement = context.placement.place(context.scratchAfter(cleanup), {
      jobId: job.request.id,
      gpuTypes: job.request.gpuTypes,
      jobKind: job.request.kind,
      replicas: remove.map((t) => ({ role: t.role, demand: relaunchDemand(t, settings, cause) })),
    });
    if (replacement) {
      this.inheritRelaunches(remove, replacement);
      steps.push({ kind: 'rescheduling', seconds: settings.replaceS });
      return this.inPlace(job, cleanup, replacement, steps, false, `${remove.length} pods replaced`);
    }
    const scaled = settings.scaleDownS === null ? null : this.scaleDown(job, tasks, remove);
    if (scaled) {
      const rescheduling: PauseStep = { kind: 'rescheduling', seconds: settings.scaleDownS! };
      steps.push(rescheduling);
      this.shrunk.set(job, this.restartSteps(job, rescheduling));
      return this.inPlace(job, { ...cleanup, remove: [...remove, ...scaled.dropped] }, [], steps, true, `scaled down to ${scaled.workers} workers`);
    }
    // Detection and the node check are paid like in any recovery, when the job starts again.
    return { kind: 'requeue', ...cleanup, restartPause: this.restartSteps(job, ...steps, { kind: 'rescheduling', seconds: settings.replaceS }) };
  }

  /**
   * Grows the running, unpaused jobs this recovery shrank back towards their requested workers, the
   * most node units that fit at a time, in start order; cost: the shrunk jobs.
   */
  growBack(context: GrowBackContext): GrowPlan[] {
    const due: JobView[] = [];
    for (const job of this.shrunk.keys()) {
      if (job.phase === 'completed' || job.phase === 'failed') this.shrunk.delete(job);
      else if (job.phase === 'running' && !job.paused) due.push(job);
    }
    due.sort((a, b) => context.startOrder(a.request.id) - context.startOrder(b.request.id));
    const plans: GrowPlan[] = [];
    let scratch: CapacityScratch | null = null;
    for (const job of due) {
      const elastic = job.request.elastic!;
      const requested = job.request.roles.find((r) => r.role === 'worker')!;
      const targetWorkers = Math.min(requested.replicas, elastic.maxReplicas);
      const missing = targetWorkers - job.workers;
      const pause = this.shrunk.get(job)!;
      if (missing <= 0) {
        this.shrunk.delete(job);
        plans.push({ jobId: job.request.id, add: [], pause: [], done: true });
        continue;
      }
      // One scratch for all: each plan's workers are reserved before the next job is placed, as the simulation allocates them.
      scratch ??= context.scratch();
      let add: TaskPlacement[] = [];
      for (let units = Math.floor(missing / elastic.unit); units > 0 && add.length === 0; units--) {
        const replicas = Array.from({ length: units * elastic.unit }, () => ({ role: 'worker' as const, demand: requested.demand }));
        add = context.placement.place(scratch, { jobId: job.request.id, gpuTypes: job.request.gpuTypes, jobKind: job.request.kind, replicas }) ?? [];
      }
      if (add.length === 0) continue;
      const done = job.workers + add.length >= targetWorkers;
      if (done) this.shrunk.delete(job);
      plans.push({ jobId: job.request.id, add, pause, done });
    }
    return plans;
  }

  private inPlace(job: JobView, cleanup: RecoveryCleanup, add: readonly TaskPlacement[], steps: readonly PauseStep[], shrunk: boolean, detail: string): InPlacePlan {
    return { kind: 'in-place', ...cleanup, add, pause: this.restartSteps(job, ...steps), shrunk, detail };
  }

  /** What restarting a job's training processes costs after `before`: their start-up, then the checkpoint load. */
  private restartSteps(job: JobView, ...before: PauseStep[]): PauseStep[] {
    return restartSteps(job.request, this.checkpointCosts, ...before);
  }

  /** Gives each replacement pod the relaunch count of the pod it replaces, plus one (role by role). */
  private inheritRelaunches(replaced: readonly TaskPlacement[], replacements: readonly TaskPlacement[]): void {
    for (const task of replacements) {
      const predecessor = replaced.find((t) => t.role === task.role && !this.relaunchCounted.has(t));
      if (!predecessor) continue;
      this.relaunchCounted.add(predecessor);
      this.relaunches.set(task, (this.relaunches.get(predecessor) ?? 0) + 1);
    }
  }

  /**
   * Shrinks an elastic job that lost only workers (`lost`, out of `tasks`) to the largest multiple
   * of its node unit that its remaining workers allow (at least its minimum); null when it cannot.
   */
  private scaleDown(job: JobView, tasks: readonly TaskPlacement[], lost: readonly TaskPlacement[]): ScaleDown | null {
    const elastic = job.request.elastic;
    if (!elastic || lost.some((t) => t.role !== 'worker')) return null;
    const gone = new Set(lost);
    const workers = tasks.filter((t) => t.role === 'worker' && !gone.has(t));
    const keep = Math.min(elastic.maxReplicas, Math.floor(workers.length / elastic.unit) * elastic.unit);
    if (keep < elastic.minReplicas) return null;
    return { workers: keep, dropped: workers.slice(keep) };
  }
}

/** What a relaunched pod asks for: an OOM-killed role's pods on the OOM node get the settings' memory. */
function relaunchDemand(task: TaskPlacement, settings: InPlaceSettings, cause: CrashCause): ReplicaDemand {
  const oomed = settings.relaunchMemMiB !== null && cause.oom?.role === task.role && task.nodeIndex === cause.faultNodeIndex;
  return oomed ? { ...task.demand, memMiB: Math.max(task.demand.memMiB, settings.relaunchMemMiB!) } : task.demand;
}
