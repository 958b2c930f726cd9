import { Engine } from '../engine/engine.js';
import { RandomStreams } from '../engine/random.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import { RateInjector } from '../faults/rate-injector.js';
import { assertNever, InvariantError } from '../errors.js';
import type { TaskPlacement } from '../model/allocation.js';
import { CapacityScratch } from '../model/capacity.js';
import { ClusterState } from '../model/cluster-state.js';
import { keyedNormal, SPEED_NOISE } from '../model/observations.js';
import { stepsPerS } from '../model/speed.js';
import { youngDalyIntervalS } from '../model/checkpoint.js';
import { FLASH_SAVE_BLOCK_S, requestedGpus } from '../model/job-spec.js';
import { totalRatePerGpuDay } from '../faults/catalog.js';
import { buildSummary, type RunSummary } from '../metrics/summary.js';
import { UsageMeter } from '../metrics/usage-meter.js';
import { presetStack } from '../policies/presets.js';
import { placementPolicies, recoveryPolicies, schedulingPolicies } from '../policies/registry.js';
import { runNodeCheck } from '../policies/recovery/node-check.js';
import type { InPlaceRecovery, RecoveryPolicy } from '../policies/recovery/types.js';
import {
  placementRequestOf,
  type PlacementPolicy,
  type SchedulingAction,
  type SchedulingContext,
  type SchedulingPolicy,
} from '../policies/types.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimEvent } from './events.js';
import { FaultTracker, type TimelineRow } from './fault-tracker.js';
import { JobRuntime, type PauseStep } from './job-runtime.js';
import { checkShape } from './shape-check.js';

/** Seconds a healthy node takes for the node check's GEMM + allgather test. */
const NODE_TEST_S = 10;

/** What a finished run returns: the summary (without perf) and every job's final state. */
export interface SimResult {
  readonly summary: RunSummary;
  readonly jobs: readonly JobRuntime[];
  /** Simulated time the run stopped at, in seconds. */
  readonly endS: number;
  /** Faults, repairs and what they did to jobs, in time order (empty without faults). */
  readonly timeline: readonly TimelineRow[];
}

/** Options for tests and tools. */
export interface SimOptions {
  /** Re-derive and check all cluster accounting after every instant (slow; for tests). */
  readonly checkInvariants?: boolean;
  /** Use this scheduling policy instead of the preset's (tests and tools). */
  readonly schedulingPolicy?: SchedulingPolicy;
}

/** Wires the engine, the cluster state, the jobs and the policy stack; the only code that changes cluster state. */
export class Simulation {
  readonly cluster: ClusterState;
  private readonly engine: Engine<SimEvent>;
  private readonly jobs: JobRuntime[];
  private readonly jobsById = new Map<string, JobRuntime>();
  private readonly arrivalIndex = new Map<JobRuntime, number>();
  private readonly scheduling: SchedulingPolicy;
  private readonly placement: PlacementPolicy;
  private readonly recovery: RecoveryPolicy;
  private readonly meter: UsageMeter;
  private readonly everFitsByShape = new Map<string, boolean>();
  private queued: JobRuntime[] = [];
  private running: JobRuntime[] = [];
  private busyGpus = 0;
  private endedJobs = 0;
  private readonly faults: FaultTracker;
  private readonly injector: RateInjector | null;
  /** Slowdown faults and the job each one slowed, until repaired. */
  private readonly slowedJobs = new Map<FaultOccurrence, JobRuntime>();
  /** Broken GPUs and networks the scheduler cannot see yet (the node looks healthy) until isolated. */
  private readonly hidden = new Set<FaultOccurrence>();
  private dirty = false;
  private finished = false;

  constructor(
    private readonly scenario: Scenario,
    private readonly options: SimOptions = {},
  ) {
    const stack = presetStack(scenario.policy);
    this.scheduling = options.schedulingPolicy ?? schedulingPolicies[stack.scheduling]!();
    this.placement = placementPolicies[stack.placement]!();
    this.recovery = recoveryPolicies[scenario.recovery ?? stack.recovery]!.create(scenario.recoveryTimesS ?? {});
    this.cluster = new ClusterState(scenario.cluster);
    this.jobs = scenario.jobs.map((spec) => new JobRuntime(spec, scenario.seed));
    this.jobs.forEach((job, index) => {
      if (this.jobsById.has(job.spec.id)) throw new InvariantError(`duplicate job id ${job.spec.id}`);
      this.jobsById.set(job.spec.id, job);
      this.arrivalIndex.set(job, index);
    });
    this.engine = new Engine<SimEvent>({
      isStale: (event) => this.isStale(event),
      dispatch: (event) => this.dispatch(event),
      endOfInstant: () => this.endOfInstant(),
    });
    const firstSubmitS = this.jobs[0]?.spec.submitS ?? 0;
    this.meter = new UsageMeter(firstSubmitS, () => ({
      allocatedGpus: this.cluster.allocatedGpus,
      busyGpus: this.busyGpus,
      allocatedCpuMilli: this.cluster.allocatedCpuMilli,
    }));
    if (this.jobs.length > 0) {
      this.engine.scheduleAt(firstSubmitS, { kind: 'job-arrival', jobIndex: 0 });
      if (this.scheduling.tickS !== undefined) this.engine.scheduleAt(firstSubmitS + this.scheduling.tickS, { kind: 'policy-tick' });
    }
    this.faults = new FaultTracker(scenario.cluster.nodes.map((n) => n.gpus));
    for (const job of this.jobs) job.checkpointIntervalS = checkpointIntervalS(job, scenario, this.recovery.checkpointCosts?.saveS);
    const setup = scenario.faults;
    this.injector = setup && setup.catalog.types.length > 0 ? new RateInjector(setup.catalog, scenario.cluster, new RandomStreams(scenario.seed)) : null;
    if (this.jobs.length > 0) {
      this.scheduleRateFault();
      const firstReplayed = setup?.replay[0];
      if (firstReplayed) this.engine.scheduleAt(firstReplayed.timeS, { kind: 'fault', occurrence: firstReplayed, replayIndex: 0 });
    }
  }

