import type { Engine } from '../engine/engine.js';
import { InvariantError } from '../errors.js';
import { NO_AUX_TASKS, NO_TASKS, type AuxTask, type Eviction, type TaskPlacement } from '../model/allocation.js';
import type { ClusterState } from '../model/cluster-state.js';
import { restartSteps, saveBlockS, type CheckpointCosts } from '../model/checkpoint.js';
import { firstRepeatedId } from '../model/job-ids.js';
import { isRecoveryPause, type PauseStep } from '../model/pause.js';
import { demandIn, EMPTY_SHAPE, replicasIn, shapeOfTasks } from '../model/shape.js';
import { psTruthStepsPerS } from '../model/ps-truth.js';
import { stepsPerS, trainersOf } from '../model/speed.js';
import type { ReshapePause } from '../policies/decision.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimEvent } from './events.js';
import { JobShards } from './job-shards.js';
import { holdingsOf, psOomAtStep, psTruthOf, rankPs, taskMemNeedMiB } from './ps-job.js';
import type { FaultTracker } from './fault-tracker.js';
import { hardwareSpeedFactor, type JobRuntime } from './job-runtime.js';
import { inputQueueLevelNow, refreshInputQueue, trackInputQueue, updateInputSupply } from './input-supply.js';
import { OrderedList } from './ordered-list.js';
import { checkShape } from './shape-check.js';
import { CpuStarvationMeter } from './cpu-starvation.js';
import { WaitLedger } from './wait-ledger.js';

/** The start of a job without a start-up time: a zero pause (shared by every such start). */
const NO_STARTUP: readonly PauseStep[] = [Object.freeze({ kind: 'starting', seconds: 0 })];

/** What the job control acts on: the run's engine, cluster, hardware faults and settings. */
export interface JobControlSetup {
  readonly engine: Engine<SimEvent>;
  readonly cluster: ClusterState;
  readonly scenario: Scenario;
  readonly tracker: FaultTracker;
  readonly jobs: readonly JobRuntime[];
}

/**
 * The one place that changes jobs and what they hold: arrival, start, preemption, resize, pause and
 * resume, completion, failure, stop and requeue after a crash, checkpoints and speed changes. It
 * keeps the queue (submission order), the running list (start order) and the accounting that goes
 * with them; every event handler and every policy decision goes through it.
 */
export class JobControl {
  private readonly engine: Engine<SimEvent>;
  private readonly cluster: ClusterState;
  private readonly scenario: Scenario;
  private readonly tracker: FaultTracker;
  /** Save and load costs of the recovery stack, replacing the jobs' own when set. */
  checkpointCosts: CheckpointCosts | undefined = undefined;
  /** Every job of the run, in arrival order. */
  private readonly allJobs: readonly JobRuntime[];
  /**
   * Every job by id, made at the first lookup of a job neither queued nor running: most runs never
   * make it (over a million jobs it would hold a million entries for the whole run).
   */
  private jobsById: Map<string, JobRuntime> | null = null;
  /**
   * The jobs queued or running, by id: a decision names one of these, found here in a map the size
   * of the queue and the running list (a lookup in the map of every job misses the caches). Made at
   * the first lookup of a job other than the queue's first (see find), then kept: a run whose
   * decisions name only that job (FIFO's) never hashes its ids.
   */
  private liveById: Map<string, JobRuntime> | null = null;
  private starts = 0;
  /** Keyed by arrival: a job queued again goes back among the others in submission order (see requeue). */
  private readonly queue = new OrderedList<JobRuntime>(
    { get: (job) => job.queueLink, set: (job, link) => void (job.queueLink = link) },
    { of: (job) => job.arrivalIndex, count: () => this.allJobs.length },
  );
  private readonly runningList = new OrderedList<JobRuntime>({ get: (job) => job.runningLink, set: (job, link) => void (job.runningLink = link) });
  private ended = 0;
  private changed = false;
  /** Auxiliary tasks taken back since the owners were last told (see takeEvictions). */
  private evictions: Eviction[] = [];
  /** Jobs that joined the queue, started, and stopped running since the scheduler last looked (see takeChanges). */
  private changes: JobChanges = noChanges();
  /** The lists takeChanges handed out last time, emptied and used again at its next call. */
  private taken: JobChanges = noChanges();
  /** GPUs of running jobs weighted by their speed (the utilisation numerator). */
  busyGpus = 0;
  /** What remote data workers' output counts for per node of a job's GPU tasks, CPU thousandths (null: no cap; see input-supply.ts). */
  private readonly remoteInputCap: number | null;
  /** Names the policy whose decision a shape breach comes from, in its error. */
  decidedBy = '';
  /** Attributes queued time to CPU starvation (told of every job joining and leaving the queue). */
  readonly starvation: CpuStarvationMeter;
  /** Attributes queued time to the reasons the scheduling policy gives (told of every job joining and leaving the queue). */
  readonly waits: WaitLedger;

