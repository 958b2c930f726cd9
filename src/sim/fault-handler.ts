import { round2 } from '../metrics/summary.js';
import type { Engine } from '../engine/engine.js';
import { RandomStreams } from '../engine/random.js';
import { assertNever, InvariantError } from '../errors.js';
import { exitClassOf } from '../faults/catalog.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import { RateInjector } from '../faults/rate-injector.js';
import type { TaskPlacement } from '../model/allocation.js';
import { CapacityScratch } from '../model/capacity.js';
import type { ClusterState } from '../model/cluster-state.js';
import { restartSteps } from '../model/checkpoint.js';
import type { PauseStep } from '../model/pause.js';
import type {
  CrashCause,
  GrowBackContext,
  GrowPlan,
  InPlacePlan,
  RecoveryCleanup,
  RecoveryContext,
  RecoveryPolicy,
} from '../policies/recovery/types.js';
import type { PlacementPolicy } from '../policies/types.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimEvent } from './events.js';
import type { FaultTracker } from './fault-tracker.js';
import type { JobControl } from './job-control.js';
import type { JobRuntime } from './job-runtime.js';

/** Seconds a healthy node takes for the node check's GEMM + allgather test. */
const NODE_TEST_S = 10;

/** A crash awaiting its recovery at the end of the instant: its first fault (null for a watchdog or OOM kill) and whether any of its faults took hardware. */
interface PendingCrash {
  readonly occurrence: FaultOccurrence | null;
  readonly oomTask: TaskPlacement | null;
  hardwareLost: boolean;
}

/** What the fault handler works with. */
export interface FaultHandlerSetup {
  readonly engine: Engine<SimEvent>;
  readonly cluster: ClusterState;
  readonly scenario: Scenario;
  readonly placement: PlacementPolicy;
  readonly recovery: RecoveryPolicy;
  readonly tracker: FaultTracker;
  readonly control: JobControl;
}

/**
 * The fault half of the simulation: injects faults, applies their effects to hardware and jobs,
 * tracks broken hardware the scheduler cannot see, repairs it, and carries out the recovery
 * policy's plans (failure, resubmission, requeue, in-place recovery, growth back) without deciding
 * anything: the policy reads the cluster and the node-check probe through a context.
 */
export class FaultHandler {
  private readonly engine: Engine<SimEvent>;
  private readonly cluster: ClusterState;
  private readonly scenario: Scenario;
  private readonly placement: PlacementPolicy;
  private readonly recovery: RecoveryPolicy;
  private readonly faults: FaultTracker;
  private readonly control: JobControl;
  private readonly injector: RateInjector | null;
  /** Broken GPUs and networks the scheduler cannot see yet (the node looks healthy) until isolated. */
  private readonly hidden: Set<FaultOccurrence>;
  /** Replayed faults: the trace fixes when the hardware is back, however late the fault is located. */
  private readonly endsAtTraceTime = new WeakSet<FaultOccurrence>();
  /** Jobs that crashed in the current instant, in crash order, awaiting their recovery at its end. */
  private readonly crashed = new Map<JobRuntime, PendingCrash>();

  constructor(setup: FaultHandlerSetup) {
    this.engine = setup.engine;
    this.cluster = setup.cluster;
    this.scenario = setup.scenario;
    this.placement = setup.placement;
    this.recovery = setup.recovery;
    this.faults = setup.tracker;
    this.control = setup.control;
    this.hidden = setup.tracker.hidden;
    const faults = setup.scenario.faults;
    this.injector = faults && faults.catalog.types.length > 0 ? new RateInjector(faults.catalog, setup.scenario.cluster, new RandomStreams(setup.scenario.seed)) : null;
  }

  /** Schedules the first rate-injected fault and the first replayed one. */
  start(): void {
    this.scheduleRateFault();
    const firstReplayed = this.scenario.faults?.replay[0];
    if (firstReplayed) this.engine.scheduleAt(firstReplayed.timeS, { kind: 'fault', occurrence: firstReplayed, replayIndex: 0 });
  }

