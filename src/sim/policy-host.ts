import type { Engine } from '../engine/engine.js';
import { InvariantError } from '../errors.js';
import { CapacityScratch } from '../model/capacity.js';
import type { TaskPlacement } from '../model/allocation.js';
import type { ClusterState } from '../model/cluster-state.js';
import type { UsageSample } from '../model/usage.js';
import type { AutoscalePolicy } from '../policies/autoscale/types.js';
import type { HistoryView } from '../policies/autoscale/history-view.js';
import type { DataPolicy } from '../policies/data/types.js';
import type { Decision } from '../policies/decision.js';
import { DEFAULT_DATA_POLICY, presetStack } from '../policies/presets.js';
import { hasSpotJobs, PRIORITY_CLASSES, reclaimForHighPriority } from '../policies/scheduling/priority-classes.js';
import type { RecoveryPolicy } from '../policies/recovery/types.js';
import { policyEntry, type PolicyEntry, type PolicyHandle, type PolicyKind } from '../policies/registry.js';
import { placementRequestOf, type ObservingContext, type PlacementPolicy, type SchedulingContext, type SchedulingPolicy, type WaitExplainer } from '../policies/types.js';
import { DiagnosisMemo, diagnoseUnplaced } from '../policies/wait-diagnosis.js';
import type { PolicyChoice, Scenario } from '../scenario/scenario.js';
import { applyDecisions } from './apply-decisions.js';
import type { SimEvent } from './events.js';
import type { JobControl } from './job-control.js';
import type { JobRuntime } from './job-runtime.js';
import { Sampler } from './sampler.js';
import type { ScalePlanLog } from './scale-plan-log.js';

/** Policy kinds consulted at the end of an instant, in the order the host runs them (recovery of crashed jobs comes first, in the fault handler). */
export type ConsultedKind = 'scheduling' | 'autoscale' | 'data';

/** Decisions each consulted kind may return. */
const ALLOWED: Readonly<Record<ConsultedKind, ReadonlySet<Decision['kind']>>> = {
  scheduling: new Set(['start', 'resize', 'preempt', 'reshape-role']),
  autoscale: new Set(['resize', 'reshape-role']),
  data: new Set(['attach', 'detach']),
};

/** True for a decision on a job's auxiliary tasks (data workers), which never conflicts with another kind's. */
function isAuxiliary(decision: Decision): boolean {
  return decision.kind === 'attach' || decision.kind === 'detach';
}

/** An auto-scaler's resize or reshape, with the tasks its job held before it (logged as a scale plan once applied). */
interface ScaledDecision {
  readonly decision: Extract<Decision, { kind: 'resize' | 'reshape-role' }>;
  readonly before: readonly TaskPlacement[];
}

/** What a batch of decisions other than an auto-scaler's logs as scale plans: nothing. */
const NOTHING_SCALED: readonly ScaledDecision[] = [];

/** Passes in one instant after auxiliary tasks gave way; each pass can only evict for training starting, so more is a policy loop. */
const MAX_EVICTION_ROUNDS = 100;

/** The policies of a run, one per kind, by the ids and options they were made from. */
export interface PolicyStackChoice {
  readonly scheduling: PolicyChoice;
  readonly placement: PolicyChoice;
  readonly recovery: PolicyChoice;
  readonly autoscale: PolicyChoice;
  readonly data: PolicyChoice;
}

/** The stack a scenario runs: its preset's policies, each kind replaced where the scenario's `policies:` (or `recovery:`) names another. */
export function stackOf(scenario: Scenario): PolicyStackChoice {
  const preset = presetStack(scenario.policy);
  const chosen = scenario.policies ?? {};
  const pick = (kind: PolicyKind, presetId: string): PolicyChoice => chosen[kind] ?? { name: presetId, options: {} };
  return {
    scheduling: pick('scheduling', preset.scheduling),
    placement: pick('placement', preset.placement),
    recovery: chosen.recovery ?? { name: scenario.recovery ?? preset.recovery, options: {} },
    autoscale: pick('autoscale', preset.autoscale),
    data: pick('data', preset.data ?? DEFAULT_DATA_POLICY),
  };
}