  constructor(setup: JobControlSetup) {
    this.engine = setup.engine;
    this.cluster = setup.cluster;
    this.scenario = setup.scenario;
    this.tracker = setup.tracker;
    this.remoteInputCap = setup.scenario.params.dataWorkerNetworkCapCpuMilli ?? null;
    this.starvation = new CpuStarvationMeter(setup.cluster, { periodS: setup.scenario.params.samplePeriodS });
    this.waits = new WaitLedger(setup.jobs.length, setup.jobs[0]?.spec.submitS ?? 0);
    this.allJobs = setup.jobs;
    // Runtimes of the scenario's own list, in order, are checked as that list (at once when it was found unique before).
    const specs = setup.scenario.jobs;
    let ownList = specs.length === setup.jobs.length;
    for (let index = 0; index < setup.jobs.length; index++) {
      const job = setup.jobs[index]!;
      ownList &&= job.spec === specs[index];
      job.arrivalIndex = index;
    }
    const repeated = firstRepeatedId(ownList ? specs : setup.jobs.map((job) => job.spec));
    if (repeated !== null) throw new InvariantError(`duplicate job id ${repeated}`);
  }

  /** Jobs waiting to start, in submission order. */
  get queued(): readonly JobRuntime[] {
    return this.queue.toArray();
  }

  /** Jobs waiting to start, in submission order, read lazily (costs the jobs read). */
  queuedInOrder(): Iterable<JobRuntime> {
    return this.queue.values();
  }

  /** How many jobs wait to start (without building the queue's array). */
  get queuedCount(): number {
    return this.queue.size;
  }

  /** How many jobs run (without building the running list's array). */
  get runningCount(): number {
    return this.runningList.size;
  }

  /** Jobs running, in start order. */
  get running(): readonly JobRuntime[] {
    return this.runningList.toArray();
  }

  /** Jobs that ended for good (completed or failed). */
  get endedJobs(): number {
    return this.ended;
  }

  /** True while some job has not ended. */
  jobsRemain(): boolean {
    return this.ended < this.allJobs.length;
  }

  /** True when something changed since the last scheduling pass. */
  get dirty(): boolean {
    return this.changed;
  }

  /** Asks for a scheduling pass at the end of the instant. */
  markDirty(): void {
    this.changed = true;
  }

  /** The scheduling pass ran: nothing changed since. */
  clearDirty(): void {
    this.changed = false;
  }

  /** The job with this id (an InvariantError for an unknown one). */
  job(jobId: string): JobRuntime {
    const job = this.find(jobId);
    if (!job) throw new InvariantError(`unknown job ${jobId}`);
    return job;
  }

  /**
   * The job a decision names by `jobId`, given the policy's `view` of it when the decision carries
   * one: a view that is this run's job is taken as it is, without looking its id up (an
   * InvariantError when its id is another); any other view, or none, is looked up by id.
   */
  jobNamed(jobId: string, view?: object): JobRuntime {
    const job = view as JobRuntime | undefined;
    if (job === undefined || this.allJobs[job.arrivalIndex] !== job) return this.job(jobId);
    if (job.spec.id !== jobId) throw new InvariantError(`${this.decidedBy}: a decision for job ${jobId} carries the view of job ${job.spec.id}`);
    return job;
  }

  /** The job with this id, or undefined. */
  find(jobId: string): JobRuntime | undefined {
    // A pass starting jobs in queue order names the queue's first job each time.
    const first = this.queue.first;
    if (first !== undefined && first.spec.id === jobId) return first;
    return this.live().get(jobId) ?? this.byId().get(jobId);
  }

  /** The jobs queued or running by id (made at the first use, then kept as jobs join the queue and stop running). */
  private live(): Map<string, JobRuntime> {
    if (this.liveById === null) {
      const live = new Map<string, JobRuntime>();
      for (const job of this.queue.values()) live.set(job.spec.id, job);
      for (const job of this.runningList.values()) live.set(job.spec.id, job);
      this.liveById = live;
    }
    return this.liveById;
  }

  /** Every job by id (made at its first use). */
  private byId(): Map<string, JobRuntime> {
    return (this.jobsById ??= new Map(this.allJobs.map((job) => [job.spec.id, job])));
  }

  /** Position of a running job in the running list's order (larger = started later). */
  startOrder(job: JobRuntime): number {
    return job.startOrder;
  }