  /** What restarting a job's training processes costs after `before`: their start-up, then the checkpoint load. */
  private restartSteps(job: JobRuntime, ...before: PauseStep[]): PauseStep[] {
    return restartSteps(job.spec, this.recovery.checkpointCosts, ...before);
  }

  /** A crashed job joins the queue again (at its end, like a new submission). */
  onResubmit(job: JobRuntime, rescheduleS: number): void {
    this.control.resubmit(job, this.restartSteps(job, { kind: 'rescheduling', seconds: rescheduleS }));
    this.faults.log({ timeS: this.engine.nowS, event: 'job-resubmitted', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: '' });
  }

  /** Schedules the next rate-injected fault while jobs remain (after that, faults change nothing). */
  private scheduleRateFault(): void {
    if (!this.injector || !this.control.jobsRemain()) return;
    const next = this.injector.next();
    if (next) this.engine.scheduleAt(Math.max(next.timeS, this.engine.nowS), { kind: 'fault', occurrence: next, replayIndex: null });
  }

  /** Applies a fault's effect to the hardware and the jobs on it, and schedules its repair. */
  onFault(occurrence: FaultOccurrence, replayIndex: number | null): void {
    if (replayIndex === null) {
      this.scheduleRateFault();
    } else {
      const next = this.scenario.faults!.replay[replayIndex + 1];
      if (next && this.control.jobsRemain()) {
        this.engine.scheduleAt(Math.max(next.timeS, this.engine.nowS), { kind: 'fault', occurrence: next, replayIndex: replayIndex + 1 });
      }
    }
    const { nodeIndex, gpuIndex } = occurrence;
    const effect = occurrence.type.effect;
    const victims = this.jobsOn(nodeIndex, effect.kind === 'node-down' || effect.kind === 'network-down' ? null : gpuIndex);
    switch (effect.kind) {
      case 'gpu-down':
      case 'network-down':
        // The node still looks healthy: the scheduler sees nothing until the fault is located.
        this.hidden.add(occurrence);
        this.takeEffect(occurrence);
        this.engine.scheduleAt(this.engine.nowS + this.recovery.isolationDelayS(occurrence.type, this.engine.nowS), { kind: 'isolate', occurrence });
        if (replayIndex !== null) {
          this.endsAtTraceTime.add(occurrence);
          this.scheduleRepair(occurrence);
        }
        for (const job of victims) this.crash(job, occurrence, effect.kind === 'gpu-down' ? 'its GPU failed' : 'its node lost the network');
        return;
      case 'node-down':
        if (this.faults.nodeDown(nodeIndex)) this.takeNodeDown(nodeIndex);
        this.takeEffect(occurrence);
        for (const job of victims) this.crash(job, occurrence, 'its node failed');
        this.scheduleRepair(occurrence);
        return;
      case 'crash':
      case 'silent-corruption':
        if (victims.length === 0) return;
        this.takeEffect(occurrence);
        for (const job of victims) this.crash(job, occurrence, effect.kind === 'crash' ? 'process crash' : 'silent data corruption');
        return;
      case 'hang': {
        // A job whose processes are not training (paused to start, load or reschedule, or just
        // crashed) is in no collective: the hang passes it by.
        const training = victims.filter((job) => !job.paused && !job.crashed);
        if (training.length === 0) return;
        this.takeEffect(occurrence);
        for (const job of training) this.hang(job, occurrence);
        return;
      }
      case 'slowdown':
        // The hardware stays slow until repaired, whether or not a job runs on it now.
        this.faults.slowDown(nodeIndex, gpuIndex, effect.factor);
        this.takeEffect(occurrence);
        for (const job of victims) job.meetFault(this.engine.nowS);
        this.control.refreshHardwareFactors(victims);
        this.scheduleRepair(occurrence);
        return;
      default:
        assertNever(effect);
    }
  }