/** Makes the policy registered for `kind` under the chosen id (an InvariantError for an id the loader should have refused). */
function make<P>(kind: PolicyKind, choice: PolicyChoice, handle: PolicyHandle): P {
  const entry = policyEntry(kind, choice.name) as PolicyEntry<P> | undefined;
  if (!entry) throw new InvariantError(`unknown ${kind} policy ${choice.name}`);
  return entry.create(handle, choice.options);
}

/** What the host works with. */
export interface PolicyHostSetup {
  readonly engine: Engine<SimEvent>;
  readonly cluster: ClusterState;
  readonly control: JobControl;
  readonly scenario: Scenario;
  /** Use these policies instead of the stack's (tests and tools). */
  readonly schedulingPolicy?: SchedulingPolicy;
  readonly autoscalePolicy?: AutoscalePolicy;
  readonly dataPolicy?: DataPolicy;
  /** The history of finished jobs, handed to every policy factory. */
  readonly history?: HistoryView;
  /** Where the auto-scaler's plans are logged as ScalePlans. */
  readonly scalePlans: ScalePlanLog;
}

/** The stage of recovery the host runs after scheduling: growing shrunk jobs back. */
export interface GrowBackStage {
  growBack(): void;
}

/** The scheduling context of a run, whose `changes` the host sets before each pass. */
type PassContext = Omit<SchedulingContext<JobRuntime>, 'changes'> & { changes: SchedulingContext<JobRuntime>['changes'] };

/**
 * Builds the policy stack from the registry and consults it. At the end of every instant, after
 * the fault handler recovered the jobs that crashed in it, the host runs:
 * 1. scheduling, when something changed while jobs wait or run (or its tick came);
 * 2. recovery's growth back of the jobs it shrank (right after scheduling, as capacity returns);
 * 3. auto-scaling, when its tick came (a policy without a tick: when something changed);
 * 4. data workers, likewise;
 * 5. when auxiliary tasks gave way in the instant, their data policy is told and consulted again;
 * 6. while jobs wait, the CPU-starvation meter looks at what the instant left (see cpu-starvation.ts).
 * Each kind's decisions are validated (which decisions the kind may make, phases, shapes) and
 * applied before the next kind runs, so every kind sees what the earlier ones did. Conflicts: a
 * job whose tasks one kind changed in this instant (start, resize, preempt, reshape) is off limits
 * to the later kinds until the next instant; their decisions on it are dropped (and counted).
 * Observations: a policy listening to a job gets its usage sampled every `sim.samplePeriod`.
 */
export class PolicyHost {
  readonly scheduling: SchedulingPolicy;
  readonly placement: PlacementPolicy;
  readonly recovery: RecoveryPolicy;
  readonly autoscale: AutoscalePolicy;
  readonly data: DataPolicy;
  /** Decisions dropped because an earlier kind changed their job in the same instant. */
  conflictsDropped = 0;
  private readonly engine: Engine<SimEvent>;
  private readonly cluster: ClusterState;
  private readonly control: JobControl;
  private readonly sampler: Sampler;
  private readonly scalePlans: ScalePlanLog;
  private samplePending = false;
  /** False while an auto-scaler with a tick has nothing to manage: no tick is pending until a job arrives that it manages. */
  private autoscaleTicking = true;
  private readonly due: Record<ConsultedKind, boolean> = { scheduling: false, autoscale: false, data: false };
  /**
   * The decisions (other than on auxiliary tasks) applied in this instant, the first `changedCount`
   * entries (the array keeps its length: emptying it would give up its storage). The set of the
   * jobs they name is made only when a later kind is consulted in the same instant: most instants
   * consult one kind, and their decisions are then never looked up.
   */
  private readonly changedByDecisions: Decision[] = [];
  private changedCount = 0;
  /** Ids of the jobs the first `changedListed` of changedByDecisions name. */
  private readonly changedIds = new Set<string>();
  private changedListed = 0;
  /** True when the workload has spot jobs: high-priority jobs then reclaim their capacity after each scheduling pass. */
  private readonly priorityClasses: boolean;