  /** A job is submitted: it joins the queue. */
  arrive(job: JobRuntime): void {
    job.lastUpdateS = this.engine.nowS;
    job.phase = 'queued';
    this.enqueue(job);
    this.changed = true;
  }

  /**
   * What changed in the queue and the running list since the last call, in the order it happened:
   * jobs that joined the queue (submitted, preempted, resubmitted or requeued after a crash), that
   * started, and that stopped running (ended, preempted, crashed). Costs what changed. The lists
   * hold until the next call, which empties and reuses them (a pass reads them; nothing keeps them).
   */
  takeChanges(): Readonly<JobChanges> {
    const taken = this.changes;
    const next = this.taken;
    next.queued.length = next.started.length = next.stopped.length = next.resized.length = 0;
    this.changes = next;
    this.taken = taken;
    return taken;
  }

  /** A submitted job can never fit the installed cluster: it fails at once. */
  rejectUnschedulable(job: JobRuntime): void {
    job.lastUpdateS = this.engine.nowS;
    job.phase = 'failed';
    job.failureReason = 'unschedulable';
    job.endS = this.engine.nowS;
    this.ended++;
  }

  /** Starts a queued job on these tasks: it leaves the queue and joins the running list. */
  start(job: JobRuntime, tasks: readonly TaskPlacement[]): void {
    this.expectPhase(job, 'queued', 'start');
    if (!this.queue.delete(job)) throw new InvariantError(`job ${job.spec.id} is queued but not in the queue`);
    const nowS = this.engine.nowS;
    this.starvation.left(job, nowS);
    this.waits.left(job, nowS);
    job.advanceTo(nowS);
    this.allocate(job, tasks);
    const restarting = job.firstStartS !== null;
    job.phase = 'running';
    job.paused = false;
    job.firstStartS ??= nowS;
    this.runningList.push(job);
    this.changes.started.push(job);
    job.startOrder = this.starts++;
    this.takeShape(job);
    if (restarting) {
      // After a crash: pods start, processes start and the checkpoint loads; after a preemption: a resize pause and the start-up.
      this.pause(job, job.restartPause ?? [...this.resizePause(), { kind: 'starting', seconds: job.spec.startupS ?? 0 }]);
      job.restartPause = null;
    } else {
      this.pause(job, job.spec.startupS === undefined ? NO_STARTUP : [{ kind: 'starting', seconds: job.spec.startupS }]);
    }
    if (!job.paused) this.trainingStarted(job);
    this.checkBrokenStart(job);
  }

  /**
   * Stops a running job and queues it again in submission order, keeping its progress (`reclaim`:
   * only up to its last checkpoint); it waits `preempted` (by `by`, when known) until its scheduler says otherwise.
   */
  preempt(job: JobRuntime, reclaim = false, by?: JobRuntime): void {
    this.expectPhase(job, 'running', 'preempt');
    job.advanceTo(this.engine.nowS);
    this.recordSpeedSample(job);
    if (reclaim) job.loseSinceCheckpoint();
    this.stopRunning(job);
    job.phase = 'queued';
    job.paused = false;
    job.preemptions++;
    this.requeue(job, by ?? null);
  }

  /** First half of a resize: the job gives back `remove` (its speed so far is recorded). */
  releaseForResize(job: JobRuntime, remove: readonly TaskPlacement[]): void {
    this.expectPhase(job, 'running', 'resize');
    job.advanceTo(this.engine.nowS);
    this.recordSpeedSample(job);
    this.cluster.releaseTasks(job.spec.id, remove);
    if (remove.length > 0) this.changes.resized.push(job);
  }

  /** A recovery's cleanup takes some of a running job's tasks away (the job stays running). */
  releaseForRecovery(job: JobRuntime, remove: readonly TaskPlacement[]): void {
    this.cluster.releaseTasks(job.spec.id, remove);
    this.changes.resized.push(job);
  }

  /** Gives a running job more tasks (no shape is taken: see finishResize); auxiliary tasks in the way give way. */
  addTasks(job: JobRuntime, add: readonly TaskPlacement[]): void {
    this.allocate(job, add);
  }

  /** First half of a reshape: the job gives back `remove` of `role` (its speed so far is recorded). */
  releaseForReshape(job: JobRuntime, role: string, remove: readonly TaskPlacement[]): void {
    this.expectRole(job, role, remove, 'remove');
    this.releaseForResize(job, remove);
  }

  /** Gives a running job tasks of `role`, the reshape's additions. */
  addForReshape(job: JobRuntime, role: string, add: readonly TaskPlacement[]): void {
    this.expectRole(job, role, add, 'add');
    this.allocate(job, add);
  }

