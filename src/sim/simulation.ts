import type { ScalePlanRecord } from '../model/scale-plan.js';
import { Engine } from '../engine/engine.js';
import { assertNever, InvariantError } from '../errors.js';
import { ClusterState } from '../model/cluster-state.js';
import { saveBlockS, youngDalyIntervalS, type CheckpointCosts } from '../model/checkpoint.js';
import { requestedGpus, someNameGpuModels, type JobSpec } from '../model/job-spec.js';
import { totalRatePerGpuDay } from '../faults/catalog.js';
import { buildSummary, type RunSummary } from '../metrics/summary.js';
import { UsageMeter } from '../metrics/usage-meter.js';
import type { AutoscalePolicy } from '../policies/autoscale/types.js';
import type { HistoryView } from '../policies/autoscale/history-view.js';
import type { UsageSample } from '../model/usage.js';
import type { DataPolicy } from '../policies/data/types.js';
import type { RecoveryPolicy } from '../policies/recovery/types.js';
import type { PlacementPolicy, SchedulingPolicy } from '../policies/types.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimEvent } from './events.js';
import type { WaitLedgerView } from './wait-ledger.js';
import { FaultTracker, type TimelineRow } from './fault-tracker.js';
import { FaultHandler } from './fault-handler.js';
import { EverFits } from './ever-fits.js';
import { JobControl } from './job-control.js';
import { describePlan, ScalePlanLog } from './scale-plan-log.js';
import { PolicyHost } from './policy-host.js';
import { InvariantChecker, invariantChecksByDefault } from './invariants.js';
import { JobNumbers, JobRuntime } from './job-runtime.js';
import { RunRecorders, type RecordedRun } from './run-recorders.js';

/** What a finished run returns: the summary (without perf) and every job's final state. */
export interface SimResult {
  readonly summary: RunSummary;
  readonly jobs: readonly JobRuntime[];
  /** Simulated time the run stopped at, in seconds. */
  readonly endS: number;
  /** Faults, repairs and what they did to jobs, in time order (empty without faults). */
  readonly timeline: readonly TimelineRow[];
  /** The auto-scaler's plans, as ScalePlans, in the order they were made (empty without auto-scaling). */
  readonly scalePlans: readonly ScalePlanRecord[];
  /** The sampler's last records of a job (at most 50, oldest first; empty when no policy listened to it). */
  readonly samplesOf: (jobId: string) => readonly UsageSample[];
  /** Each job's queued time by wait reason, and the job last named as keeping it waiting. */
  readonly waits: WaitLedgerView;
  /** What the report's recorders saw (only when the options asked to record). */
  readonly recorded?: RecordedRun;
}

/** Options for tests and tools. */
export interface SimOptions {
  /**
   * Check the cluster's accounting, the jobs' phases and time accounting after every instant, and
   * the summary at the end (an InvariantError on any breach); absent: invariantChecksByDefault().
   */
  readonly checkInvariants?: boolean;
  /** Use these policies instead of the stack's (tests and tools). */
  readonly schedulingPolicy?: SchedulingPolicy;
  readonly autoscalePolicy?: AutoscalePolicy;
  readonly dataPolicy?: DataPolicy;
  /** The history of finished jobs the policies read (the scenario's `history`, opened by the caller). */
  readonly history?: HistoryView;
  /** Told where the run stands at its start, every `progressEveryEvents` live events and at its end; it must not change the run. */
  readonly onProgress?: (progress: SimProgress) => void;
  /** Live events between two calls of `onProgress` (default 4,096). */
  readonly progressEveryEvents?: number;
  /** Record the cluster's use over time, a sample of jobs' states and auto-scaled jobs' shapes (for usage.csv, gantt.csv, autoscale.csv). */
  readonly record?: boolean;
  /** Group the cluster's fit index by GPU model (true) or not (false) whatever the workload and policy ask (tests: results do not depend on it). */
  readonly fitByGpuModel?: boolean;
}

/** Where a run stands, as `SimOptions.onProgress` is told. */
export interface SimProgress {
  /** Simulated time now, the first submission and the horizon (Infinity: until every job ends), in seconds. */
  readonly simS: number;
  readonly startS: number;
  readonly horizonS: number;
  /** Jobs that ended for good (completed or failed) of all the scenario's jobs. */
  readonly jobsDone: number;
  readonly jobsTotal: number;
  /** Live events dispatched so far. */
  readonly events: number;
  /** True at the run's end. */
  readonly done: boolean;
}

/** Live events between two progress reports unless SimOptions says otherwise. */
const PROGRESS_EVERY_EVENTS = 4096;

