import { Engine } from '../engine/engine.js';
import { assertNever, InvariantError } from '../errors.js';
import type { TaskPlacement } from '../model/allocation.js';
import { CapacityScratch } from '../model/capacity.js';
import { ClusterState } from '../model/cluster-state.js';
import { stepsPerS } from '../model/speed.js';
import { buildSummary, type RunSummary } from '../metrics/summary.js';
import { UsageMeter } from '../metrics/usage-meter.js';
import { presetStack } from '../policies/presets.js';
import { placementPolicies, schedulingPolicies } from '../policies/registry.js';
import {
  placementRequestOf,
  type PlacementPolicy,
  type SchedulingAction,
  type SchedulingContext,
  type SchedulingPolicy,
} from '../policies/types.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimEvent } from './events.js';
import { JobRuntime } from './job-runtime.js';

/** What a finished run returns: the summary (without perf) and every job's final state. */
export interface SimResult {
  readonly summary: RunSummary;
  readonly jobs: readonly JobRuntime[];
  /** Simulated time the run stopped at, in seconds. */
  readonly endS: number;
}

/** Options for tests and tools. */
export interface SimOptions {
  /** Re-derive and check all cluster accounting after every instant (slow; for tests). */
  readonly checkInvariants?: boolean;
}

/** Wires the engine, the cluster state, the jobs and the policy stack; the only code that changes cluster state. */
export class Simulation {
  readonly cluster: ClusterState;
  private readonly engine: Engine<SimEvent>;
  private readonly jobs: JobRuntime[];
  private readonly jobsById = new Map<string, JobRuntime>();
  private readonly scheduling: SchedulingPolicy;
  private readonly placement: PlacementPolicy;
  private readonly meter: UsageMeter;
  private queued: JobRuntime[] = [];
  private running: JobRuntime[] = [];
  private readonly everFitsByShape = new Map<string, boolean>();
  private busyGpus = 0;
  private dirty = false;
  private finished = false;

  constructor(
    private readonly scenario: Scenario,
    private readonly options: SimOptions = {},
  ) {
    const stack = presetStack(scenario.policy);
    this.scheduling = schedulingPolicies[stack.scheduling]!();
    this.placement = placementPolicies[stack.placement]!();
    this.cluster = new ClusterState(scenario.cluster);
    this.jobs = scenario.jobs.map((spec) => new JobRuntime(spec));
    for (const job of this.jobs) {
      if (this.jobsById.has(job.spec.id)) throw new InvariantError(`duplicate job id ${job.spec.id}`);
      this.jobsById.set(job.spec.id, job);
    }
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
    if (this.jobs.length > 0) this.engine.scheduleAt(firstSubmitS, { kind: 'job-arrival', jobIndex: 0 });
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
    for (const job of this.running) job.advanceTo(endS);
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
      faultsByType: {},
      events: this.engine.dispatched,
    });
    return { summary, jobs: this.jobs, endS };
  }

  private isStale(event: SimEvent): boolean {
    switch (event.kind) {
      case 'job-finish': {
        const job = this.jobsById.get(event.jobId);
        return job === undefined || job.phase !== 'running' || job.epoch !== event.epoch;
      }
      case 'job-arrival':
      case 'job-speed-factor':
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
      case 'job-speed-factor':
        return this.onSpeedFactor(this.job(event.jobId), event.factor);
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
      return;
    }
    job.phase = 'queued';
    this.queued.push(job);
    this.dirty = true;
  }

  /** True when the job would fit the whole installed cluster, empty; cached per job shape. */
  private everFits(job: JobRuntime): boolean {
    const key = JSON.stringify([job.spec.gpuTypes, job.spec.roles]);
    let fits = this.everFitsByShape.get(key);
    if (fits === undefined) {
      fits = this.placement.place(new CapacityScratch(this.cluster, 'empty'), placementRequestOf(job.spec)) !== null;
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
    this.dirty = true;
  }

  private onSpeedFactor(job: JobRuntime, factor: number): void {
    if (!(factor > 0)) throw new InvariantError(`job ${job.spec.id}: speed factor ${factor} must be positive`);
    job.advanceTo(this.engine.nowS);
    if (job.phase === 'running') this.busyGpus += job.gpus * (factor - job.speedFactor);
    job.speedFactor = factor;
    if (job.phase === 'running') this.rescheduleFinish(job);
  }

  private endOfInstant(): void {
    if (this.dirty && this.queued.length > 0) this.schedulePass();
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
    const started = new Set<string>();
    for (const action of actions) this.apply(action, started);
    if (started.size > 0) this.queued = this.queued.filter((job) => !started.has(job.spec.id));
  }

  private apply(action: SchedulingAction, started: Set<string>): void {
    switch (action.kind) {
      case 'start': {
        const job = this.job(action.jobId);
        if (job.phase !== 'queued' || started.has(job.spec.id)) {
          throw new InvariantError(`${this.scheduling.name}: cannot start job ${job.spec.id} in phase ${job.phase}`);
        }
        this.start(job, action.tasks);
        started.add(job.spec.id);
        return;
      }
      default:
        return assertNever(action.kind);
    }
  }

  private start(job: JobRuntime, tasks: readonly TaskPlacement[]): void {
    const nowS = this.engine.nowS;
    this.cluster.allocate(job.spec.id, tasks);
    job.advanceTo(nowS);
    job.phase = 'running';
    job.firstStartS ??= nowS;
    job.workers = tasks.filter((t) => t.role === 'worker').length;
    job.ps = tasks.filter((t) => t.role === 'ps').length;
    job.gpus = tasks.reduce((sum, t) => sum + (t.gpuIndices.length * t.demand.gpuMilli) / 1000, 0);
    job.gpusWhenRunning = job.gpus;
    job.cpuMilliWhenRunning = tasks.reduce((sum, t) => sum + t.demand.cpuMilli, 0);
    job.baseRateStepsPerS = stepsPerS(job.spec, { workers: job.workers, ps: job.ps });
    this.busyGpus += job.gpus * job.speedFactor;
    this.running.push(job);
    this.rescheduleFinish(job);
  }

  private stopRunning(job: JobRuntime): void {
    this.cluster.release(job.spec.id);
    this.busyGpus -= job.gpus * job.speedFactor;
    job.gpus = 0;
    job.workers = 0;
    job.ps = 0;
    job.epoch++;
    const index = this.running.indexOf(job);
    if (index < 0) throw new InvariantError(`job ${job.spec.id} is not running`);
    this.running.splice(index, 1);
  }

  private rescheduleFinish(job: JobRuntime): void {
    job.epoch++;
    const finishS = job.finishTimeS();
    if (Number.isFinite(finishS)) {
      this.engine.scheduleAt(finishS, { kind: 'job-finish', jobId: job.spec.id, epoch: job.epoch });
    }
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