  constructor(setup: PolicyHostSetup) {
    this.engine = setup.engine;
    this.cluster = setup.cluster;
    this.control = setup.control;
    this.scalePlans = setup.scalePlans;
    const { scenario } = setup;
    const stack = stackOf(scenario);
    const handle: PolicyHandle = { params: scenario.params, userWeights: scenario.userWeights ?? {}, seed: scenario.seed, ...(setup.history ? { history: setup.history } : {}) };
    this.scheduling = setup.schedulingPolicy ?? make<SchedulingPolicy>('scheduling', stack.scheduling, handle);
    this.placement = make<PlacementPolicy>('placement', stack.placement, handle);
    const recoveryEntry = policyEntry('recovery', stack.recovery.name);
    if (!recoveryEntry) throw new InvariantError(`unknown recovery policy ${stack.recovery.name}`);
    this.recovery = recoveryEntry.create(scenario.recoveryTimesS ?? {});
    this.autoscale = setup.autoscalePolicy ?? make<AutoscalePolicy>('autoscale', stack.autoscale, handle);
    this.data = setup.dataPolicy ?? make<DataPolicy>('data', stack.data, handle);
    this.priorityClasses = hasSpotJobs(scenario.jobs);
    this.sampler = new Sampler({ periodS: scenario.params.samplePeriodS, seed: scenario.seed }, {
      truthOf: (jobId) => {
        const job = this.control.job(jobId);
        const level = this.control.inputQueueLevel(job);
        const input = level === null ? {} : { inputQueueLevel: level };
        if (job.psRanked.length === 0) return { jobId, spec: job.spec, shape: job.shape, stepsPerS: job.rateStepsPerS, ...input };
        const ps = { tasks: this.cluster.tasksOf(jobId) ?? [], psRanked: job.psRanked, steps: job.progressSteps };
        return { jobId, spec: job.spec, shape: job.shape, stepsPerS: job.rateStepsPerS, ps, ...input };
      },
    });
  }

  /** Schedules the first tick of each kind that has one, from `firstS` (an idle auto-scaler's waits for a job it manages). */
  start(firstS: number): void {
    for (const kind of ['scheduling', 'autoscale', 'data'] as const) {
      const tickS = this.policyOf(kind).tickS;
      if (tickS === undefined) continue;
      if (kind === 'autoscale' && this.autoscale.active?.() === false) this.autoscaleTicking = false;
      else this.engine.scheduleAt(firstS + tickS, { kind: 'policy-tick', policy: kind });
    }
  }

  /** A kind's tick came: it is consulted at the end of the instant, and ticks again while jobs remain (an auto-scaler: while it is active). */
  onTick(kind: ConsultedKind): void {
    this.due[kind] = true;
    if (kind === 'scheduling') this.control.markDirty();
    if (!this.control.jobsRemain()) return;
    if (kind === 'autoscale' && this.autoscale.active?.() === false) {
      this.autoscaleTicking = false;
      return;
    }
    this.engine.scheduleAt(this.engine.nowS + this.policyOf(kind).tickS!, { kind: 'policy-tick', policy: kind });
  }

  /** A sample is due: the listened jobs still running are sampled, the others no longer listened. */
  onSample(): void {
    this.samplePending = false;
    for (const jobId of this.sampler.listening()) {
      if (this.control.job(jobId).phase !== 'running') this.sampler.unlisten(jobId);
    }
    this.sampler.sampleAt(this.engine.nowS);
    this.scheduleSample();
  }

  /** The sampler's last records of a job (oldest first; empty when never sampled). */
  samplesOf(jobId: string): readonly UsageSample[] {
    return this.sampler.samplesOf(jobId);
  }