  /** Current simulated time in seconds. */
  get nowS(): number {
    return this.engine.nowS;
  }

  /** Schedules a change of a job's speed at `atS` (scripted slowdowns; later, stragglers and faults). */
  scheduleSpeedFactor(atS: number, jobId: string, factor: number): void {
    this.engine.scheduleAt(atS, { kind: 'job-speed-factor', jobId, factor });
  }

  /** Runs to the scenario's horizon (or until nothing is left to happen) and returns the result. */
  run(): SimResult {
    if (this.finished) throw new InvariantError('a Simulation runs once');
    this.finished = true;
    this.engine.run(this.scenario.horizonS);
    const endS = this.engine.nowS;
    this.meter.advanceTo(endS);
    for (const job of this.jobs) if (job.phase === 'running' || job.phase === 'queued') job.advanceTo(endS);
    const summary = buildSummary({
      scenario: this.scenario.name,
      policy: this.scenario.policy,
      seed: this.scenario.seed,
      jobs: this.jobs,
      endS,
      totalGpus: this.cluster.totalGpus,
      totalCpuMilli: this.cluster.totalCpuMilli,
      allocatedGpuS: this.meter.allocatedGpuS,
      busyGpuS: this.meter.busyGpuS,
      allocatedCpuMilliS: this.meter.allocatedCpuMilliS,
      faultsByType: this.faults.byType(),
      daysWithFault: this.faults.daysWithFaultShare(endS),
      events: this.engine.dispatched,
    });
    return { summary, jobs: this.jobs, endS, timeline: this.faults.timeline };
  }