  /**
   * Second half of a reshape: the job takes its new shape (checked against its spec's bounds) and
   * pauses as `pause` says: not at all; the resize pause and a restart of its processes; or the
   * resize pause with a checkpoint save (it becomes the job's last checkpoint), then the restart
   * and the checkpoint's load. Progress is kept; the pause is not recovery from a fault.
   */
  finishReshape(job: JobRuntime, pause: ReshapePause, migrated = false): void {
    job.reshapes++;
    if (migrated) job.psCounters().psMigrations++;
    // The reshape's save is a checkpoint like any other: a later crash rolls back to it.
    if (pause === 'checkpoint-restore' && job.spec.checkpoint) markCheckpoint(job, job.storedProgressSteps);
    this.takeShape(job);
    if (pause === 'none') return;
    if (pause === 'restart') {
      this.pause(job, [...this.resizePause(), { kind: 'starting', seconds: job.spec.startupS ?? 0 }], false);
      return;
    }
    const saveS = job.spec.checkpoint ? saveBlockS(job.spec.checkpoint, this.checkpointCosts) : 0;
    this.pause(job, restartSteps(job.spec, this.checkpointCosts, { kind: 'resizing', seconds: this.scenario.params.resizePauseS + saveS }), false);
  }

  /** Gives a running job auxiliary tasks on idle capacity. */
  attach(job: JobRuntime, tasks: readonly AuxTask[]): void {
    this.expectPhase(job, 'running', 'attach auxiliary tasks to');
    job.advanceTo(this.engine.nowS);
    this.cluster.attachAux(job.spec.id, tasks);
    this.inputChanged(job);
  }

  /** Takes auxiliary tasks back from a job. */
  detach(job: JobRuntime, tasks: readonly AuxTask[]): void {
    job.advanceTo(this.engine.nowS);
    this.cluster.detachAux(job.spec.id, tasks);
    this.inputChanged(job);
  }

  /** Takes back every auxiliary task on a node that went down. */
  evictAuxOn(nodeIndex: number): void {
    this.tookBack(this.cluster.evictAuxOn(nodeIndex));
  }

  /** Starts tracking a running job's input queue (a data policy listens to it): its level reads from now on. */
  trackInput(job: JobRuntime): void {
    if (job.dataState !== null) return;
    job.advanceTo(this.engine.nowS);
    trackInputQueue(job, this.cluster.tasksOf(job.spec.id) ?? NO_TASKS, this.cluster.auxOf(job.spec.id), this.remoteInputCap, this.engine.nowS);
    this.refreshRate(job);
  }

  /** A running job's input queue ran dry: it trains at its input's supply from now. */
  inputRanDry(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    // Dry exactly (the level computed from its rate may miss 0 by a rounding error).
    const state = job.dataState!;
    state.level = 0;
    state.levelAtS = this.engine.nowS;
    this.refreshRate(job);
  }

  /** A running job's input queue fill now (0 empty, 1 full); null when its input is not tracked. */
  inputQueueLevel(job: JobRuntime): number | null {
    return job.dataState === null ? null : inputQueueLevelNow(job.dataState, this.engine.nowS);
  }

  /** Auxiliary tasks were taken back: their owners slow down from now, and the data policy hears of it. */
  private tookBack(evicted: readonly Eviction[]): void {
    if (evicted.length === 0) return;
    this.evictions.push(...evicted);
    // Each owner once, however many of its workers gave way.
    for (const jobId of new Set(evicted.map((e) => e.jobId))) {
      const owner = this.job(jobId);
      if (owner.phase !== 'running') continue;
      owner.advanceTo(this.engine.nowS);
      this.inputChanged(owner);
    }
  }

  /** A running job's tasks or data workers changed: its input supply, speed and input queue follow. */
  private inputChanged(job: JobRuntime): void {
    updateInputSupply(job, this.cluster.tasksOf(job.spec.id) ?? NO_TASKS, this.cluster.auxOf(job.spec.id), this.remoteInputCap, this.engine.nowS);
    this.refreshRate(job);
  }

  /** The auxiliary tasks taken back since the last call, in the order they were taken. */
  takeEvictions(): Eviction[] {
    const taken = this.evictions;
    this.evictions = [];
    return taken;
  }

  /** Allocates tasks to a job, keeping the auxiliary tasks that gave way. */
  private allocate(job: JobRuntime, tasks: readonly TaskPlacement[]): void {
    if (job.phase === 'running') this.changes.resized.push(job);
    this.tookBack(this.cluster.allocate(job.spec.id, tasks));
  }