  /** Runs the consulted kinds in their order (see the class comment); `recovery` grows shrunk jobs back after scheduling. */
  endOfInstant(recovery: GrowBackStage): void {
    if (this.control.dirty && (this.control.queuedCount > 0 || this.control.runningCount > 0)) {
      this.schedulePass();
      recovery.growBack();
    }
    if (this.isDue('autoscale') && this.control.runningCount > 0) this.consult('autoscale', this.autoscale.autoscale(this.observingContext()));
    if (this.isDue('data') && this.control.runningCount > 0) this.consult('data', this.data.data(this.observingContext()));
    for (let rounds = 0, evictions = this.control.takeEvictions(); evictions.length > 0; evictions = this.control.takeEvictions()) {
      if (++rounds > MAX_EVICTION_ROUNDS) throw new InvariantError(`${this.data.name}: auxiliary tasks still given way after ${MAX_EVICTION_ROUNDS} passes in one instant`);
      this.data.onEvicted?.(evictions);
      if (this.control.runningCount > 0) this.consult('data', this.data.data(this.observingContext()));
    }
    // The CPU-starvation meter judges the waiting jobs on what the instant left, every kind having acted.
    if (this.control.queuedCount > 0) this.control.starvation.look(this.engine.nowS);
    this.due.scheduling = this.due.autoscale = this.due.data = false;
    this.changedCount = this.changedListed = 0;
    // Clearing a set makes it a new table: skipped when nothing was added.
    if (this.changedIds.size > 0) this.changedIds.clear();
    // Changes wait for the next scheduling pass even when nothing is queued or running: a policy
    // keeping its own index must hear of the jobs that stopped before the cluster went idle.
  }

  /** What the scheduling policy sees (one object for the run: it reads the time, the queue and the running list when asked; `changes` is set each pass). */
  private schedulingContext: PassContext | null = null;

  private schedulePass(): void {
    const control = this.control;
    const engine = this.engine;
    const context = (this.schedulingContext ??= {
      get nowS() {
        return engine.nowS;
      },
      cluster: this.cluster,
      // Built only when the policy reads them: an incremental policy keeps its own index from `changes`.
      get queued() {
        return control.queued;
      },
      queuedInOrder: () => control.queuedInOrder(),
      get running() {
        return control.running;
      },
      placement: this.placement,
      scratch: () => new CapacityScratch(this.cluster),
      changes: { queued: [], started: [], stopped: [], resized: [] },
      why: this.waitExplainer(),
    });
    context.changes = control.takeChanges();
    control.waits.beginPass();
    const decisions = this.scheduling.schedule(context);
    control.waits.endPass(engine.nowS);
    this.consult('scheduling', decisions);
    if (this.priorityClasses) {
      // The state after the pass's decisions (the context's queue and running list are read when asked), with no changes.
      const after: SchedulingContext<JobRuntime> = Object.create(context, { changes: { value: { queued: [], started: [], stopped: [], resized: [] } } });
      this.consult('scheduling', reclaimForHighPriority(after, this.changedThisInstant()), PRIORITY_CLASSES);
    }
  }

  /** Where the scheduling policy's reasons for its waiting jobs go: the job control's wait ledger, at the current time. */
  private waitExplainer(): WaitExplainer<JobRuntime> {
    const waits = this.control.waits;
    const engine = this.engine;
    const placement = this.placement;
    const cluster = this.cluster;
    const memo = new DiagnosisMemo();
    return {
      job: (job, reason, blocker) => waits.own(job, engine.nowS, reason, blocker),
      unplaced: (job, scratch, request) => {
        const reason = memo.diagnose(cluster, scratch, placement, request ?? placementRequestOf(job.request), job);
        waits.own(job, engine.nowS, reason);
        return reason;
      },
      diagnose: (scratch, request) => diagnoseUnplaced(scratch, placement, request),
      others: (reason, blocker) => waits.others(engine.nowS, reason, blocker),
      joinGroup: (job, group) => waits.joinGroup(job, engine.nowS, group),
      group: (group, reason, blocker) => waits.group(group, engine.nowS, reason, blocker),
    };
  }

  /** True when the kind is consulted now: its tick came, or it has none and something changed. */
  private isDue(kind: ConsultedKind): boolean {
    return this.due[kind] || (this.policyOf(kind).tickS === undefined && this.control.dirty);
  }