/** Wires the engine, the cluster state, the jobs and the policy stack; the only code that changes cluster state. */
export class Simulation {
  readonly cluster: ClusterState;
  /** Plans the auto-scaler made, as ScalePlans, in order. */
  private readonly scalePlans: ScalePlanLog;
  private readonly engine: Engine<SimEvent>;
  private readonly jobs: JobRuntime[];
  private readonly control: JobControl;
  private readonly host: PolicyHost;
  private readonly scheduling: SchedulingPolicy;
  private readonly placement: PlacementPolicy;
  private readonly recovery: RecoveryPolicy;
  private readonly meter: UsageMeter;
  /** Whether a job fits the installed cluster, empty (made at the first arrival). */
  private fitsEmpty: EverFits | null = null;
  private readonly faults: FaultTracker;
  private readonly faultHandler: FaultHandler;
  private finished = false;
  private readonly checker: InvariantChecker | null;
  private readonly onProgress: ((progress: SimProgress) => void) | null;
  private readonly progressEvery: number;
  /** Live events left until the next progress report (one decrement per event). */
  private progressCountdown: number;
  private readonly recorders: RunRecorders | null;

  constructor(
    private readonly scenario: Scenario,
    options: SimOptions = {},
  ) {
    this.cluster = new ClusterState(scenario.cluster);
    this.engine = new Engine<SimEvent>({
      isStale: (event) => this.isStale(event),
      dispatch: (event) => this.dispatch(event),
      endOfInstant: () => this.endOfInstant(),
    });
    const numbers = new JobNumbers(scenario.jobs.length);
    this.jobs = scenario.jobs.map((spec) => new JobRuntime(spec, scenario.seed, this.engine, numbers));
    const drawn = scenario.preprocessing;
    if (drawn !== undefined) for (const job of this.jobs) job.preprocessing ??= drawn.get(job.spec.id) ?? null;
    this.checker = (options.checkInvariants ?? invariantChecksByDefault()) ? new InvariantChecker(this.jobs, this.cluster) : null;
    this.onProgress = options.onProgress ?? null;
    this.progressEvery = Math.max(1, Math.floor(options.progressEveryEvents ?? PROGRESS_EVERY_EVENTS));
    this.progressCountdown = this.progressEvery;
    this.faults = new FaultTracker(scenario.cluster.nodes.map((n) => n.gpus));
    this.scalePlans = new ScalePlanLog((plan) => {
      this.faults.log({ timeS: plan.atS, event: 'scale-plan', faultType: '', node: '', gpu: null, jobId: plan.ownerJob, detail: describePlan(plan) });
      const owner = this.recorders === null ? undefined : this.control.find(plan.ownerJob);
      if (owner !== undefined) this.recorders?.onScalePlan(owner, plan.atS);
    });
    this.control = new JobControl({ engine: this.engine, cluster: this.cluster, scenario, tracker: this.faults, jobs: this.jobs });
    this.host = new PolicyHost({
      engine: this.engine,
      cluster: this.cluster,
      control: this.control,
      scenario,
      scalePlans: this.scalePlans,
      ...(options.schedulingPolicy ? { schedulingPolicy: options.schedulingPolicy } : {}),
      ...(options.autoscalePolicy ? { autoscalePolicy: options.autoscalePolicy } : {}),
      ...(options.dataPolicy ? { dataPolicy: options.dataPolicy } : {}),
      ...(options.history ? { history: options.history } : {}),
    });
    // A data policy that moves preprocessing off the training tasks queues them with less CPU.
    const data = this.host.data;
    if (data.trainingRoles !== undefined) {
      for (const job of this.jobs) {
        const roles = data.trainingRoles(job.spec);
        if (roles !== null) job.replaceRoles(roles);
      }
    }
    this.scheduling = this.host.scheduling;
    this.placement = this.host.placement;
    this.cluster.groupFitByGpuModel(options.fitByGpuModel ?? groupsFitByGpuModel(scenario.jobs, this.scheduling));
    this.recovery = this.host.recovery;
    this.control.checkpointCosts = this.recovery.checkpointCosts;
    this.control.decidedBy = this.scheduling.name;
    const firstSubmitS = this.jobs[0]?.spec.submitS ?? 0;
    this.meter = new UsageMeter(firstSubmitS, () => ({
      allocatedGpus: this.cluster.allocatedGpus,
      busyGpus: this.control.busyGpus,
      allocatedCpuMilli: this.cluster.allocatedCpuMilli,
    }));
    this.recorders = options.record
      ? new RunRecorders({
          startS: firstSubmitS,
          samplePeriodS: scenario.params.samplePeriodS,
          totalGpus: this.cluster.totalGpus,
          jobs: this.jobs,
          levels: () => ({
            allocatedGpus: this.cluster.allocatedGpus,
            busyGpus: this.control.busyGpus,
            allocatedCpuMilli: this.cluster.allocatedCpuMilli,
            pendingJobs: this.control.queuedCount,
            runningJobs: this.control.runningCount,
            dataWorkers: this.cluster.auxTaskCount,
          }),
        })
      : null;
    if (this.jobs.length > 0) {
      this.engine.scheduleAt(firstSubmitS, { kind: 'job-arrival', jobIndex: 0 });
      this.host.start(firstSubmitS);
    }
    // Indexed loops over every job: a loop that runs once is not optimized, and `for…of` there makes an iterator result a job.
    for (let k = 0; k < this.jobs.length; k++) this.jobs[k]!.checkpointIntervalS = checkpointIntervalS(this.jobs[k]!, scenario, this.recovery.checkpointCosts);
    this.faultHandler = new FaultHandler({
      engine: this.engine,
      cluster: this.cluster,
      scenario,
      placement: this.placement,
      recovery: this.recovery,
      tracker: this.faults,
      control: this.control,
    });
    if (this.jobs.length > 0) this.faultHandler.start();
  }