  /** Throws an InvariantError unless every task is of `role`. */
  private expectRole(job: JobRuntime, role: string, tasks: readonly TaskPlacement[], what: string): void {
    const other = tasks.find((task) => task.role !== role);
    if (other) throw new InvariantError(`${this.decidedBy}: a reshape of job ${job.spec.id}'s ${role} role cannot ${what} a ${other.role} task`);
  }

  /** Second half of a resize: the job takes its new shape and pauses to re-form its group. */
  finishResize(job: JobRuntime): void {
    job.resizes++;
    this.takeShape(job);
    this.pause(job, this.resizePause());
  }

  /** A running job reached its last step. */
  complete(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.progressSteps = job.spec.totalSteps;
    if (job.shards !== null) {
      job.shards.sync(job.progressSteps, this.cluster.tasksOf(job.spec.id) ?? [], false);
      job.shards.drain();
    }
    this.stopRunning(job);
    job.phase = 'completed';
    job.endS = this.engine.nowS;
    this.ended++;
    this.changed = true;
  }

  /** Ends a running job for good after a fault: even its checkpointed work is lost. */
  failAfterFault(job: JobRuntime): void {
    this.stopRunning(job);
    job.lostSteps += job.storedProgressSteps;
    if (job.baseRateStepsPerS > 0) job.lostGpuS += (job.storedProgressSteps / job.baseRateStepsPerS) * job.gpusWhenRunning;
    job.progressSteps = 0;
    job.phase = 'failed';
    job.failureReason = 'fault';
    job.endS = this.engine.nowS;
    this.ended++;
  }

  /** A crashed job releases everything and waits for its resubmission (manual recovery). */
  stopForResubmission(job: JobRuntime): void {
    job.restarts++;
    this.stopRunning(job);
    job.phase = 'waiting';
  }

  /** A crashed job joins the queue again at its end, like a new submission; its start pays `restartPause`. */
  resubmit(job: JobRuntime, restartPause: readonly PauseStep[]): void {
    job.advanceTo(this.engine.nowS);
    job.phase = 'queued';
    job.restartPause = restartPause;
    this.enqueue(job);
    this.changed = true;
  }

  /** A crashed job that recovery could not place releases everything and waits in the queue (submission order). */
  requeueAfterCrash(job: JobRuntime, restartPause: readonly PauseStep[]): void {
    job.restarts++;
    this.stopRunning(job);
    job.phase = 'queued';
    job.restartPause = restartPause;
    this.requeue(job);
  }

  /** Reads the job's replica counts and resources from what it holds and recomputes its speed. */
  takeShape(job: JobRuntime): void {
    const tasks = this.cluster.tasksOf(job.spec.id) ?? [];
    checkShape(job.spec, tasks, this.decidedBy);
    job.shape = shapeOfTasks(job.spec, tasks);
    job.workers = replicasIn(job.shape, 'worker');
    job.ps = replicasIn(job.shape, 'ps');
    job.gpus = 0;
    job.cpuMilli = 0;
    // Workers on more than one rack: any worker on another rack than the first worker's.
    let workerRack: string | null = null;
    let workersCrossRacks = false;
    for (const task of tasks) {
      const node = this.cluster.nodes[task.nodeIndex]!;
      job.noteNodeUsed(node.name);
      if (task.role === 'worker') {
        workerRack ??= node.rack;
        if (node.rack !== workerRack) workersCrossRacks = true;
      }
      job.gpus += (task.gpuIndices.length * task.demand.gpuMilli) / 1000;
      job.cpuMilli += task.demand.cpuMilli;
    }
    job.gpusWhenRunning = job.gpus;
    job.cpuMilliWhenRunning = job.cpuMilli;
    const chiefs = replicasIn(job.shape, 'chief');
    job.maxWorkers = Math.max(job.maxWorkers, job.workers + chiefs);
    if (job.ps > 0) job.psCounters().maxPs = Math.max(job.psCounters().maxPs, job.ps);
    const crossRack = job.spec.kind === 'allreduce' && workersCrossRacks;
    this.syncShards(job, tasks);
    const psTruth = psTruthOf(job.spec);
    if (psTruth !== null) {
      job.psRanked = rankPs(job.psRanked, tasks);
      job.baseRateStepsPerS = psTruthStepsPerS(psTruth.speed, psTruth.truth, holdingsOf(tasks, job.psRanked));
    } else {
      const psCpuMilli = demandIn(job.shape, 'ps')?.cpuMilli;
      const workers = trainersOf(job.spec, job.workers, chiefs);
      const shape = psCpuMilli === undefined ? { workers, ps: job.ps } : { workers, ps: job.ps, psCpuMilli };
      job.baseRateStepsPerS = stepsPerS(job.spec, shape) / (crossRack ? this.scenario.params.crossRackSlowdown : 1);
    }
    job.shapeSinceS = this.engine.nowS;
    job.hardwareFactor = this.hardwareFactorOf(job);
    if (job.preprocessing !== null || job.dataState !== null) updateInputSupply(job, tasks, this.cluster.auxOf(job.spec.id), this.remoteInputCap, this.engine.nowS);
    this.refreshRate(job);
  }