  /** Validates and applies one kind's decisions (made by `name`), dropping those on jobs an earlier kind changed in this instant. */
  private consult(kind: ConsultedKind, decisions: readonly Decision[], name = this.policyOf(kind).name): void {
    if (decisions.length === 0) return;
    const kinds = ALLOWED[kind];
    // The first kind consulted in an instant finds no job changed.
    const changed = this.changedCount > 0 ? this.changedThisInstant() : null;
    // The decisions kept, made only when one is dropped (most batches are applied as they are).
    let kept: Decision[] | null = null;
    for (let k = 0; k < decisions.length; k++) {
      const decision = decisions[k]!;
      if (!kinds.has(decision.kind)) throw new InvariantError(`${name}: a ${kind} policy cannot ${decision.kind}`);
      if (changed !== null && !isAuxiliary(decision) && changed.has(decision.jobId)) {
        this.conflictsDropped++;
        kept ??= decisions.slice(0, k);
        continue;
      }
      kept?.push(decision);
    }
    const allowed = kept ?? decisions;
    const scaled: readonly ScaledDecision[] = kind === 'autoscale' ? allowed.flatMap((d) => (d.kind === 'resize' || d.kind === 'reshape-role' ? [{ decision: d, before: [...(this.cluster.tasksOf(d.jobId) ?? [])] }] : [])) : NOTHING_SCALED;
    applyDecisions(this.control, allowed, name);
    for (const decision of allowed) if (!isAuxiliary(decision)) this.changedByDecisions[this.changedCount++] = decision;
    for (const { decision, before } of scaled) {
      const after = this.cluster.tasksOf(decision.jobId) ?? [];
      this.scalePlans.applied(decision, this.engine.nowS, before, after, this.control.job(decision.jobId).psRanked);
    }
  }

  /** Ids of the jobs decisions changed in this instant (other than their auxiliary tasks). */
  private changedThisInstant(): ReadonlySet<string> {
    const decisions = this.changedByDecisions;
    for (; this.changedListed < this.changedCount; this.changedListed++) this.changedIds.add(decisions[this.changedListed]!.jobId);
    return this.changedIds;
  }

  /**
   * Sizes a job as it is submitted when the auto-scaler has a create stage for it (its plan is
   * logged), and wakes an idle auto-scaler that now has a job to manage.
   */
  createPlan(job: JobRuntime): void {
    const plan = this.autoscale.createPlan?.(job.request, this.engine.nowS) ?? null;
    if (plan !== null) {
      job.replaceRoles(plan.roles);
      this.scalePlans.created(job.spec.id, this.engine.nowS, plan.roles, plan.reason);
    }
    if (!this.autoscaleTicking && this.autoscale.active?.() !== false) {
      this.autoscaleTicking = true;
      this.engine.scheduleAt(this.engine.nowS + this.autoscale.tickS!, { kind: 'policy-tick', policy: 'autoscale' });
    }
  }

  private policyOf(kind: ConsultedKind): { readonly name: string; readonly tickS?: number } {
    return kind === 'scheduling' ? this.scheduling : kind === 'autoscale' ? this.autoscale : this.data;
  }

  /** What auto-scaling and data policies see (one object for the run: it reads the time and the running list when asked). */
  private observing: ObservingContext | null = null;

  /** What auto-scaling and data policies see; their samples cost only the jobs they listen to. */
  private observingContext(): ObservingContext {
    if (this.observing !== null) return this.observing;
    const control = this.control;
    const engine = this.engine;
    this.observing = {
      get nowS() {
        return engine.nowS;
      },
      cluster: this.cluster,
      // Built only when the policy reads it.
      get running() {
        return control.running;
      },
      placement: this.placement,
      scratch: () => new CapacityScratch(this.cluster),
      samples: (jobId: string): readonly UsageSample[] => this.sampler.samplesOf(jobId),
      job: (jobId: string) => this.control.find(jobId),
      listen: (jobId: string) => {
        this.control.job(jobId);
        this.sampler.listen(jobId);
        this.scheduleSample();
      },
      unlisten: (jobId: string) => this.sampler.unlisten(jobId),
      listenInput: (jobId: string) => {
        this.control.trackInput(this.control.job(jobId));
        this.sampler.listen(jobId);
        this.scheduleSample();
      },
    };
    return this.observing;
  }

  /** Schedules the next sample one period on, while some job is listened. */
  private scheduleSample(): void {
    if (this.samplePending || this.sampler.listening().length === 0) return;
    this.samplePending = true;
    this.engine.scheduleAt(this.engine.nowS + this.sampler.periodS, { kind: 'sample' });
  }
}