  /** Decisions the policy host dropped because an earlier kind changed their job in the same instant. */
  get policyConflicts(): number {
    return this.host.conflictsDropped;
  }

  /** Current simulated time in seconds. */
  get nowS(): number {
    return this.engine.nowS;
  }

  /** Schedules a change of a job's speed at `atS` (scripted slowdowns; later, stragglers and faults). */
  scheduleSpeedFactor(atS: number, jobId: string, factor: number): void {
    this.engine.scheduleAt(atS, { kind: 'job-speed-factor', job: this.control.job(jobId), factor });
  }

  /** Runs to the scenario's horizon (or until nothing is left to happen) and returns the result. */
  run(): SimResult {
    if (this.finished) throw new InvariantError('a Simulation runs once');
    this.finished = true;
    this.reportProgress(false);
    this.engine.run(this.scenario.horizonS);
    const endS = this.engine.nowS;
    this.meter.advanceTo(endS);
    // Jobs that have not ended are accounted up to the end, a crashed one waiting for its resubmission too.
    for (let k = 0; k < this.jobs.length; k++) {
      const job = this.jobs[k]!;
      if (job.phase === 'running' || job.phase === 'queued' || (job.phase === 'waiting' && job.firstStartS !== null)) job.advanceTo(endS);
      if (job.phase === 'queued') this.control.waits.left(job, endS);
    }
    this.control.starvation.settle(endS, this.control.queuedInOrder());
    const recorded = this.recorders?.finish(endS);
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
      waitByReasonS: this.control.waits.totalsByReason(),
      events: this.engine.dispatched,
      scalePlans: this.scalePlans.plans.length,
    });
    this.checker?.afterRun(summary, endS);
    this.reportProgress(true);
    const host = this.host;
    return { summary, jobs: this.jobs, endS, timeline: this.faults.timeline, scalePlans: this.scalePlans.plans, samplesOf: (jobId) => host.samplesOf(jobId), waits: this.control.waits, ...(recorded === undefined ? {} : { recorded }) };
  }

  private isStale(event: SimEvent): boolean {
    switch (event.kind) {
      case 'job-finish':
      case 'input-dry':
      case 'checkpoint':
      case 'checkpoint-done':
      case 'job-broken': {
        const job = event.job;
        return job.phase !== 'running' || job.epoch !== event.epoch;
      }
      case 'job-resume': {
        const job = event.job;
        return job.phase !== 'running' || !job.paused || job.pauses !== event.pause;
      }
      case 'job-oom': {
        const job = event.job;
        return job.phase !== 'running' || job.trainingStarts !== event.trainingStart;
      }
      case 'job-hang-timeout': {
        const job = event.job;
        return job.phase !== 'running' || !job.hung || job.hangs !== event.hang;
      }
      case 'job-arrival':
      case 'job-speed-factor':
      case 'policy-tick':
      case 'sample':
      case 'fault':
      case 'repair':
      case 'job-resubmit':
      case 'isolate':
        return false;
      default:
        return assertNever(event);
    }
  }

  /** Tells `onProgress` where the run stands and starts counting events to the next report. */
  private reportProgress(done: boolean): void {
    this.progressCountdown = this.progressEvery;
    this.onProgress?.({ simS: this.engine.nowS, startS: this.jobs[0]?.spec.submitS ?? 0, horizonS: this.scenario.horizonS, jobsDone: this.control.endedJobs, jobsTotal: this.jobs.length, events: this.engine.dispatched, done });
  }

  private dispatch(event: SimEvent): void {
    if (--this.progressCountdown === 0) this.reportProgress(false);
    this.meter.advanceTo(this.engine.nowS);
    this.recorders?.advanceTo(this.engine.nowS);
    switch (event.kind) {
      case 'job-arrival':
        return this.onArrival(event.jobIndex);
      case 'job-finish':
        return this.control.complete(event.job);
      case 'input-dry':
        return this.control.inputRanDry(event.job);
      case 'job-resume':
        return this.control.resume(event.job);
      case 'job-speed-factor':
        return this.control.setSpeedFactor(event.job, event.factor);
      case 'policy-tick':
        return this.host.onTick(event.policy);
      case 'sample':
        return this.host.onSample();
      case 'fault':
        return this.faultHandler.onFault(event.occurrence, event.replayIndex);
      case 'repair':
        return this.faultHandler.onRepair(event.occurrence);
      case 'isolate':
        return this.faultHandler.isolate(event.occurrence);
      case 'job-broken':
        return this.faultHandler.onBrokenStart(event.job);
      case 'job-hang-timeout':
        return this.faultHandler.crash(event.job, null, 'watchdog timeout');
      case 'job-oom':
        return this.faultHandler.onOom(event.job);
      case 'checkpoint':
        return this.control.startCheckpoint(event.job);
      case 'checkpoint-done':
        return this.control.finishCheckpoint(event.job);
      case 'job-resubmit':
        return this.faultHandler.onResubmit(event.job, event.rescheduleS);
      default:
        return assertNever(event);
    }
  }

  private onArrival(jobIndex: number): void {
    const job = this.jobs[jobIndex]!;
    const next = this.jobs[jobIndex + 1];
    if (next) this.engine.scheduleAt(next.spec.submitS, { kind: 'job-arrival', jobIndex: jobIndex + 1 });
    this.host.createPlan(job);
    if (this.everFits(job)) this.control.arrive(job);
    else this.control.rejectUnschedulable(job);
  }

  /** True when the job would fit the whole installed cluster, empty. */
  private everFits(job: JobRuntime): boolean {
    // The smallest gang the policy would start it with: an elastic job that fits only below its
    // requested size would otherwise wait for good under a policy that starts jobs at that size.
    const smallest = this.scheduling.smallestStart?.(job.request) ?? null;
    this.fitsEmpty ??= new EverFits(this.scenario.cluster, this.placement);
    return this.fitsEmpty.fits(job.spec, smallest);
  }

  /** Data workers over the cluster as the timeline last said. */
  private dataWorkersLogged = 0;

  /** Adds a timeline row when the instant changed how many data workers the cluster holds. */
  private logDataWorkers(): void {
    const workers = this.cluster.auxTaskCount;
    if (workers === this.dataWorkersLogged) return;
    this.dataWorkersLogged = workers;
    this.faults.log({ timeS: this.engine.nowS, event: 'data-workers', faultType: '', node: '', gpu: null, jobId: '', detail: `${workers} data workers` });
  }

  private endOfInstant(): void {
    // Jobs that crashed in this instant recover once each, against the hardware all their faults left.
    this.faultHandler.recoverCrashed();
    this.host.endOfInstant(this.faultHandler);
    this.logDataWorkers();
    this.control.clearDirty();
    this.recorders?.endOfInstant(this.engine.nowS);
    this.checker?.afterInstant({ nowS: this.engine.nowS, queued: this.control.queued, running: this.control.running, endedJobs: this.control.endedJobs });
  }
}