  /** A node goes down: closed to new work, and the auxiliary tasks on it are taken back at once (its jobs' tasks crash with it). */
  private takeNodeDown(nodeIndex: number): void {
    this.cluster.setNodeHealth(nodeIndex, 'down');
    this.control.evictAuxOn(nodeIndex);
  }

  /** Counts a fault that took effect and logs it. */
  private takeEffect(occurrence: FaultOccurrence): void {
    this.faults.count(occurrence);
    this.logFault('fault', occurrence, '', `${occurrence.type.effect.kind}; repair in ${Math.round(occurrence.repairS)} s`);
  }

  private scheduleRepair(occurrence: FaultOccurrence): void {
    if (occurrence.repairS > 0) this.engine.scheduleAt(this.engine.nowS + occurrence.repairS, { kind: 'repair', occurrence });
    else this.onRepair(occurrence);
  }

  /**
   * Takes broken hardware out of service once located (no-op when already isolated or back). Its
   * repair time counts from the fault: a replayed fault is back at its trace's end time (already
   * scheduled); a rate fault at its fault time plus its repair time, or at once when that has
   * passed by now (catalog repair times are times out of service from the fault, as measured in
   * the InfiniteHBD trace, so a late find adds no second repair).
   */
  isolate(occurrence: FaultOccurrence, detail = 'taken out of service'): void {
    if (!this.hidden.delete(occurrence)) return;
    const { nodeIndex, gpuIndex } = occurrence;
    if (occurrence.type.effect.kind === 'gpu-down') {
      if (this.faults.gpuDown(nodeIndex, gpuIndex ?? 0)) this.cluster.setGpuUp(nodeIndex, gpuIndex ?? 0, false);
    } else if (this.faults.nodeDown(nodeIndex)) {
      this.takeNodeDown(nodeIndex);
    }
    this.logFault('isolated', occurrence, '', detail);
    for (const job of this.jobsOn(nodeIndex, occurrence.type.effect.kind === 'gpu-down' ? (gpuIndex ?? 0) : null)) {
      this.crash(job, occurrence, 'its hardware was taken out of service');
    }
    if (this.backOnIsolation(occurrence)) this.onRepair(occurrence);
    else if (!this.endsAtTraceTime.has(occurrence)) this.engine.scheduleAt(occurrence.timeS + occurrence.repairS, { kind: 'repair', occurrence });
  }

  /** True when broken hardware taken out of service now is back at once: a rate fault whose repair time from the fault has passed. */
  private backOnIsolation(occurrence: FaultOccurrence): boolean {
    return !this.endsAtTraceTime.has(occurrence) && occurrence.timeS + occurrence.repairS <= this.engine.nowS;
  }

  /** A job that starts training on broken hardware crashes at once. */
  onBrokenStart(job: JobRuntime): void {
    const occurrence = this.faults.brokenUnder(this.cluster.tasksOf(job.spec.id) ?? []);
    if (occurrence) this.crash(job, occurrence, 'it started on broken hardware');
  }

  /** Undoes what a fault did to the hardware once it is repaired. */
  onRepair(occurrence: FaultOccurrence): void {
    const { nodeIndex, gpuIndex } = occurrence;
    const effect = occurrence.type.effect;
    // A replayed fault nobody located yet: the trace says the hardware is back, so it stops being broken.
    if (this.hidden.delete(occurrence)) {
      this.logFault('repair', occurrence, '', 'back before it was located');
      this.control.markDirty();
      return;
    }
    switch (effect.kind) {
      case 'gpu-down':
        if (this.faults.gpuRepaired(nodeIndex, gpuIndex ?? 0)) this.cluster.setGpuUp(nodeIndex, gpuIndex ?? 0, true);
        break;
      case 'node-down':
      case 'network-down':
        if (this.faults.nodeRepaired(nodeIndex)) this.cluster.setNodeHealth(nodeIndex, 'up');
        break;
      case 'slowdown':
        this.faults.slowdownRepaired(nodeIndex, gpuIndex, effect.factor);
        this.control.refreshHardwareFactors(this.jobsOn(nodeIndex, gpuIndex));
        // A straggler the node check cordoned is healthy again once its last slowdown is repaired.
        if (this.cluster.nodeHealth(nodeIndex) === 'cordoned' && !this.faults.nodeSlowed(nodeIndex)) {
          this.cluster.setNodeHealth(nodeIndex, 'up');
        }
        break;
      case 'crash':
      case 'silent-corruption':
      case 'hang':
        return;
      default:
        assertNever(effect);
    }
    this.logFault('repair', occurrence, '', '');
    this.control.markDirty();
  }

