import { Engine } from '../engine/engine.js';
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
import type { RecoveryPolicy } from '../policies/recovery/types.js';
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
import { FaultHandler } from './fault-handler.js';
import { InvariantChecker, invariantChecksByDefault } from './invariants.js';
import { isRecoveryPause, JobRuntime, type PauseStep } from './job-runtime.js';
import { checkShape } from './shape-check.js';

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
  /**
   * Check the cluster's accounting, the jobs' phases and time accounting after every instant, and
   * the summary at the end (an InvariantError on any breach); absent: invariantChecksByDefault().
   */
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
  /** When each running job joined the running list, as a count of starts (orders jobs as the list does). */
  private readonly startOrders = new Map<JobRuntime, number>();
  private starts = 0;
  private endedJobs = 0;
  private readonly faults: FaultTracker;
  private readonly faultHandler: FaultHandler;
  private dirty = false;
  private finished = false;
  private readonly checker: InvariantChecker | null;

  constructor(
    private readonly scenario: Scenario,
    options: SimOptions = {},
  ) {
    const stack = presetStack(scenario.policy);
    this.scheduling = options.schedulingPolicy ?? schedulingPolicies[stack.scheduling]!({ userWeights: scenario.userWeights ?? {} });
    this.placement = placementPolicies[stack.placement]!();
    this.recovery = recoveryPolicies[scenario.recovery ?? stack.recovery]!.create(scenario.recoveryTimesS ?? {});
    this.cluster = new ClusterState(scenario.cluster);
    this.jobs = scenario.jobs.map((spec) => new JobRuntime(spec, scenario.seed));
    this.jobs.forEach((job, index) => {
      if (this.jobsById.has(job.spec.id)) throw new InvariantError(`duplicate job id ${job.spec.id}`);
      this.jobsById.set(job.spec.id, job);
      this.arrivalIndex.set(job, index);
    });
    this.checker = (options.checkInvariants ?? invariantChecksByDefault()) ? new InvariantChecker(this.jobs, this.cluster) : null;
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
    this.faultHandler = new FaultHandler({
      engine: this.engine,
      cluster: this.cluster,
      scenario,
      placement: this.placement,
      recovery: this.recovery,
      tracker: this.faults,
      running: this.running,
      job: (jobId) => this.job(jobId),
      startOrder: (job) => this.startOrders.get(job)!,
      jobsRemain: () => this.endedJobs < this.jobs.length,
      markDirty: () => {
        this.dirty = true;
      },
      jobEnded: () => {
        this.endedJobs++;
      },
      enqueue: (job) => this.queued.push(job),
      requeue: (job) => this.requeue(job),
      pause: (job, steps) => this.pause(job, steps),
      refreshRate: (job) => this.refreshRate(job),
      takeShape: (job) => this.takeShape(job),
      stopRunning: (job) => this.stopRunning(job),
      recordSpeedSample: (job) => this.recordSpeedSample(job),
    });
    if (this.jobs.length > 0) this.faultHandler.start();
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
    // Jobs that have not ended are accounted up to the end, a crashed one waiting for its resubmission too.
    for (const job of this.jobs) {
      if (job.phase === 'running' || job.phase === 'queued' || (job.phase === 'waiting' && job.firstStartS !== null)) job.advanceTo(endS);
    }
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
      events: this.engine.dispatched,
    });
    this.checker?.afterRun(summary, endS);
    return { summary, jobs: this.jobs, endS, timeline: this.faults.timeline };
  }

  private isStale(event: SimEvent): boolean {
    switch (event.kind) {
      case 'job-finish':
      case 'checkpoint':
      case 'checkpoint-done':
      case 'job-broken': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || job.epoch !== event.epoch;
      }
      case 'job-resume': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || !job.paused || job.pauses !== event.pause;
      }
      case 'job-oom': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || job.trainingStarts !== event.trainingStart;
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
        return this.faultHandler.onFault(event.occurrence, event.replayIndex);
      case 'repair':
        return this.faultHandler.onRepair(event.occurrence);
      case 'isolate':
        return this.faultHandler.isolate(event.occurrence);
      case 'job-broken':
        return this.faultHandler.onBrokenStart(this.job(event.jobId));
      case 'job-hang-timeout':
        return this.faultHandler.crash(this.job(event.jobId), null, 'watchdog timeout');
      case 'job-oom':
        return this.faultHandler.onOom(this.job(event.jobId));
      case 'checkpoint':
        return this.onCheckpoint(this.job(event.jobId));
      case 'checkpoint-done':
        return this.onCheckpointDone(this.job(event.jobId));
      case 'job-resubmit':
        return this.faultHandler.onResubmit(this.job(event.jobId), event.rescheduleS);
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
    const key = JSON.stringify([job.spec.kind, job.spec.gpuTypes, job.spec.roles, job.spec.elastic]);
    let fits = this.everFitsByShape.get(key);
    if (fits === undefined) {
      // The smallest gang the policy would start it with: an elastic job that fits only below its
      // requested size would otherwise wait for good under a policy that starts jobs at that size.
      const smallest = this.scheduling.smallestStart?.(job.request) ?? placementRequestOf(job.request);
      fits = this.placement.place(new CapacityScratch(this.cluster, 'empty'), smallest) !== null;
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
    // A resize keeps the processes (and their memory); any other pause restarted them.
    if (job.pauseSteps.some((step) => step.kind !== 'resizing')) this.faultHandler.onTrainingStart(job);
    this.faultHandler.checkBrokenStart(job);
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
    // Jobs that crashed in this instant recover once each, against the hardware all their faults left.
    this.faultHandler.recoverCrashed();
    // Running jobs matter too: elastic ones may grow into capacity a finished job freed.
    if (this.dirty && (this.queued.length > 0 || this.running.length > 0)) this.schedulePass();
    this.dirty = false;
    this.checker?.afterInstant({ nowS: this.engine.nowS, queued: this.queued, running: this.running, endedJobs: this.endedJobs });
  }

  private schedulePass(): void {
    const nowS = this.engine.nowS;
    for (const job of this.running) job.advanceTo(nowS);
    const context: SchedulingContext<JobRuntime> = {
      nowS,
      cluster: this.cluster,
      queued: this.queued,
      running: this.running,
      placement: this.placement,
      scratch: () => new CapacityScratch(this.cluster),
    };
    const actions = this.scheduling.schedule(context);
    this.applyActions(actions);
    this.faultHandler.growBack();
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
    job.paused = false;
    job.firstStartS ??= nowS;
    this.running.push(job);
    this.startOrders.set(job, this.starts++);
    this.takeShape(job);
    if (restarting) {
      // After a crash: pods start, processes start and the checkpoint loads; after a preemption: a resize pause and the start-up.
      this.pause(job, job.restartPause ?? [...this.resizePause(), { kind: 'starting', seconds: job.spec.startupS ?? 0 }]);
      job.restartPause = null;
    } else {
      this.pause(job, [{ kind: 'starting', seconds: job.spec.startupS ?? 0 }]);
    }
    if (!job.paused) this.faultHandler.onTrainingStart(job);
    this.faultHandler.checkBrokenStart(job);
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
      job.nodesUsed.add(this.cluster.nodes[task.nodeIndex]!.name);
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
    job.hardwareFactor = this.faultHandler.hardwareFactorOf(job);
    this.refreshRate(job);
  }

  /** Pauses a running job's training for the steps given, one after another; a resume event ends the pause. Returns its length in seconds. */
  private pause(job: JobRuntime, steps: readonly PauseStep[]): number {
    const pauseS = steps.reduce((sum, step) => sum + step.seconds, 0);
    if (pauseS <= 0) return 0;
    job.paused = true;
    job.pauses++;
    job.pauseSteps = steps;
    job.pauseForRecovery = isRecoveryPause(steps);
    job.pauseStartS = this.engine.nowS;
    this.refreshRate(job);
    this.engine.scheduleAt(this.engine.nowS + pauseS, { kind: 'job-resume', jobId: job.spec.id, pause: job.pauses });
    return pauseS;
  }

  /** The pause of a resize: re-forming the group. */
  private resizePause(): PauseStep[] {
    return [{ kind: 'resizing', seconds: this.scenario.params.resizePauseS }];
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

  /** Records the speed the job measured at its current shape since it took it (with measurement noise). */
  private recordSpeedSample(job: JobRuntime): void {
    if (job.phase !== 'running' || job.paused || this.engine.nowS <= job.shapeSinceS) return;
    const noise = 1 + SPEED_NOISE * keyedNormal(`dlsim:${this.scenario.seed}:speed:${job.spec.id}:${job.speedSamples.length}`);
    job.speedSamples.push({ ps: job.ps, workers: job.workers, stepsPerS: job.rateStepsPerS * noise });
  }

  /** Puts a job back in the queue in submission order. */
  private requeue(job: JobRuntime): void {
    const index = this.arrivalIndex.get(job)!;
    let at = this.queued.length;
    while (at > 0 && this.arrivalIndex.get(this.queued[at - 1]!)! > index) at--;
    this.queued.splice(at, 0, job);
  }

  private stopRunning(job: JobRuntime): void {
    this.cluster.release(job.spec.id);
    this.busyGpus -= job.busyGpusCounted;
    job.busyGpusCounted = 0;
    job.gpus = 0;
    job.cpuMilli = 0;
    job.workers = 0;
    job.ps = 0;
    job.hardwareFactor = 1;
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

/** A job's checkpoint interval in training seconds, from its spec and, for 'auto', the scenario's fault rates (at least one nominal step). */
function checkpointIntervalS(job: JobRuntime, scenario: Scenario, stackSaveS: number | undefined): number {
  const checkpoint = job.spec.checkpoint;
  if (!checkpoint) return Infinity;
  if (checkpoint.intervalS !== 'auto') return checkpoint.intervalS;
  const gpuNodes = scenario.cluster.nodes.filter((n) => n.gpus > 0);
  const gpusPerNode = gpuNodes.length > 0 ? gpuNodes.reduce((sum, n) => sum + n.gpus, 0) / gpuNodes.length : 8;
  const perGpuDay = scenario.faults ? totalRatePerGpuDay(scenario.faults.catalog, gpusPerNode) : 0;
  const failuresPerS = (perGpuDay / 86_400) * Math.max(1, requestedGpus(job.spec));
  const intervalS = youngDalyIntervalS(checkpoint.flash ? FLASH_SAVE_BLOCK_S : (stackSaveS ?? checkpoint.saveS), failuresPerS);
  // A save costing nothing gives an interval of 0: saves are taken at step boundaries, at most one per step.
  return Math.max(intervalS, 1 / job.nominalRateStepsPerS);
}