/**
 * Whether the cluster's fit index keeps GPU nodes grouped by model: when the policy reads machines
 * model by model, or some job names GPU models (a scan then reads only the groups it may use);
 * otherwise every request may use every model, and one group answers it in one scan.
 */
function groupsFitByGpuModel(jobs: readonly JobSpec[], scheduling: SchedulingPolicy): boolean {
  return scheduling.machinesByGpuModel === true || someNameGpuModels(jobs);
}

/** Runs a scenario once and returns its result. */
export function simulate(scenario: Scenario, options: SimOptions = {}): SimResult {
  return new Simulation(scenario, options).run();
}

/** A job's checkpoint interval in training seconds, from its spec and, for 'auto', the scenario's fault rates (at least one nominal step). */
function checkpointIntervalS(job: JobRuntime, scenario: Scenario, costs: CheckpointCosts | undefined): number {
  const checkpoint = job.spec.checkpoint;
  if (!checkpoint) return Infinity;
  if (checkpoint.intervalS !== 'auto') return checkpoint.intervalS;
  const gpuNodes = scenario.cluster.nodes.filter((n) => n.gpus > 0);
  const gpusPerNode = gpuNodes.length > 0 ? gpuNodes.reduce((sum, n) => sum + n.gpus, 0) / gpuNodes.length : 8;
  const perGpuDay = scenario.faults ? totalRatePerGpuDay(scenario.faults.catalog, gpusPerNode) : 0;
  const failuresPerS = (perGpuDay / 86_400) * Math.max(1, requestedGpus(job.spec));
  const intervalS = youngDalyIntervalS(saveBlockS(checkpoint, costs), failuresPerS);
  // A save costing nothing gives an interval of 0: saves are taken at step boundaries, at most one per step.
  return Math.max(intervalS, 1 / job.nominalRateStepsPerS);
}