  /** A hang stalls a training job, holding its resources, until its watchdog fires. */
  private hang(job: JobRuntime, occurrence: FaultOccurrence): void {
    job.advanceTo(this.engine.nowS);
    job.meetFault(this.engine.nowS);
    if (job.hung) return;
    job.hung = true;
    job.hangs++;
    this.control.refreshRate(job);
    this.logFault('job-hang', occurrence, job.spec.id, 'training stalls until the watchdog fires');
    const timeoutS = Math.min(this.scenario.faults!.hangTimeoutS, this.recovery.hangTimeoutS ?? Infinity);
    this.engine.scheduleAt(this.engine.nowS + timeoutS, { kind: 'job-hang-timeout', job, hang: job.hangs });
  }

  /**
   * A job's training processes died: it rolls back to its last checkpoint (one further after silent
   * corruption) and stops training; its recovery waits for the end of the instant, so that every
   * fault of the instant is one failure of the job, recovered once against the hardware they left.
   */
  crash(job: JobRuntime, occurrence: FaultOccurrence | null, why: string, oomTask: TaskPlacement | null = null): void {
    // A job another job's recovery already crashed in this instant (e.g. through isolate()) is not running any more.
    if (job.phase !== 'running') return;
    const nowS = this.engine.nowS;
    job.advanceTo(nowS);
    // The processes died: their shards in progress go back as failures, before the rollback.
    this.control.workersDied(job);
    if (occurrence) job.meetFault(nowS);
    const effect = occurrence?.type.effect.kind;
    const hardwareLost = effect === 'gpu-down' || effect === 'node-down' || effect === 'network-down';
    const lost = job.rollBack(effect === 'silent-corruption' ? 1 : 0);
    this.faults.log({ timeS: nowS, event: 'job-crash', faultType: occurrence?.type.name ?? '', node: '', gpu: null, jobId: job.spec.id, detail: `${why}; ${Math.round(lost)} steps lost` });
    const pending = this.crashed.get(job);
    if (pending) {
      // The same failure seen again: its recovery also covers this fault's hardware.
      pending.hardwareLost ||= hardwareLost;
      return;
    }
    this.crashed.set(job, { occurrence, oomTask, hardwareLost });
    // The processes are gone: any pause or hang ends, and nothing of the old rate may fire.
    job.crashed = true;
    job.paused = false;
    job.hung = false;
    this.control.refreshRate(job);
    this.control.markDirty();
  }

  /** Recovers each job that crashed in this instant, once, in crash order (a recovery may crash more jobs). */
  recoverCrashed(): void {
    for (const [job, crash] of this.crashed) {
      this.crashed.delete(job);
      job.crashed = false;
      if (job.phase === 'running') this.recover(job, crash);
    }
  }