  /**
   * A job reading its data through dynamic sharding: the shards its progress passed go to the
   * workers it had, workers gone give their shards back (their partial samples are trained again),
   * dropped shards are skipped (see job-shards.ts).
   */
  private syncShards(job: JobRuntime, tasks: readonly TaskPlacement[], died = false): void {
    if (job.spec.data === undefined) return;
    job.advanceTo(this.engine.nowS);
    job.shards ??= new JobShards(job.spec.data);
    const deltaSteps = job.shards.sync(job.progressSteps, tasks, died);
    if (deltaSteps !== 0) job.progressSteps = Math.min(job.spec.totalSteps, Math.max(0, job.progressSteps + deltaSteps));
  }

  /** A crash ended the job's processes: each worker's shard in progress goes back to TODO as a failure (a retry); recovery's new shape brings the workers back. */
  workersDied(job: JobRuntime): void {
    if (job.shards !== null) this.syncShards(job, NO_TASKS, true);
  }

  /** Pauses a running job's training for the steps given, one after another; a resume event ends the pause. Returns its length in seconds. */
  pause(job: JobRuntime, steps: readonly PauseStep[], forRecovery = isRecoveryPause(steps)): number {
    const pauseS = steps.reduce((sum, step) => sum + step.seconds, 0);
    if (pauseS <= 0) return 0;
    job.paused = true;
    job.pauses++;
    job.pauseSteps = steps;
    job.pauseForRecovery = forRecovery;
    job.pauseStartS = this.engine.nowS;
    this.refreshRate(job);
    this.engine.scheduleAt(this.engine.nowS + pauseS, { kind: 'job-resume', job, pause: job.pauses });
    return pauseS;
  }

  /** A pause ends: training resumes at the job's current shape. */
  resume(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.paused = false;
    job.shapeSinceS = this.engine.nowS;
    this.refreshRate(job);
    // A resize keeps the processes (and their memory); any other pause restarted them.
    if (job.pauseSteps.some((step) => step.kind !== 'resizing')) this.trainingStarted(job);
    this.checkBrokenStart(job);
  }

  /** The pause of a resize: re-forming the group. */
  resizePause(): PauseStep[] {
    return [{ kind: 'resizing', seconds: this.scenario.params.resizePauseS }];
  }

  /** Multiplies a job's speed by `factor` from now on (a scripted straggler). */
  setSpeedFactor(job: JobRuntime, factor: number): void {
    if (!(factor > 0)) throw new InvariantError(`job ${job.spec.id}: speed factor ${factor} must be positive`);
    job.advanceTo(this.engine.nowS);
    this.recordSpeedSample(job);
    job.speedFactor = factor;
    job.shapeSinceS = this.engine.nowS;
    if (job.phase === 'running') this.refreshRate(job);
  }

  /** Re-derives the speed of jobs on hardware whose slowdowns changed (only those jobs). */
  refreshHardwareFactors(jobs: readonly JobRuntime[]): void {
    for (const job of jobs) {
      const factor = this.hardwareFactorOf(job);
      if (factor === job.hardwareFactor) continue;
      job.advanceTo(this.engine.nowS);
      job.hardwareFactor = factor;
      // A paused job's rate is 0 until its resume event, which recomputes it.
      if (!job.paused) this.refreshRate(job);
    }
  }

  /** Speed factor of the hardware a job holds (its unrepaired slowdowns, as its kind combines them); 1 when it holds none. */
  private hardwareFactorOf(job: JobRuntime): number {
    const tasks = this.cluster.tasksOf(job.spec.id) ?? [];
    // Every task on a node without slowdowns: full speed, whatever the job's kind.
    let slowed = false;
    for (let k = 0; k < tasks.length && !slowed; k++) slowed = this.tracker.nodeSlowed(tasks[k]!.nodeIndex);
    if (!slowed) return 1;
    return hardwareSpeedFactor(
      job.spec.kind,
      tasks.map((t) => ({ role: t.role, factor: this.tracker.speedFactor(t.nodeIndex, t.gpuIndices) })),
    );
  }