  private isStale(event: SimEvent): boolean {
    switch (event.kind) {
      case 'job-finish':
      case 'job-resume':
      case 'checkpoint':
      case 'checkpoint-done':
      case 'job-broken': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || job.epoch !== event.epoch;
      }
      case 'job-hang-timeout': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || !job.hung || job.hangs !== event.hang;
      }
      case 'job-arrival':
      case 'job-speed-factor':
      case 'policy-tick':
      case 'fault':
      case 'repair':
      case 'job-resubmit':
      case 'isolate':
        return false;
      default:
        return assertNever(event);
    }
  }

  private dispatch(event: SimEvent): void {
    this.meter.advanceTo(this.engine.nowS);
    switch (event.kind) {
      case 'job-arrival':
        return this.onArrival(event.jobIndex);
      case 'job-finish':
        return this.onFinish(this.job(event.jobId));
      case 'job-resume':
        return this.onResume(this.job(event.jobId));
      case 'job-speed-factor':
        return this.onSpeedFactor(this.job(event.jobId), event.factor);
      case 'policy-tick':
        return this.onTick();
      case 'fault':
        return this.onFault(event.occurrence, event.replayIndex);
      case 'repair':
        return this.onRepair(event.occurrence);
      case 'isolate':
        return this.isolate(event.occurrence);
      case 'job-broken':
        return this.onBrokenStart(this.job(event.jobId));
      case 'job-hang-timeout':
        return this.crash(this.job(event.jobId), null, 'watchdog timeout');
      case 'checkpoint':
        return this.onCheckpoint(this.job(event.jobId));
      case 'checkpoint-done':
        return this.onCheckpointDone(this.job(event.jobId));
      case 'job-resubmit':
        return this.onResubmit(this.job(event.jobId), event.rescheduleS);
      default:
        return assertNever(event);
    }
  }

  private onArrival(jobIndex: number): void {
    const job = this.jobs[jobIndex]!;
    const next = this.jobs[jobIndex + 1];
    if (next) this.engine.scheduleAt(next.spec.submitS, { kind: 'job-arrival', jobIndex: jobIndex + 1 });
    job.lastUpdateS = this.engine.nowS;
    if (!this.everFits(job)) {
      job.phase = 'failed';
      job.failureReason = 'unschedulable';
      job.endS = this.engine.nowS;
      this.endedJobs++;
      return;
    }
    job.phase = 'queued';
    this.queued.push(job);
    this.dirty = true;
  }

  /** True when the job would fit the whole installed cluster, empty; cached per job shape. */
  private everFits(job: JobRuntime): boolean {
    const key = JSON.stringify([job.spec.gpuTypes, job.spec.roles, job.spec.elastic]);
    let fits = this.everFitsByShape.get(key);
    if (fits === undefined) {
      const smallest = job.spec.elastic ? job.spec.elastic.minReplicas : undefined;
      fits = this.placement.place(new CapacityScratch(this.cluster, 'empty'), placementRequestOf(job.spec, smallest)) !== null;
      this.everFitsByShape.set(key, fits);
    }
    return fits;
  }

  private onFinish(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.progressSteps = job.spec.totalSteps;
    this.stopRunning(job);
    job.phase = 'completed';
    job.endS = this.engine.nowS;
    this.endedJobs++;
    this.dirty = true;
  }

  private onResume(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.paused = false;
    job.shapeSinceS = this.engine.nowS;
    this.refreshRate(job);
    this.checkBrokenStart(job);
  }

  private onSpeedFactor(job: JobRuntime, factor: number): void {
    if (!(factor > 0)) throw new InvariantError(`job ${job.spec.id}: speed factor ${factor} must be positive`);
    job.advanceTo(this.engine.nowS);
    this.recordSpeedSample(job);
    job.speedFactor = factor;
    job.shapeSinceS = this.engine.nowS;
    if (job.phase === 'running') this.refreshRate(job);
  }

  private onTick(): void {
    this.dirty = true;
    if (this.endedJobs < this.jobs.length) {
      this.engine.scheduleAt(this.engine.nowS + this.scheduling.tickS!, { kind: 'policy-tick' });
    }
  }

  private endOfInstant(): void {
    // Running jobs matter too: elastic ones may grow into capacity a finished job freed.
    if (this.dirty && (this.queued.length > 0 || this.running.length > 0)) this.schedulePass();
    this.dirty = false;
    if (this.options.checkInvariants) this.cluster.checkInvariants();
  }

  private schedulePass(): void {
    const nowS = this.engine.nowS;
    for (const job of this.running) job.advanceTo(nowS);
    const context: SchedulingContext = {
      nowS,
      cluster: this.cluster,
      queued: this.queued,
      running: this.running,
      placement: this.placement,
      scratch: () => new CapacityScratch(this.cluster),
    };
    const actions = this.scheduling.schedule(context);
    this.applyActions(actions);
    this.growBack();
  }

  /** Applies a policy's actions: preemptions, then resize removals, resize additions, and starts. */
  private applyActions(actions: readonly SchedulingAction[]): void {
    const touched = new Set<string>();
    const claim = (jobId: string): JobRuntime => {
      if (touched.has(jobId)) throw new InvariantError(`${this.scheduling.name}: two actions for job ${jobId}`);
      touched.add(jobId);
      return this.job(jobId);
    };
    const resized: JobRuntime[] = [];
    const started = new Set<JobRuntime>();
    for (const action of actions) if (action.kind === 'preempt') this.preempt(claim(action.jobId));
    for (const action of actions) {
      if (action.kind !== 'resize') continue;
      const job = claim(action.jobId);
      this.expectPhase(job, 'running', action.kind);
      job.advanceTo(this.engine.nowS);
      this.recordSpeedSample(job);
      this.cluster.releaseTasks(job.spec.id, action.remove);
      resized.push(job);
    }
    for (const action of actions) {
      if (action.kind === 'resize') this.cluster.allocate(action.jobId, action.add);
    }
    for (const job of resized) {
      job.resizes++;
      this.takeShape(job);
      this.pause(job, this.resizePause());
    }
    for (const action of actions) {
      switch (action.kind) {
        case 'start': {
          const job = claim(action.jobId);
          this.expectPhase(job, 'queued', action.kind);
          this.start(job, action.tasks);
          started.add(job);
          break;
        }
        case 'resize':
        case 'preempt':
          break;
        default:
          assertNever(action);
      }
    }
    if (started.size > 0) this.removeFromQueue(started);
  }

  /** Removes started jobs from the queue; the usual case, a prefix of it, is a cheap splice. */
  private removeFromQueue(started: ReadonlySet<JobRuntime>): void {
    let prefix = 0;
    while (prefix < this.queued.length && started.has(this.queued[prefix]!)) prefix++;
    if (prefix === started.size) this.queued.splice(0, prefix);
    else this.queued = this.queued.filter((job) => !started.has(job));
  }

  private expectPhase(job: JobRuntime, phase: JobRuntime['phase'], action: string): void {
    if (job.phase !== phase) {
      throw new InvariantError(`${this.scheduling.name}: cannot ${action} job ${job.spec.id} in phase ${job.phase}`);
    }
  }

  private start(job: JobRuntime, tasks: readonly TaskPlacement[]): void {
    const nowS = this.engine.nowS;
    job.advanceTo(nowS);
    this.cluster.allocate(job.spec.id, tasks);
    const restarting = job.firstStartS !== null;
    job.phase = 'running';
    job.firstStartS ??= nowS;
    this.running.push(job);
    this.takeShape(job);
    if (restarting) {
      // After a crash: pods start, processes start and the checkpoint loads; after a preemption: a resize pause and the start-up.
      this.pause(job, job.restartPause ?? [...this.resizePause(), { kind: 'starting', seconds: job.spec.startupS ?? 0 }]);
      job.restartPause = null;
    } else {
      this.pause(job, [{ kind: 'starting', seconds: job.spec.startupS ?? 0 }]);
    }
    this.checkBrokenStart(job);
  }

  /** Stops a running job and queues it again in submission order, keeping its progress. */
  private preempt(job: JobRuntime): void {
    this.expectPhase(job, 'running', 'preempt');
    job.advanceTo(this.engine.nowS);
    this.recordSpeedSample(job);
    this.stopRunning(job);
    job.phase = 'queued';
    job.paused = false;
    job.preemptions++;
    this.requeue(job);
  }

  /** Reads the job's replica counts and resources from what it holds and recomputes its speed. */
  private takeShape(job: JobRuntime): void {
    const tasks = this.cluster.tasksOf(job.spec.id) ?? [];
    checkShape(job.spec, tasks, this.scheduling.name);
    job.workers = 0;
    job.ps = 0;
    job.gpus = 0;
    job.cpuMilli = 0;
    const racks = new Set<string>();
    for (const task of tasks) {
      if (task.role === 'worker') {
        job.workers++;
        racks.add(this.cluster.nodes[task.nodeIndex]!.rack);
      } else if (task.role === 'ps') {
        job.ps++;
      }
      job.gpus += (task.gpuIndices.length * task.demand.gpuMilli) / 1000;
      job.cpuMilli += task.demand.cpuMilli;
    }
    job.gpusWhenRunning = job.gpus;
    job.cpuMilliWhenRunning = job.cpuMilli;
    const crossRack = job.spec.kind === 'allreduce' && racks.size > 1;
    job.baseRateStepsPerS =
      stepsPerS(job.spec, { workers: job.workers, ps: job.ps }) / (crossRack ? this.scenario.params.crossRackSlowdown : 1);
    job.shapeSinceS = this.engine.nowS;
    this.refreshRate(job);
  }

  /** Pauses a running job's training for the steps given, one after another; a resume event ends the pause. */
  private pause(job: JobRuntime, steps: readonly PauseStep[]): void {
    const pauseS = steps.reduce((sum, step) => sum + step.seconds, 0);
    if (pauseS <= 0) return;
    job.paused = true;
    job.pauseSteps = steps;
    job.pauseStartS = this.engine.nowS;
    this.refreshRate(job);
    this.engine.scheduleAt(this.engine.nowS + pauseS, { kind: 'job-resume', jobId: job.spec.id, epoch: job.epoch });
  }

  /** The pause of a resize: re-forming the group. */
  private resizePause(): PauseStep[] {
    return [{ kind: 'resizing', seconds: this.scenario.params.resizePauseS }];
  }

  /** What restarting a job's training processes costs after `before`: their start-up, then the checkpoint load. */
  private restartSteps(job: JobRuntime, ...before: PauseStep[]): PauseStep[] {
    return [...before, { kind: 'starting', seconds: job.spec.startupS ?? 0 }, { kind: 'loading', seconds: this.checkpointLoadS(job) }];
  }

  /** Updates the job's share of busy GPUs and reschedules its finish for its current rate. */
  private refreshRate(job: JobRuntime): void {
    this.busyGpus -= job.busyGpusCounted;
    job.busyGpusCounted = job.rateStepsPerS > 0 ? job.gpus * job.speedFactor * job.faultSlowdown : 0;
    this.busyGpus += job.busyGpusCounted;
    job.epoch++;
    const finishS = job.finishTimeS();
    if (Number.isFinite(finishS)) {
      this.engine.scheduleAt(finishS, { kind: 'job-finish', jobId: job.spec.id, epoch: job.epoch });
    }
    if (job.phase !== 'running') return;
    if (job.saving) {
      this.engine.scheduleAt(Math.max(job.savingUntilS, this.engine.nowS), { kind: 'checkpoint-done', jobId: job.spec.id, epoch: job.epoch });
    } else if (job.rateStepsPerS > 0 && Number.isFinite(job.checkpointIntervalS)) {
      const dueS = this.engine.nowS + Math.max(0, job.checkpointIntervalS - job.trainedSinceCheckpointS);
      if (dueS < finishS) this.engine.scheduleAt(dueS, { kind: 'checkpoint', jobId: job.spec.id, epoch: job.epoch });
    }
  }

  /** A checkpoint save starts: training blocks for the save (flash: half a second). */
  private onCheckpoint(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    const checkpoint = job.spec.checkpoint!;
    job.saving = true;
    job.savingSteps = job.progressSteps;
    job.savingUntilS = this.engine.nowS + (checkpoint.flash ? FLASH_SAVE_BLOCK_S : (this.recovery.checkpointCosts?.saveS ?? checkpoint.saveS));
    this.refreshRate(job);
  }

  /** A checkpoint save completes: it becomes the point a crash rolls back to. */
  private onCheckpointDone(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.saving = false;
    job.previousCheckpointedSteps = job.checkpointedSteps;
    job.checkpointedSteps = job.savingSteps;
    job.trainedSinceCheckpointS = 0;
    this.refreshRate(job);
  }

  /** A crashed job joins the queue again (at its end, like a new submission). */
  private onResubmit(job: JobRuntime, rescheduleS: number): void {
    job.advanceTo(this.engine.nowS);
    job.phase = 'queued';
    job.restartPause = this.restartSteps(job, { kind: 'rescheduling', seconds: rescheduleS });
    this.queued.push(job);
    this.faults.log({ timeS: this.engine.nowS, event: 'job-resubmitted', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: '' });
    this.dirty = true;
  }

  /** Records the speed the job measured at its current shape since it took it (with measurement noise). */
  private recordSpeedSample(job: JobRuntime): void {
    if (job.phase !== 'running' || job.paused || this.engine.nowS <= job.shapeSinceS) return;
    const noise = 1 + SPEED_NOISE * keyedNormal(`dlsim:${this.scenario.seed}:speed:${job.spec.id}:${job.speedSamples.length}`);
    job.speedSamples.push({ ps: job.ps, workers: job.workers, stepsPerS: job.rateStepsPerS * noise });
  }

  /** Schedules the next rate-injected fault while jobs remain (after that, faults change nothing). */
  private scheduleRateFault(): void {
    if (!this.injector || this.endedJobs >= this.jobs.length) return;
    const next = this.injector.next();
    if (next) this.engine.scheduleAt(Math.max(next.timeS, this.engine.nowS), { kind: 'fault', occurrence: next, replayIndex: null });
  }

  /** Applies a fault's effect to the hardware and the jobs on it, and schedules its repair. */
  private onFault(occurrence: FaultOccurrence, replayIndex: number | null): void {
    if (replayIndex === null) {
      this.scheduleRateFault();
    } else {
      const next = this.scenario.faults!.replay[replayIndex + 1];
      if (next && this.endedJobs < this.jobs.length) {
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
        for (const job of victims) this.crash(job, occurrence, effect.kind === 'gpu-down' ? 'its GPU failed' : 'its node lost the network');
        return;
      case 'node-down':
        if (this.faults.nodeDown(nodeIndex)) this.cluster.setNodeHealth(nodeIndex, 'down');
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
      case 'hang':
        if (victims.length === 0) return;
        this.takeEffect(occurrence);
        for (const job of victims) this.hang(job, occurrence);
        return;
      case 'slowdown':
        if (victims.length === 0) return;
        this.takeEffect(occurrence);
        for (const job of victims) {
          job.advanceTo(this.engine.nowS);
          job.faultSlowdowns.push(effect.factor);
          this.slowedJobs.set(occurrence, job);
          this.refreshRate(job);
        }
        this.scheduleRepair(occurrence);
        return;
      default:
        assertNever(effect);
    }
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

  /** Takes broken hardware out of service once located (no-op when already isolated); its repair starts then. */
  private isolate(occurrence: FaultOccurrence, detail = 'taken out of service'): void {
    if (!this.hidden.delete(occurrence)) return;
    const { nodeIndex, gpuIndex } = occurrence;
    if (occurrence.type.effect.kind === 'gpu-down') {
      if (this.faults.gpuDown(nodeIndex, gpuIndex ?? 0)) this.cluster.setGpuUp(nodeIndex, gpuIndex ?? 0, false);
    } else if (this.faults.nodeDown(nodeIndex)) {
      this.cluster.setNodeHealth(nodeIndex, 'down');
    }
    this.logFault('isolated', occurrence, '', detail);
    for (const job of this.jobsOn(nodeIndex, occurrence.type.effect.kind === 'gpu-down' ? (gpuIndex ?? 0) : null)) {
      this.crash(job, occurrence, 'its hardware was taken out of service');
    }
    this.scheduleRepair(occurrence);
  }

  /** The hidden broken hardware under a job's tasks, if any. */
  private brokenUnder(tasks: readonly TaskPlacement[]): FaultOccurrence | null {
    for (const occurrence of this.hidden) {
      const onNode = tasks.filter((t) => t.nodeIndex === occurrence.nodeIndex);
      if (onNode.length === 0) continue;
      if (occurrence.type.effect.kind !== 'gpu-down') return occurrence;
      if (onNode.some((t) => t.gpuIndices.includes(occurrence.gpuIndex ?? 0))) return occurrence;
    }
    return null;
  }

  /** A job that starts training on broken hardware crashes at once. */
  private onBrokenStart(job: JobRuntime): void {
    const occurrence = this.brokenUnder(this.cluster.tasksOf(job.spec.id) ?? []);
    if (occurrence) this.crash(job, occurrence, 'it started on broken hardware');
  }

  /** Checks, once the instant's actions are applied, whether a job begins training on broken hardware. */
  private checkBrokenStart(job: JobRuntime): void {
    if (this.hidden.size === 0 || job.paused) return;
    if (this.brokenUnder(this.cluster.tasksOf(job.spec.id) ?? [])) {
      this.engine.scheduleAt(this.engine.nowS, { kind: 'job-broken', jobId: job.spec.id, epoch: job.epoch });
    }
  }

  /** Undoes what a fault did to the hardware once it is repaired. */
  private onRepair(occurrence: FaultOccurrence): void {
    const { nodeIndex, gpuIndex } = occurrence;
    const effect = occurrence.type.effect;
    switch (effect.kind) {
      case 'gpu-down':
        if (this.faults.gpuRepaired(nodeIndex, gpuIndex ?? 0)) this.cluster.setGpuUp(nodeIndex, gpuIndex ?? 0, true);
        break;
      case 'node-down':
      case 'network-down':
        if (this.faults.nodeRepaired(nodeIndex)) this.cluster.setNodeHealth(nodeIndex, 'up');
        break;
      case 'slowdown': {
        const job = this.slowedJobs.get(occurrence);
        this.slowedJobs.delete(occurrence);
        if (!job) break;
        job.advanceTo(this.engine.nowS);
        const at = job.faultSlowdowns.indexOf(effect.factor);
        if (at >= 0) job.faultSlowdowns.splice(at, 1);
        if (job.phase === 'running') this.refreshRate(job);
        // A straggler the node check cordoned is healthy again once its last slowdown is repaired.
        if (this.cluster.nodeHealth(nodeIndex) === 'cordoned' && this.nodeSlowdown(nodeIndex) === 1) {
          this.cluster.setNodeHealth(nodeIndex, 'up');
        }
        break;
      }
      case 'crash':
      case 'silent-corruption':
      case 'hang':
        return;
      default:
        assertNever(effect);
    }
    this.logFault('repair', occurrence, '', '');
    this.dirty = true;
  }

  /** A hang stalls the job, holding its resources, until its watchdog fires. */
  private hang(job: JobRuntime, occurrence: FaultOccurrence): void {
    job.advanceTo(this.engine.nowS);
    if (job.hung) return;
    job.hung = true;
    job.hangs++;
    this.refreshRate(job);
    this.logFault('job-hang', occurrence, job.spec.id, 'training stalls until the watchdog fires');
    const timeoutS = this.scenario.faults!.hangTimeoutS;
    this.engine.scheduleAt(this.engine.nowS + timeoutS, { kind: 'job-hang-timeout', jobId: job.spec.id, hang: job.hangs });
  }

  /**
   * A job's training processes died: it rolls back to its last checkpoint (one further after silent
   * corruption) and its recovery policy decides what follows.
   */
  private crash(job: JobRuntime, occurrence: FaultOccurrence | null, why: string): void {
    // A job another job's recovery already crashed in this instant (e.g. through isolate()) is not running any more.
    if (job.phase !== 'running') return;
    const nowS = this.engine.nowS;
    job.advanceTo(nowS);
    const effect = occurrence?.type.effect.kind;
    const hardwareLost = effect === 'gpu-down' || effect === 'node-down' || effect === 'network-down';
    const lost = job.rollBack(effect === 'silent-corruption' ? 1 : 0);
    const faultType = occurrence?.type.name ?? '';
    this.faults.log({ timeS: nowS, event: 'job-crash', faultType, node: '', gpu: null, jobId: job.spec.id, detail: `${why}; ${Math.round(lost)} steps lost` });
    const tasks = [...(this.cluster.tasksOf(job.spec.id) ?? [])];
    const lostNodeIndices = [...new Set(tasks.map((t) => t.nodeIndex))].filter((i) => this.lostHardware(i, tasks));
    const rankZeroNodeIndex = tasks.find((t) => t.role === 'worker')?.nodeIndex ?? null;
    const cause = { fault: occurrence?.type ?? null, hardwareLost, lostNodeIndices, rankZeroNodeIndex, faultNodeIndex: occurrence?.nodeIndex ?? null };
    const plan = this.recovery.onCrash(job, cause, nowS);
    job.hung = false;
    this.dirty = true;
    if (plan.kind !== 'fail') job.restarts++;
    switch (plan.kind) {
      case 'fail':
        this.stopRunning(job);
        // Even the checkpointed work is lost: the job never completes.
        job.lostSteps += job.progressSteps;
        if (job.baseRateStepsPerS > 0) job.lostGpuS += (job.progressSteps / job.baseRateStepsPerS) * job.gpusWhenRunning;
        job.progressSteps = 0;
        job.phase = 'failed';
        job.failureReason = 'fault';
        job.endS = nowS;
        this.endedJobs++;
        this.faults.log({ timeS: nowS, event: 'job-failed', faultType, node: '', gpu: null, jobId: job.spec.id, detail: `recovery ${this.recovery.name}: ${plan.why}` });
        return;
      case 'resubmit':
        this.stopRunning(job);
        job.phase = 'waiting';
        this.engine.scheduleAt(nowS + plan.detectS, { kind: 'job-resubmit', jobId: job.spec.id, rescheduleS: plan.rescheduleS });
        return;
      case 'in-place':
        return this.recoverInPlace(job, plan, lostNodeIndices, tasks);
      default:
        assertNever(plan);
    }
  }

  /** True when the node, or one of the GPUs the tasks use on it, is down or broken. */
  private lostHardware(nodeIndex: number, tasks: readonly TaskPlacement[]): boolean {
    if (this.cluster.nodeHealth(nodeIndex) === 'down') return true;
    if (this.brokenUnder(tasks.filter((t) => t.nodeIndex === nodeIndex))) return true;
    return tasks.some((t) => t.nodeIndex === nodeIndex && t.gpuIndices.some((g) => !this.cluster.gpuUp(nodeIndex, g)));
  }

  /**
   * In-place recovery: the job keeps its healthy pods. With a node check, faulty nodes and
   * stragglers are found (and stragglers cordoned); the pods on lost or bad nodes are replaced on
   * healthy nodes, or the job shrinks to a multiple of its node unit, or, when neither is possible,
   * it waits in the queue for capacity. Then its processes restart and load the last checkpoint.
   */
  private recoverInPlace(job: JobRuntime, plan: InPlaceRecovery, lostNodeIndices: readonly number[], tasks: readonly TaskPlacement[]): void {
    const nowS = this.engine.nowS;
    const steps: PauseStep[] = [{ kind: 'detecting', seconds: plan.detectS }];
    const bad = new Set(lostNodeIndices);
    if (plan.nodeCheck) {
      const nodes = [...new Set(tasks.map((t) => t.nodeIndex))].map((nodeIndex) => ({
        nodeIndex,
        faulty: lostNodeIndices.includes(nodeIndex),
        testS: NODE_TEST_S / this.nodeSlowdown(nodeIndex),
      }));
      const check = runNodeCheck(nodes);
      steps.push({ kind: 'health-check', seconds: check.durationS });
      for (const nodeIndex of check.faulty) bad.add(nodeIndex);
      for (const nodeIndex of check.stragglers) {
        bad.add(nodeIndex);
        if (this.cluster.nodeHealth(nodeIndex) === 'up') {
          this.cluster.setNodeHealth(nodeIndex, 'cordoned');
          this.faults.log({ timeS: nowS, event: 'node-cordoned', faultType: '', node: this.cluster.nodes[nodeIndex]!.name, gpu: null, jobId: job.spec.id, detail: 'straggler found by the node check' });
        }
      }
    }
    for (const nodeIndex of plan.relaunchNodeIndices) bad.add(nodeIndex);
    const badTasks = tasks.filter((t) => bad.has(t.nodeIndex));
    let detail: string;
    if (badTasks.length === 0) {
      steps.push({ kind: 'starting', seconds: plan.restartS });
      detail = 'processes restarted';
    } else {
      this.cluster.releaseTasks(job.spec.id, badTasks);
      // Broken hardware the check found is taken out of service now that this job has left it.
      if (plan.nodeCheck) {
        for (const occurrence of [...this.hidden]) if (bad.has(occurrence.nodeIndex)) this.isolate(occurrence, 'found by the node check');
      }
      const replacement = this.placement.place(new CapacityScratch(this.cluster), {
        jobId: job.spec.id,
        gpuTypes: job.spec.gpuTypes,
        jobKind: job.spec.kind,
        replicas: badTasks.map((t) => ({ role: t.role, demand: t.demand })),
      });
      if (replacement) {
        this.cluster.allocate(job.spec.id, replacement);
        steps.push({ kind: 'rescheduling', seconds: plan.replaceS });
        detail = `${badTasks.length} pods replaced`;
      } else if (plan.scaleDownS !== null && this.scaleDown(job, badTasks)) {
        steps.push({ kind: 'rescheduling', seconds: plan.scaleDownS });
        job.growBackPause = this.restartSteps(job, { kind: 'rescheduling', seconds: plan.scaleDownS });
        detail = `scaled down to ${(this.cluster.tasksOf(job.spec.id) ?? []).filter((t) => t.role === 'worker').length} workers`;
      } else {
        this.stopRunning(job);
        job.phase = 'queued';
        job.restartPause = this.restartSteps(job, { kind: 'rescheduling', seconds: plan.replaceS });
        this.requeue(job);
        this.faults.log({ timeS: nowS, event: 'job-waiting', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: 'no healthy capacity: queued' });
        return;
      }
    }
    const restart = this.restartSteps(job, ...steps);
    this.takeShape(job);
    this.pause(job, restart);
    const pauseS = restart.reduce((sum, step) => sum + step.seconds, 0);
    this.faults.log({ timeS: nowS, event: 'job-recovering', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: `${detail}; training resumes in ${Math.round(pauseS)} s` });
  }

  /**
   * Shrinks an elastic job that lost only workers to the largest multiple of its node unit that
   * its remaining workers allow (at least its minimum); false when it cannot.
   */
  private scaleDown(job: JobRuntime, lostTasks: readonly TaskPlacement[]): boolean {
    const elastic = job.spec.elastic;
    if (!elastic || lostTasks.some((t) => t.role !== 'worker')) return false;
    const workers = (this.cluster.tasksOf(job.spec.id) ?? []).filter((t) => t.role === 'worker');
    const keep = Math.min(elastic.maxReplicas, Math.floor(workers.length / elastic.unit) * elastic.unit);
    if (keep < elastic.minReplicas) return false;
    this.cluster.releaseTasks(job.spec.id, workers.slice(keep));
    return true;
  }

  /** Grows jobs that recovery shrank back towards their requested workers, a node unit at a time, as capacity returns. */
  private growBack(): void {
    for (const job of this.running) {
      if (job.growBackPause === null || job.paused) continue;
      const elastic = job.spec.elastic!;
      const requested = job.spec.roles.find((r) => r.role === 'worker')!;
      const missing = Math.min(requested.replicas, elastic.maxReplicas) - job.workers;
      if (missing <= 0) {
        job.growBackPause = null;
        continue;
      }
      const scratch = new CapacityScratch(this.cluster);
      let add: TaskPlacement[] = [];
      for (let units = Math.floor(missing / elastic.unit); units > 0 && add.length === 0; units--) {
        const replicas = Array.from({ length: units * elastic.unit }, () => ({ role: 'worker' as const, demand: requested.demand }));
        add = this.placement.place(scratch, { jobId: job.spec.id, gpuTypes: job.spec.gpuTypes, jobKind: job.spec.kind, replicas }) ?? [];
      }
      if (add.length === 0) continue;
      job.advanceTo(this.engine.nowS);
      this.recordSpeedSample(job);
      this.cluster.allocate(job.spec.id, add);
      this.takeShape(job);
      const steps = job.growBackPause;
      if (job.workers >= Math.min(requested.replicas, elastic.maxReplicas)) job.growBackPause = null;
      this.pause(job, steps);
      this.faults.log({ timeS: this.engine.nowS, event: 'job-scaled-up', faultType: '', node: '', gpu: null, jobId: job.spec.id, detail: `back to ${job.workers} workers` });
    }
  }

  /** Product of the unrepaired slowdown factors of faults on the node (1 when none). */
  private nodeSlowdown(nodeIndex: number): number {
    let factor = 1;
    for (const occurrence of this.slowedJobs.keys()) {
      if (occurrence.nodeIndex === nodeIndex && occurrence.type.effect.kind === 'slowdown') factor *= occurrence.type.effect.factor;
    }
    return factor;
  }

  /** Seconds a restart spends loading the job's last checkpoint (the recovery stack's cost when it sets one). */
  private checkpointLoadS(job: JobRuntime): number {
    if (!job.spec.checkpoint) return 0;
    return this.recovery.checkpointCosts?.loadS ?? job.spec.checkpoint.loadS;
  }

  /** Puts a job back in the queue in submission order. */
  private requeue(job: JobRuntime): void {
    const index = this.arrivalIndex.get(job)!;
    let at = this.queued.length;
    while (at > 0 && this.arrivalIndex.get(this.queued[at - 1]!)! > index) at--;
    this.queued.splice(at, 0, job);
  }

  /** Running jobs holding the GPU (or, with gpuIndex null, anything on the node), in start order. */
  private jobsOn(nodeIndex: number, gpuIndex: number | null): JobRuntime[] {
    return this.running.filter((job) =>
      (this.cluster.tasksOf(job.spec.id) ?? []).some(
        (t) => t.nodeIndex === nodeIndex && (gpuIndex === null || t.gpuIndices.includes(gpuIndex)),
      ),
    );
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

  private stopRunning(job: JobRuntime): void {
    this.cluster.release(job.spec.id);
    this.busyGpus -= job.busyGpusCounted;
    job.busyGpusCounted = 0;
    job.gpus = 0;
    job.cpuMilli = 0;
    job.workers = 0;
    job.ps = 0;
    job.epoch++;
    const index = this.running.indexOf(job);
    if (index < 0) throw new InvariantError(`job ${job.spec.id} is not running`);
    this.running.splice(index, 1);
  }

  private job(jobId: string): JobRuntime {
    const job = this.jobsById.get(jobId);
    if (!job) throw new InvariantError(`unknown job ${jobId}`);
    return job;
  }
}

/** Runs a scenario once and returns its result. */
export function simulate(scenario: Scenario, options: SimOptions = {}): SimResult {
  return new Simulation(scenario, options).run();
}

/** A job's checkpoint interval in training seconds, from its spec and, for 'auto', the scenario's fault rates. */
function checkpointIntervalS(job: JobRuntime, scenario: Scenario, stackSaveS: number | undefined): number {
  const checkpoint = job.spec.checkpoint;
  if (!checkpoint) return Infinity;
  if (checkpoint.intervalS !== 'auto') return checkpoint.intervalS;
  const gpuNodes = scenario.cluster.nodes.filter((n) => n.gpus > 0);
  const gpusPerNode = gpuNodes.length > 0 ? gpuNodes.reduce((sum, n) => sum + n.gpus, 0) / gpuNodes.length : 8;
  const perGpuDay = scenario.faults ? totalRatePerGpuDay(scenario.faults.catalog, gpusPerNode) : 0;
  const failuresPerS = (perGpuDay / 86_400) * Math.max(1, requestedGpus(job.spec));
  return youngDalyIntervalS(checkpoint.flash ? FLASH_SAVE_BLOCK_S : (stackSaveS ?? checkpoint.saveS), failuresPerS);
}