  /** Asks the recovery policy what follows a job's crash, with the job's hardware as it is now, and carries the plan out. */
  private recover(job: JobRuntime, crash: PendingCrash): void {
    const { occurrence, oomTask, hardwareLost } = crash;
    const faultType = occurrence?.type.name ?? '';
    const tasks = [...(this.cluster.tasksOf(job.spec.id) ?? [])];
    const byNode = tasksByNode(tasks);
    const lostNodeIndices = [...byNode].filter(([i, onNode]) => this.lostHardware(i, onNode)).map(([i]) => i);
    const rankZeroNodeIndex = tasks.find((t) => t.role === 'worker')?.nodeIndex ?? null;
    // An OOM kill: the pod the simulation found short of memory, or for a catalog fault that exits with OOM, the job's pod on that node.
    const oomed = oomTask ?? (occurrence && exitClassOf(occurrence.type) === 'oom' ? (tasks.find((t) => t.nodeIndex === occurrence.nodeIndex) ?? null) : null);
    const cause: CrashCause = {
      fault: occurrence?.type ?? null,
      hardwareLost,
      lostNodeIndices,
      rankZeroNodeIndex,
      faultNodeIndex: oomTask?.nodeIndex ?? occurrence?.nodeIndex ?? null,
      oom: oomed && { role: oomed.role, memMiB: oomed.demand.memMiB },
    };
    const plan = this.recovery.onCrash(job, cause, this.recoveryContext(cause, byNode));
    this.control.markDirty();
    switch (plan.kind) {
      case 'fail':
        this.cleanUp(job, { cordon: plan.cordon ?? [], remove: plan.remove ?? [], foundBad: plan.foundBad ?? [] });
        return this.fail(job, faultType, plan.why);
      case 'resubmit':
        this.control.stopForResubmission(job);
        this.engine.scheduleAt(this.engine.nowS + plan.detectS, { kind: 'job-resubmit', job, rescheduleS: plan.rescheduleS });
        return;
      case 'requeue':
        this.cleanUp(job, plan);
        this.control.requeueAfterCrash(job, plan.restartPause);
        this.faults.log({ timeS: this.engine.nowS, event: 'job-waiting', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: 'no healthy capacity: queued' });
        return;
      case 'in-place':
        return this.recoverInPlace(job, plan);
      default:
        assertNever(plan);
    }
  }

  /** What the recovery policy reads about a crash of a job holding `tasks`: the cluster, scratches, the node-check probe. */
  private recoveryContext(cause: CrashCause, byNode: ReadonlyMap<number, readonly TaskPlacement[]>): RecoveryContext {
    const lost = new Set(cause.lostNodeIndices);
    return {
      ...this.growBackContext(),
      testNodes: (nodeIndices) =>
        nodeIndices.map((nodeIndex) => ({
          nodeIndex,
          faulty: lost.has(nodeIndex),
          testS: NODE_TEST_S / this.nodeFactorFor(nodeIndex, byNode.get(nodeIndex) ?? []),
        })),
      scratchAfter: (cleanup) => this.scratchAfter(cleanup),
    };
  }

  /** What the recovery policy reads when it grows jobs back. */
  private growBackContext(): GrowBackContext {
    return {
      nowS: this.engine.nowS,
      cluster: this.cluster,
      placement: this.placement,
      scratch: () => new CapacityScratch(this.cluster),
      tasksOf: (jobId) => this.cluster.tasksOf(jobId) ?? [],
      startOrder: (jobId) => this.control.startOrder(this.control.job(jobId)),
    };
  }

  /**
   * A scratch of the free capacity as `cleanUp(cleanup)` will leave it: cordoned nodes closed, the
   * pods released (a down GPU stays without free capacity), and the hidden broken hardware on the
   * found-bad nodes out of service, unless it is back at once (see backOnIsolation).
   */
  private scratchAfter(cleanup: RecoveryCleanup): CapacityScratch {
    const scratch = new CapacityScratch(this.cluster);
    for (const nodeIndex of cleanup.cordon) scratch.setSchedulable(nodeIndex, false);
    scratch.unreserve(cleanup.remove);
    for (const task of cleanup.remove) {
      for (const gpuIndex of task.gpuIndices) if (!this.cluster.gpuUp(task.nodeIndex, gpuIndex)) scratch.takeGpuDown(task.nodeIndex, gpuIndex);
    }
    const foundBad = new Set(cleanup.foundBad);
    const takenDown = new Set<number>();
    for (const occurrence of this.hidden) {
      const { nodeIndex } = occurrence;
      if (!foundBad.has(nodeIndex)) continue;
      const back = this.backOnIsolation(occurrence);
      if (occurrence.type.effect.kind === 'gpu-down') {
        if (!back) scratch.takeGpuDown(nodeIndex, occurrence.gpuIndex ?? 0);
      } else if (!back) {
        takenDown.add(nodeIndex);
        scratch.setSchedulable(nodeIndex, false);
      } else if (this.cluster.nodeHealth(nodeIndex) !== 'down' && !takenDown.has(nodeIndex)) {
        // Down and at once repaired: the node comes back up, even from a cordon.
        scratch.setSchedulable(nodeIndex, true);
      }
    }
    return scratch;
  }