  /** Updates the job's share of busy GPUs and reschedules its finish and its next checkpoint for its current rate. */
  refreshRate(job: JobRuntime): void {
    const dryInS = job.dataState === null ? Infinity : refreshInputQueue(job, this.engine.nowS);
    this.busyGpus -= job.busyGpusCounted;
    job.busyGpusCounted = job.rateStepsPerS > 0 ? job.gpus * job.speedFactor * job.hardwareFactor * job.preprocessingFactor : 0;
    this.busyGpus += job.busyGpusCounted;
    job.epoch++;
    if (job.rateStepsPerS > 0) {
      job.lastRateStepsPerS = job.rateStepsPerS;
      job.noteRate(this.engine.nowS, job.rateStepsPerS);
    }
    const finishS = job.finishTimeS();
    if (Number.isFinite(finishS)) {
      this.engine.scheduleAt(finishS, { kind: 'job-finish', job, epoch: job.epoch });
    }
    if (this.engine.nowS + dryInS < finishS) this.engine.scheduleAt(this.engine.nowS + dryInS, { kind: 'input-dry', job, epoch: job.epoch });
    if (job.phase !== 'running') return;
    if (job.saving) {
      this.engine.scheduleAt(Math.max(job.savingUntilS, this.engine.nowS), { kind: 'checkpoint-done', job, epoch: job.epoch });
    } else if (job.rateStepsPerS > 0 && Number.isFinite(job.checkpointIntervalS)) {
      const dueS = this.engine.nowS + Math.max(0, job.checkpointIntervalS - job.trainedSinceCheckpointS);
      if (dueS < finishS) this.engine.scheduleAt(dueS, { kind: 'checkpoint', job, epoch: job.epoch });
    }
    this.scheduleMemoryLimit(job, finishS);
  }

  /**
   * A job whose PS memory grows: its OOM kill comes when the first PS's use reaches what it holds,
   * at the current rate (a later change of rate schedules it anew; an early one finds no PS short).
   */
  private scheduleMemoryLimit(job: JobRuntime, finishS: number): void {
    const psTruth = psTruthOf(job.spec);
    if (psTruth === null || !(psTruth.truth.psMemGrowthMiBPerStep > 0) || job.psRanked.length === 0) return;
    const steps = job.progressSteps;
    const oomStep = psOomAtStep(psTruth, job.psRanked, steps);
    if (!Number.isFinite(oomStep)) return;
    const rate = job.rateStepsPerS;
    if (oomStep > steps && !(rate > 0)) return;
    const atS = oomStep <= steps ? this.engine.nowS : this.engine.nowS + (oomStep - steps) / rate;
    if (atS < finishS) this.engine.scheduleAt(atS, { kind: 'job-oom', job, trainingStart: job.trainingStarts });
  }

  /** A checkpoint save starts: training blocks for the save (flash: half a second). */
  startCheckpoint(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    const checkpoint = job.spec.checkpoint!;
    job.saving = true;
    job.savingSteps = job.storedProgressSteps;
    job.savingUntilS = this.engine.nowS + saveBlockS(checkpoint, this.checkpointCosts);
    this.refreshRate(job);
  }

  /** A checkpoint save completes: it becomes the point a crash rolls back to. */
  finishCheckpoint(job: JobRuntime): void {
    job.advanceTo(this.engine.nowS);
    job.saving = false;
    markCheckpoint(job, job.savingSteps);
    this.refreshRate(job);
  }

  /** Records the speed the job measured at its current shape since it took it (its measurement noise is added when read). */
  recordSpeedSample(job: JobRuntime): void {
    if (job.phase !== 'running' || job.paused || this.engine.nowS <= job.shapeSinceS) return;
    job.addSpeedSample({ ps: job.ps, workers: job.workers, stepsPerS: job.rateStepsPerS });
  }

  /** The training processes (re)started: a pod with less memory than its role uses is OOM-killed `sim.oomAfter` into training. */
  trainingStarted(job: JobRuntime): void {
    job.trainingStarts++;
    if (this.shortOfMemory(job)) {
      this.engine.scheduleAt(this.engine.nowS + this.scenario.params.oomAfterS, { kind: 'job-oom', job, trainingStart: job.trainingStarts });
    }
  }

  /** The job's first pod with less memory than it uses now, if any. */
  shortOfMemory(job: JobRuntime): TaskPlacement | null {
    const psTruth = psTruthOf(job.spec);
    if (psTruth === null && !job.spec.roles.some((r) => r.memUseMiB !== undefined)) return null;
    const steps = psTruth === null ? 0 : job.progressSteps;
    for (const task of this.cluster.tasksOf(job.spec.id) ?? []) {
      const useMiB = this.memNeedMiB(job, task, steps);
      // A PS whose growing use reaches its limit is killed; a static need must exceed it.
      if (useMiB !== undefined && (task.demand.memMiB < useMiB || (psTruth !== null && task.role === 'ps' && task.demand.memMiB <= useMiB))) return task;
    }
    return null;
  }