  /** Throws an InvariantError unless the cluster after `cleanup` reads as `scratchAfter` foresaw (cost: the nodes it changed). */
  private expectForeseen(foreseen: CapacityScratch, cleanup: RecoveryCleanup): void {
    const actual = new CapacityScratch(this.cluster);
    const changed = new Set([...cleanup.cordon, ...cleanup.remove.map((t) => t.nodeIndex), ...cleanup.foundBad]);
    const read = (scratch: CapacityScratch, nodeIndex: number) => JSON.stringify([scratch.schedulable(nodeIndex), scratch.free(nodeIndex)]);
    const differs = [...changed].find((nodeIndex) => read(foreseen, nodeIndex) !== read(actual, nodeIndex));
    if (differs !== undefined || foreseen.freeWholeGpusTotal !== actual.freeWholeGpusTotal) {
      throw new InvariantError(`recovery: the capacity after a cleanup differs from the one foreseen${differs === undefined ? '' : ` on node ${this.cluster.nodes[differs]!.name}`}`);
    }
  }

  /** Carries out a recovery's cleanup: cordons (logged), releases the job's pods, then isolates the hidden broken hardware on the nodes found bad. */
  private cleanUp(job: JobRuntime, cleanup: RecoveryCleanup): void {
    for (const nodeIndex of cleanup.cordon) {
      if (this.cluster.nodeHealth(nodeIndex) !== 'up') continue;
      this.cluster.setNodeHealth(nodeIndex, 'cordoned');
      this.faults.log({ timeS: this.engine.nowS, event: 'node-cordoned', faultType: '', node: this.cluster.nodes[nodeIndex]!.name, gpu: null, jobId: job.spec.id, detail: 'straggler found by the node check' });
    }
    if (cleanup.remove.length > 0) this.control.releaseForRecovery(job, cleanup.remove);
    if (cleanup.foundBad.length === 0) return;
    const foundBad = new Set(cleanup.foundBad);
    for (const occurrence of [...this.hidden]) if (foundBad.has(occurrence.nodeIndex)) this.isolate(occurrence, 'found by the node check');
  }

  /** Ends a running job for good after a fault: even its checkpointed work is lost. */
  private fail(job: JobRuntime, faultType: string, why: string): void {
    const nowS = this.engine.nowS;
    this.control.failAfterFault(job);
    this.faults.log({ timeS: nowS, event: 'job-failed', faultType, node: '', gpu: null, jobId: job.spec.id, detail: `recovery ${this.recovery.name}: ${why}` });
  }

  /** True when the node is down, or the job's tasks on it (`onNode`) sit on broken or down GPUs. */
  private lostHardware(nodeIndex: number, onNode: readonly TaskPlacement[]): boolean {
    if (this.cluster.nodeHealth(nodeIndex) === 'down') return true;
    if (this.faults.brokenUnder(onNode)) return true;
    return onNode.some((t) => t.gpuIndices.some((g) => !this.cluster.gpuUp(nodeIndex, g)));
  }

  /** In-place recovery: after the cleanup, the job takes its replacement pods and new shape, restarts and loads. */
  private recoverInPlace(job: JobRuntime, plan: InPlacePlan): void {
    const foreseen = plan.add.length > 0 ? this.scratchAfter(plan) : null;
    this.cleanUp(job, plan);
    if (foreseen) this.expectForeseen(foreseen, plan);
    if (plan.add.length > 0) this.control.addTasks(job, plan.add);
    if (plan.shrunk) job.shrunkByRecovery = true;
    job.restarts++;
    this.control.takeShape(job);
    const pauseS = this.control.pause(job, plan.pause);
    this.faults.log({ timeS: this.engine.nowS, event: 'job-recovering', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: `${plan.detail}; training resumes in ${Math.round(pauseS)} s` });
  }