  /** Memory the task uses after `steps` steps, MiB (undefined: no model says more than its share of the request). */
  memNeedMiB(job: JobRuntime, task: TaskPlacement, steps: number): number | undefined {
    const psTruth = psTruthOf(job.spec);
    if (psTruth !== null) return taskMemNeedMiB(psTruth, task, job.psRanked, steps);
    return job.spec.roles.find((r) => r.role === task.role)?.memUseMiB;
  }

  /** Checks, once the instant's actions are applied, whether a job begins training on broken hardware. */
  checkBrokenStart(job: JobRuntime): void {
    if (this.tracker.hidden.size === 0 || job.paused) return;
    if (this.tracker.brokenUnder(this.cluster.tasksOf(job.spec.id) ?? [])) {
      this.engine.scheduleAt(this.engine.nowS, { kind: 'job-broken', job, epoch: job.epoch });
    }
  }

  /** Releases everything a running job holds and takes it off the running list. */
  stopRunning(job: JobRuntime): void {
    this.cluster.release(job.spec.id);
    const aux = this.cluster.auxOf(job.spec.id);
    if (aux.length > 0) this.cluster.detachAux(job.spec.id, [...aux]);
    if (job.dataState !== null) {
      updateInputSupply(job, NO_TASKS, NO_AUX_TASKS, this.remoteInputCap, this.engine.nowS);
      refreshInputQueue(job, this.engine.nowS);
    }
    this.busyGpus -= job.busyGpusCounted;
    job.busyGpusCounted = 0;
    job.gpus = 0;
    job.cpuMilli = 0;
    job.workers = 0;
    job.ps = 0;
    if (job.spec.kind === 'ps') job.lastShape = job.shape;
    job.shape = EMPTY_SHAPE;
    job.hardwareFactor = 1;
    job.epoch++;
    if (!this.runningList.delete(job)) throw new InvariantError(`job ${job.spec.id} is not running`);
    this.liveById?.delete(job.spec.id);
    this.changes.stopped.push(job);
  }

  /** A job joins the queue at its end. */
  private enqueue(job: JobRuntime): void {
    this.queue.push(job);
    this.liveById?.set(job.spec.id, job);
    job.queuePosition = this.queue.positionOf(job)!;
    this.changes.queued.push(job);
    this.starvation.joined(job, this.engine.nowS);
    this.waits.joined(job, this.engine.nowS);
  }

  /** Puts a job back in the queue in submission order (`preemptedBy`: it was preempted, for that job when not null). */
  private requeue(job: JobRuntime, preemptedBy?: JobRuntime | null): void {
    const renumbered = this.queue.insertByKey(job);
    if (renumbered) {
      // Every queued job moved: each counts as queued anew, so policies ordering by position re-read it.
      for (const other of this.queue.toArray()) {
        other.queuePosition = this.queue.positionOf(other)!;
        if (other !== job) this.changes.queued.push(other);
      }
    }
    job.queuePosition = this.queue.positionOf(job)!;
    this.liveById?.set(job.spec.id, job);
    this.changes.queued.push(job);
    this.starvation.joined(job, this.engine.nowS);
    this.waits.joined(job, this.engine.nowS, preemptedBy);
  }

  /** Throws an InvariantError naming the deciding policy unless the job is in `phase`. */
  expectPhase(job: JobRuntime, phase: JobRuntime['phase'], action: string): void {
    if (job.phase !== phase) {
      throw new InvariantError(`${this.decidedBy}: cannot ${action} job ${job.spec.id} in phase ${job.phase}`);
    }
  }
}

/** A completed save of `steps`: it becomes the job's last checkpoint (the one before it, the one silent corruption rolls back to). */
function markCheckpoint(job: JobRuntime, steps: number): void {
  job.previousCheckpointedSteps = job.checkpointedSteps;
  job.checkpointedSteps = steps;
  job.trainedSinceCheckpointS = 0;
}

/** Jobs that joined the queue, started, stopped and changed tasks while running, since the scheduler last looked. */
interface JobChanges {
  queued: JobRuntime[];
  started: JobRuntime[];
  stopped: JobRuntime[];
  resized: JobRuntime[];
}

function noChanges(): JobChanges {
  return { queued: [], started: [], stopped: [], resized: [] };
}