  /** The OOM killer ends the first pod of the job that has less memory than its role uses. */
  onOom(job: JobRuntime): void {
    const task = this.control.shortOfMemory(job);
    if (!task) return;
    const useMiB = this.control.memNeedMiB(job, task, job.progressSteps) ?? task.demand.memMiB;
    const detail = `${task.role} pod with ${round2(task.demand.memMiB / 1024)} GiB uses ${round2(useMiB / 1024)} GiB`;
    this.faults.log({ timeS: this.engine.nowS, event: 'job-oom', faultType: '', node: this.cluster.nodes[task.nodeIndex]!.name, gpu: null, jobId: job.spec.id, detail });
    job.psCounters().oomKills++;
    this.crash(job, null, 'OOM-killed', task);
  }

  /** Carries out the recovery policy's plans to grow the jobs it shrank back as capacity returns (cost: those jobs). */
  growBack(): void {
    if (!this.recovery.growBack) return;
    for (const plan of this.recovery.growBack(this.growBackContext())) this.grow(this.control.job(plan.jobId), plan);
  }

  /** One step back towards a job's requested workers: its speed so far is recorded, it takes the workers and pauses. */
  private grow(job: JobRuntime, plan: GrowPlan): void {
    if (plan.add.length > 0) {
      job.advanceTo(this.engine.nowS);
      this.control.recordSpeedSample(job);
      this.control.addTasks(job, plan.add);
      this.control.takeShape(job);
    }
    if (plan.done) job.shrunkByRecovery = false;
    if (plan.add.length === 0) return;
    this.control.pause(job, plan.pause);
    this.faults.log({ timeS: this.engine.nowS, event: 'job-scaled-up', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: `back to ${job.workers} workers` });
  }

  /** The slowest speed factor of the job's tasks on the node (`onNode`), for the node check's test. */
  private nodeFactorFor(nodeIndex: number, onNode: readonly TaskPlacement[]): number {
    let factor = 1;
    for (const task of onNode) factor = Math.min(factor, this.faults.speedFactor(nodeIndex, task.gpuIndices));
    return factor;
  }

  /** Running jobs holding the GPU (or, with gpuIndex null, anything on the node), in start order; cost: the jobs on the node. */
  private jobsOn(nodeIndex: number, gpuIndex: number | null): JobRuntime[] {
    const jobs: JobRuntime[] = [];
    for (const jobId of this.cluster.jobsOnNode(nodeIndex)) {
      const job = this.control.job(jobId);
      if (job.phase !== 'running') continue;
      const tasks = this.cluster.tasksOf(jobId) ?? [];
      if (gpuIndex === null || tasks.some((t) => t.nodeIndex === nodeIndex && t.gpuIndices.includes(gpuIndex))) jobs.push(job);
    }
    return jobs.sort((a, b) => this.control.startOrder(a) - this.control.startOrder(b));
  }

  private logFault(event: string, occurrence: FaultOccurrence, jobId: string, detail: string): void {
    this.faults.log({
      timeS: this.engine.nowS,
      event,
      faultType: occurrence.type.name,
      node: this.cluster.nodes[occurrence.nodeIndex]!.name,
      gpu: occurrence.gpuIndex,
      jobId,
      detail,
    });
  }
}

/** A job's tasks grouped by node, nodes in the order their first task comes. */
function tasksByNode(tasks: readonly TaskPlacement[]): Map<number, TaskPlacement[]> {
  const byNode = new Map<number, TaskPlacement[]>();
  for (const task of tasks) {
    const onNode = byNode.get(task.nodeIndex);
    if (onNode) onNode.push(task);
    else byNode.set(task.nodeIndex, [task]);
  }
  return byNode;
}
