import { InvariantError } from '../errors.js';
import { NO_TASKS, type TaskPlacement } from '../model/allocation.js';
import type { JobShards } from './job-shards.js';
import type { ListLink } from './ordered-list.js';
import type { JobRecord } from '../metrics/job-record.js';
import { priorityOf, requestedGpus, requestOf, truthOf, type JobKind, type PriorityClass, type JobRequest, type JobSpec, type JobTruth, type Role } from '../model/job-spec.js';
import { keyedNormal, lossSamples, SPEED_NOISE, type LossSample, type SpeedSample } from '../model/observations.js';
import type { PauseKind, PauseStep } from '../model/pause.js';
import { EMPTY_SHAPE, type RuntimeShape } from '../model/shape.js';
import type { PreprocessingSpec } from '../model/preprocessing.js';
import { nominalStepsPerS } from '../model/speed.js';
import type { JobPhase, OracleJobView } from '../policies/types.js';

/** Seconds in a day, for counting the days of a job's life. */
const DAY_S = 86_400;

// Shared empty values: most of a million jobs never need their own (each empty array or set costs
// tens of bytes a job).
const NO_PAUSE_STEPS: readonly PauseStep[] = [];
const NO_NODES: readonly string[] = [];
/** Speed changes a PS job keeps (its first ones: the time to reach its speed is early in its life). */
const RATE_CHANGES_KEPT = 256;
/** Nodes a job's list of used nodes holds before it keeps a set of them too. */
const NODES_SCANNED = 16;
const NO_SPEED_SAMPLES: readonly SpeedSample[] = [];
const NO_PAUSES: Readonly<Record<PauseKind, number>> = Object.freeze({ detecting: 0, rescheduling: 0, 'health-check': 0, starting: 0, loading: 0, resizing: 0 });

/** One task's role and the speed factor of the hardware it runs on. */
export interface TaskSpeed {
  readonly role: Role;
  readonly factor: number;
}

/**
 * A job's speed factor from its tasks' hardware (1 for none). A synchronous step (all-reduce, and
 * the fixed-size jobs of traces) waits for its slowest task: the slowest factor. An asynchronous PS
 * job's workers (the chief among them) push their steps independently: the mean of their factors, times the
 * slowest PS's (every worker's step goes through every PS shard).
 */
export function hardwareSpeedFactor(kind: JobKind, tasks: readonly TaskSpeed[]): number {
  if (kind !== 'ps') return tasks.reduce((slowest, task) => Math.min(slowest, task.factor), 1);
  let workerSum = 0;
  let workers = 0;
  let slowestPs = 1;
  for (const task of tasks) {
    if (task.role !== 'ps') {
      workerSum += task.factor;
      workers++;
    } else {
      slowestPs = Math.min(slowestPs, task.factor);
    }
  }

  return (workers > 0 ? workerSum / workers : 1) * slowestPs;
}

/** Numbers every job's runtime state keeps (the accessors of JobRuntime that read `numbers`, in order). */
const NUMBERS_PER_JOB = 32;

/**
 * Numbers only some jobs need (faults, pauses, checkpoints, preemptions, resizes, data workers),
 * with the value each has until a job first changes it: a job gets its block of them at its first
 * change, so that a replay without those costs nothing a job for them.
 */
const COLD_DEFAULTS: readonly number[] = [
  0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, Infinity, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
];

/** Jobs' blocks of cold numbers in one chunk (a chunk never moves: a job keeps a reference to its own). */
const COLD_BLOCKS_PER_CHUNK = 1024;

/**
 * The numbers of many jobs' runtime state in one typed array: 8 bytes a number, and nothing for the
 * garbage collector to trace (as object fields, every fractional number would be an object of its
 * own per job: hundreds of bytes a job over a million jobs). The cold numbers of the jobs that need
 * them live in chunks beside it.
 */
export class JobNumbers {
  /** Every job's numbers, job after job. */
  readonly values: Float64Array;
  private used = 0;
  private coldChunk = new Float64Array(0);
  private coldUsed = 0;
  /** What the jobs of the run share (the jobs of a run are made with one seed and clock). */
  private run: RunShared | null = null;

  constructor(jobs: number) {
    this.values = new Float64Array(Math.max(1, jobs) * NUMBERS_PER_JOB);
  }

  /** The offset of the next job's numbers. */
  take(): number {
    if (this.used + NUMBERS_PER_JOB > this.values.length) throw new InvariantError(`a store of job numbers for ${this.values.length / NUMBERS_PER_JOB} jobs is full`);
    const at = this.used;
    this.used += NUMBERS_PER_JOB;
    return at;
  }

  /** The part the jobs with this seed and clock share, and this store. */
  shared(seed: number, clock: SimClock): RunShared {
    if (this.run === null || this.run.seed !== seed || this.run.clock !== clock) this.run = { seed, clock, store: this };
    return this.run;
  }

  /** A new block of cold numbers, at their first values: the chunk it is in and its offset there. */
  takeCold(): [Float64Array, number] {
    if (this.coldUsed + COLD_DEFAULTS.length > this.coldChunk.length) {
      this.coldChunk = new Float64Array(COLD_BLOCKS_PER_CHUNK * COLD_DEFAULTS.length);
      this.coldUsed = 0;
    }
    const at = this.coldUsed;
    this.coldUsed += COLD_DEFAULTS.length;
    for (let k = 0; k < COLD_DEFAULTS.length; k++) this.coldChunk[at + k] = COLD_DEFAULTS[k]!;
    return [this.coldChunk, at];
  }
}

/** A job's data workers over time and its input queue (see model/preprocessing.ts), kept only for jobs that have them. */
export interface DataWorkerState {
  /** Data workers it holds now. */
  workers: number;
  /** Data-worker-seconds held up to `sinceS`. */
  workerS: number;
  /** When `workers` last changed (and `workerS` was brought up to date). */
  sinceS: number;
  /** Its input queue's fill (0 empty, 1 full) at `levelAtS`, and its change per second from then. */
  level: number;
  levelAtS: number;
  levelPerS: number;
  /** CPU per GPU (thousandths) working on its input as last computed; null while it holds no GPU. */
  cpuMilliPerGpu: number | null;
}

/** What a job reads the current simulated time from (the simulation's engine). */
export interface SimClock {
  /** Current simulated time in seconds. */
  readonly nowS: number;
}

/** Told of every change of a job's phase and every update of its accounting (the invariant checker). */
export interface JobWatcher {
  /** The job's stored accounting is about to be brought up to date or set, or its phase changed. */
  touched(job: JobRuntime): void;
  /** The job left phase `from` for its current phase. */
  phaseChanged(job: JobRuntime, from: JobPhase): void;
}

/**
 * The parts of a job's runtime state that only some jobs use (faults, pauses, checkpoints, data
 * workers, PS jobs, the invariant checker), at their first values: a job makes its own at its first
 * change of one, so that a job without them holds one empty reference for them (each field of a
 * job costs 8 bytes over a million jobs).
 */
class JobExtras {
  /** The chunk of its cold numbers (see COLD_DEFAULTS) and their offset there; null until it first changes one. */
  cold: Float64Array | null = null;
  coldAt = 0;
  watcher: JobWatcher | null = null;
  failureReason: FailureReason | null = null;
  lastShape: RuntimeShape = EMPTY_SHAPE;
  preprocessing: PreprocessingSpec | null = null;
  dataState: DataWorkerState | null = null;
  paused = false;
  pauseSteps: readonly PauseStep[] = NO_PAUSE_STEPS;
  pauseForRecovery = false;
  pausedByKind: Record<PauseKind, number> | null = null;
  hung = false;
  crashed = false;
  saving = false;
  restartPause: readonly PauseStep[] | null = null;
  shrunkByRecovery = false;
  nodesUsedSet: Set<string> | null = null;
  speedSampleList: SpeedSample[] | null = null;
  /** Samples of the list with their measurement noise applied (the first ones: see speedSamples). */
  speedSamplesNoised = 0;
  shards: JobShards | null = null;
  rateChanges: number[] | null = null;
  psStats: { maxPs: number; oomKills: number; psMigrations: number } | null = null;
  psRanked: readonly TaskPlacement[] = NO_TASKS;
}

/** What every job of a run shares (one object for the run instead of three fields a job). */
interface RunShared {
  readonly seed: number;
  readonly clock: SimClock;
  readonly store: JobNumbers;
}

/** Why a job ended without completing. */
export type FailureReason = 'unschedulable' | 'fault';

/**
 * A job's runtime state. Progress is fluid: between changes the job advances at a constant
 * rate, and `advanceTo` brings its accounting up to date before anything about the job changes.
 * What policies read of it (`progressSteps`, `attainedGpuS`) is computed as of the clock's
 * current time when read, the way `advanceTo` would store it; everything else is as of `lastUpdateS`.
 */
export class JobRuntime implements OracleJobView, JobRecord {
  /** Where the job's numbers live (see JobNumbers), and the offset of its own. */
  private readonly numbers: Float64Array;
  private readonly at: number;
  /** What every job of its run shares: the run's seed, clock and store of numbers. */
  private readonly run: RunShared;
  /** What only some jobs use (see JobExtras); null until it first changes any of it. */
  private extras: JobExtras | null = null;
  private currentPhase: JobPhase = 'waiting';
  /** Told of phase changes and updates; null when nobody watches. */
  get watcher(): JobWatcher | null {
    return this.extras === null ? null : this.extras.watcher;
  }

  set watcher(value: JobWatcher | null) {
    if (this.extras !== null || value !== null) this.more().watcher = value;
  }

  get firstStartS(): number | null {
    const value = this.numbers[this.at]!;
    return Number.isNaN(value) ? null : value;
  }

  set firstStartS(value: number | null) {
    this.numbers[this.at] = value ?? Number.NaN;
  }

  /** Place in the queue while queued (smaller starts first in queue order); see JobView. */
  get queuePosition(): number {
    return this.numbers[this.at + 1]!;
  }

  set queuePosition(value: number) {
    this.numbers[this.at + 1] = value;
  }

  get endS(): number | null {
    const value = this.numbers[this.at + 2]!;
    return Number.isNaN(value) ? null : value;
  }

  set endS(value: number | null) {
    this.numbers[this.at + 2] = value ?? Number.NaN;
  }

  get failureReason(): FailureReason | null {
    return this.extras === null ? null : this.extras.failureReason;
  }

  set failureReason(value: FailureReason | null) {
    if (this.extras !== null || value !== null) this.more().failureReason = value;
  }
  /** Steps done, up to `lastUpdateS` (what `advanceTo` last stored). */
  private get stepsAtUpdate(): number {
    return this.numbers[this.at + 3]!;
  }

  private set stepsAtUpdate(value: number) {
    this.numbers[this.at + 3] = value;
  }

  get workers(): number {
    return this.numbers[this.at + 4]!;
  }

  set workers(value: number) {
    this.numbers[this.at + 4] = value;
  }

  get ps(): number {
    return this.numbers[this.at + 5]!;
  }

  set ps(value: number) {
    this.numbers[this.at + 5] = value;
  }

  /** Role by role, the replicas it runs with now and what each holds (empty when not running). */
  shape: RuntimeShape = EMPTY_SHAPE;
  /**
   * The shape it had when it last stopped running. Kept for PS jobs only (the auto-scaler's history
   * records their final shapes); other jobs keep EMPTY_SHAPE, so an ended job holds no shape.
   */
  get lastShape(): RuntimeShape {
    return this.extras === null ? EMPTY_SHAPE : this.extras.lastShape;
  }

  set lastShape(value: RuntimeShape) {
    if (this.extras !== null || value !== EMPTY_SHAPE) this.more().lastShape = value;
  }
  /** GPUs held now (shared GPUs count fractionally). */
  get gpus(): number {
    return this.numbers[this.at + 6]!;
  }

  set gpus(value: number) {
    this.numbers[this.at + 6] = value;
  }

  /** CPU held now, in thousandths of a core. */
  get cpuMilli(): number {
    return this.numbers[this.at + 7]!;
  }

  set cpuMilli(value: number) {
    this.numbers[this.at + 7] = value;
  }

  /** GPUs held when the job last ran (kept after it ends, for reports and weights). */
  get gpusWhenRunning(): number {
    return this.numbers[this.at + 8]!;
  }

  set gpusWhenRunning(value: number) {
    this.numbers[this.at + 8] = value;
  }

  /** CPU held when the job last ran, in thousandths of a core. */
  get cpuMilliWhenRunning(): number {
    return this.numbers[this.at + 9]!;
  }

  set cpuMilliWhenRunning(value: number) {
    this.numbers[this.at + 9] = value;
  }

  /** Steps per second of the current allocation, placement included, before slowdowns. */
  get baseRateStepsPerS(): number {
    return this.numbers[this.at + 10]!;
  }

  set baseRateStepsPerS(value: number) {
    this.numbers[this.at + 10] = value;
  }

  /** Multiplier on speed from slowdowns (1 = full speed). */
  get speedFactor(): number {
    return this.numbers[this.at + 11]!;
  }

  set speedFactor(value: number) {
    this.numbers[this.at + 11] = value;
  }

  /**
   * Multiplier on speed from its input preprocessing (1: its input keeps up, or it has no
   * preprocessing spec): see model/preprocessing.ts.
   */
  get preprocessingFactor(): number {
    return this.coldNumber(24);
  }

  set preprocessingFactor(value: number) {
    this.setColdNumber(24, value);
  }

  /** Seconds it waited in the queue while GPUs were free for it but CPU was not (see sim/cpu-starvation.ts). */
  get cpuStarvedWaitS(): number {
    return this.numbers[this.at + 27]!;
  }

  set cpuStarvedWaitS(value: number) {
    this.numbers[this.at + 27] = value;
  }

  /** The CPU-starvation meter's clock of its class when it joined the queue (see sim/cpu-starvation.ts). */
  get cpuStarvedMarkS(): number {
    return this.numbers[this.at + 28]!;
  }

  set cpuStarvedMarkS(value: number) {
    this.numbers[this.at + 28] = value;
  }

  /** Its input preprocessing (ground truth): its spec's, or one drawn for it (a trace job's); null: its input always keeps up. */
  get preprocessing(): PreprocessingSpec | null {
    return this.extras === null ? null : this.extras.preprocessing;
  }

  set preprocessing(value: PreprocessingSpec | null) {
    if (this.extras !== null || value !== null) this.more().preprocessing = value;
  }

  /** Its data workers and input queue (null until it first has a data worker or a queue level is read). */
  get dataState(): DataWorkerState | null {
    return this.extras === null ? null : this.extras.dataState;
  }

  set dataState(value: DataWorkerState | null) {
    if (this.extras !== null || value !== null) this.more().dataState = value;
  }

  /** Data-worker-seconds it held, as its data state last recorded them (0 without data workers). */
  get dataWorkerS(): number {
    return this.dataState?.workerS ?? 0;
  }

  /** True while a resize or restart pauses training (resources held, no progress). */
  get paused(): boolean {
    return this.extras === null ? false : this.extras.paused;
  }

  set paused(value: boolean) {
    if (this.extras !== null || value !== false) this.more().paused = value;
  }
  /** The steps of the current pause, from `pauseStartS`. */
  get pauseSteps(): readonly PauseStep[] {
    return this.extras === null ? NO_PAUSE_STEPS : this.extras.pauseSteps;
  }

  set pauseSteps(value: readonly PauseStep[]) {
    if (this.extras !== null || value !== NO_PAUSE_STEPS) this.more().pauseSteps = value;
  }

  get pauseStartS(): number {
    return this.coldNumber(0);
  }

  set pauseStartS(value: number) {
    this.setColdNumber(0, value);
  }

  /** Pauses so far; a resume event names the pause it ends. */
  get pauses(): number {
    return this.coldNumber(1);
  }

  set pauses(value: number) {
    this.setColdNumber(1, value);
  }

  /** True while the current pause is recovery from a fault (see isRecoveryPause). */
  get pauseForRecovery(): boolean {
    return this.extras === null ? false : this.extras.pauseForRecovery;
  }

  set pauseForRecovery(value: boolean) {
    if (this.extras !== null || value !== false) this.more().pauseForRecovery = value;
  }
  /** Seconds paused, by what the pause waited for (a hang counts as detecting). */
  private get pausedByKind(): Record<PauseKind, number> | null {
    return this.extras === null ? null : this.extras.pausedByKind;
  }

  private set pausedByKind(value: Record<PauseKind, number> | null) {
    if (this.extras !== null || value !== null) this.more().pausedByKind = value;
  }
  /** Seconds running (paused or not) with fewer workers than requested after recovery shrank the job. */
  get scaledDownS(): number {
    return this.coldNumber(2);
  }

  set scaledDownS(value: number) {
    this.setColdNumber(2, value);
  }

  /** True while a hang stalls training (resources held, no progress) until its watchdog fires. */
  get hung(): boolean {
    return this.extras === null ? false : this.extras.hung;
  }

  set hung(value: boolean) {
    if (this.extras !== null || value !== false) this.more().hung = value;
  }
  /** True from a crash until its recovery at the end of the same instant (training stopped). */
  get crashed(): boolean {
    return this.extras === null ? false : this.extras.crashed;
  }

  set crashed(value: boolean) {
    if (this.extras !== null || value !== false) this.more().crashed = value;
  }
  /** Hangs so far; a watchdog event names the hang it belongs to. */
  get hangs(): number {
    return this.coldNumber(3);
  }

  set hangs(value: number) {
    this.setColdNumber(3, value);
  }

  /** Times the training processes (re)started; an OOM event names the start it belongs to. */
  get trainingStarts(): number {
    return this.numbers[this.at + 12]!;
  }

  set trainingStarts(value: number) {
    this.numbers[this.at + 12] = value;
  }

  /** Days of the job's life (counted from its first start) on which a fault hit it, up to `lastFaultDay`. */
  get faultDays(): number {
    return this.coldNumber(4);
  }

  set faultDays(value: number) {
    this.setColdNumber(4, value);
  }

  /** The last such day (−1: none yet); faults come in time order, so each day is counted once. */
  get lastFaultDay(): number {
    return this.coldNumber(5);
  }

  set lastFaultDay(value: number) {
    this.setColdNumber(5, value);
  }

  /** Speed factor of the hardware the job holds, from its unrepaired slowdown faults (thermal, PCIe width); 1 = none. */
  get hardwareFactor(): number {
    return this.numbers[this.at + 13]!;
  }

  set hardwareFactor(value: number) {
    this.numbers[this.at + 13] = value;
  }

  /** GPU-seconds of training whose result was lost to faults (rolled back or failed). */
  get lostGpuS(): number {
    return this.coldNumber(6);
  }

  set lostGpuS(value: number) {
    this.setColdNumber(6, value);
  }

  /**
   * GPU-seconds faults kept the job from training: its requested GPUs while it waits for a
   * resubmission, queues after a crash, sits in a recovery pause or hangs; and the GPUs it misses
   * while recovery keeps it below its requested workers.
   */
  get downtimeGpuS(): number {
    return this.coldNumber(7);
  }

  set downtimeGpuS(value: number) {
    this.setColdNumber(7, value);
  }

  /** Steps done and then lost to faults (rolled back, or all of them when the job failed). */
  get lostSteps(): number {
    return this.coldNumber(8);
  }

  set lostSteps(value: number) {
    this.setColdNumber(8, value);
  }

  /** Steps done and then lost when a preemption reclaimed the job's capacity without a save (a spot job). */
  get reclaimLostSteps(): number {
    return this.coldNumber(9);
  }

  set reclaimLostSteps(value: number) {
    this.setColdNumber(9, value);
  }

  /** GPU-seconds of training those reclaims lost. */
  get reclaimLostGpuS(): number {
    return this.coldNumber(10);
  }

  set reclaimLostGpuS(value: number) {
    this.setColdNumber(10, value);
  }

  /** Training seconds between checkpoints (Infinity: the job never checkpoints). */
  get checkpointIntervalS(): number {
    return this.coldNumber(11);
  }

  set checkpointIntervalS(value: number) {
    this.setColdNumber(11, value);
  }

  /** Training seconds since the last completed checkpoint (or start). */
  get trainedSinceCheckpointS(): number {
    return this.numbers[this.at + 14]!;
  }

  set trainedSinceCheckpointS(value: number) {
    this.numbers[this.at + 14] = value;
  }

  /** True while a checkpoint save blocks training. */
  get saving(): boolean {
    return this.extras === null ? false : this.extras.saving;
  }

  set saving(value: boolean) {
    if (this.extras !== null || value !== false) this.more().saving = value;
  }
  /** When the current save completes. */
  get savingUntilS(): number {
    return this.coldNumber(12);
  }

  set savingUntilS(value: number) {
    this.setColdNumber(12, value);
  }

  /** Progress the current save captures. */
  get savingSteps(): number {
    return this.coldNumber(13);
  }

  set savingSteps(value: number) {
    this.setColdNumber(13, value);
  }

  /** Progress at the last completed checkpoint, and at the one before (silent corruption rolls back to it). */
  get checkpointedSteps(): number {
    return this.coldNumber(14);
  }

  set checkpointedSteps(value: number) {
    this.setColdNumber(14, value);
  }

  get previousCheckpointedSteps(): number {
    return this.coldNumber(15);
  }

  set previousCheckpointedSteps(value: number) {
    this.setColdNumber(15, value);
  }

  /** Seconds blocked by checkpoint saves. */
  get checkpointingS(): number {
    return this.coldNumber(16);
  }

  set checkpointingS(value: number) {
    this.setColdNumber(16, value);
  }

  /** Seconds between a crash and the resubmission that noticed it. */
  get waitingForResubmitS(): number {
    return this.coldNumber(17);
  }

  set waitingForResubmitS(value: number) {
    this.setColdNumber(17, value);
  }

  /** Pause the next start takes (pod scheduling, start-up, checkpoint load after a crash); null = the resize pause. */
  get restartPause(): readonly PauseStep[] | null {
    return this.extras === null ? null : this.extras.restartPause;
  }

  set restartPause(value: readonly PauseStep[] | null) {
    if (this.extras !== null || value !== null) this.more().restartPause = value;
  }
  /** True while recovery keeps the job below its requested workers (shrunk, not yet grown back). */
  get shrunkByRecovery(): boolean {
    return this.extras === null ? false : this.extras.shrunkByRecovery;
  }

  set shrunkByRecovery(value: boolean) {
    if (this.extras !== null || value !== false) this.more().shrunkByRecovery = value;
  }
  /** Bumped on every change of allocation or rate; finish and checkpoint events for an older epoch are stale. */
  get epoch(): number {
    return this.numbers[this.at + 15]!;
  }

  set epoch(value: number) {
    this.numbers[this.at + 15] = value;
  }

  get restarts(): number {
    return this.coldNumber(18);
  }

  set restarts(value: number) {
    this.setColdNumber(18, value);
  }

  get preemptions(): number {
    return this.coldNumber(19);
  }

  set preemptions(value: number) {
    this.setColdNumber(19, value);
  }

  get resizes(): number {
    return this.coldNumber(20);
  }

  set resizes(value: number) {
    this.setColdNumber(20, value);
  }

  /** Reshapes of a role (replicas or demand changed by a reshape-role decision). */
  get reshapes(): number {
    return this.coldNumber(21);
  }

  set reshapes(value: number) {
    this.setColdNumber(21, value);
  }

  /** Seconds the training processes ran (not paused). */
  get runningS(): number {
    return this.numbers[this.at + 16]!;
  }

  set runningS(value: number) {
    this.numbers[this.at + 16] = value;
  }

  /** Seconds of `runningS` lost to hardware slowdowns: (1 − the job's slowdown factor) × time trained under it. */
  get slowedS(): number {
    return this.coldNumber(22);
  }

  set slowedS(value: number) {
    this.setColdNumber(22, value);
  }

  /** Names of the nodes the job has held tasks on, in the order it first used them: the name alone while it used one (most jobs). */
  private nodesUsedList: string | string[] | null = null;
  /** The same names as a set, once the list is long enough for a scan to cost more than a lookup. */
  private get nodesUsedSet(): Set<string> | null {
    return this.extras === null ? null : this.extras.nodesUsedSet;
  }

  private set nodesUsedSet(value: Set<string> | null) {
    if (this.extras !== null || value !== null) this.more().nodesUsedSet = value;
  }
  /** Seconds spent paused by resizes and restarts. */
  get pausedS(): number {
    return this.coldNumber(23);
  }

  set pausedS(value: number) {
    this.setColdNumber(23, value);
  }

  /** Seconds spent waiting in the queue (all waits, including after preemptions). */
  get queuedS(): number {
    return this.numbers[this.at + 17]!;
  }

  set queuedS(value: number) {
    this.numbers[this.at + 17] = value;
  }

  /** GPUs held times seconds, up to `lastUpdateS` (what `advanceTo` last stored). */
  private get gpuSAtUpdate(): number {
    return this.numbers[this.at + 18]!;
  }

  private set gpuSAtUpdate(value: number) {
    this.numbers[this.at + 18] = value;
  }

  /** CPU held times seconds, in thousandths of a core times seconds. */
  get attainedCpuMilliS(): number {
    return this.numbers[this.at + 19]!;
  }

  set attainedCpuMilliS(value: number) {
    this.numbers[this.at + 19] = value;
  }

  /** GPUs this job counts as busy in the cluster's utilisation (what the simulation last added). */
  get busyGpusCounted(): number {
    return this.numbers[this.at + 20]!;
  }

  set busyGpusCounted(value: number) {
    this.numbers[this.at + 20] = value;
  }

  /** When the current shape started running, for speed samples. */
  get shapeSinceS(): number {
    return this.numbers[this.at + 21]!;
  }

  set shapeSinceS(value: number) {
    this.numbers[this.at + 21] = value;
  }

  private get speedSampleList(): SpeedSample[] | null {
    return this.extras === null ? null : this.extras.speedSampleList;
  }

  private set speedSampleList(value: SpeedSample[] | null) {
    if (this.extras !== null || value !== null) this.more().speedSampleList = value;
  }
  /** Simulated time progress was last brought up to. */
  get lastUpdateS(): number {
    return this.numbers[this.at + 22]!;
  }

  set lastUpdateS(value: number) {
    this.numbers[this.at + 22] = value;
  }

  /** Steps per second at the requested shape (the yardstick of effective training time). */
  get nominalRateStepsPerS(): number {
    return this.numbers[this.at + 23]!;
  }

  /** Its last positive training speed, steps/s (0 before it trained). */
  get lastRateStepsPerS(): number {
    return this.numbers[this.at + 25]!;
  }

  set lastRateStepsPerS(value: number) {
    this.numbers[this.at + 25] = value;
  }

  /** The most training workers (the chief included) it ran with. */
  get maxWorkers(): number {
    return this.numbers[this.at + 26]!;
  }

  set maxWorkers(value: number) {
    this.numbers[this.at + 26] = value;
  }

  /** Its dynamic-sharding ledger, for a job with a data spec (made when it first runs). */
  get shards(): JobShards | null {
    return this.extras === null ? null : this.extras.shards;
  }

  set shards(value: JobShards | null) {
    if (this.extras !== null || value !== null) this.more().shards = value;
  }

  /** Its place in the run's submission order (set by the job control; -1 until then). */
  get arrivalIndex(): number {
    return this.numbers[this.at + 29]!;
  }

  set arrivalIndex(value: number) {
    this.numbers[this.at + 29] = value;
  }

  /** When it last joined the running list, as a count of starts (set by the job control; orders jobs as the list does). */
  get startOrder(): number {
    return this.numbers[this.at + 30]!;
  }

  set startOrder(value: number) {
    this.numbers[this.at + 30] = value;
  }

  /** The number of the CPU-starvation meter's class it is in while queued, -1 outside one (see sim/cpu-starvation.ts). */
  get cpuStarvedClass(): number {
    return this.numbers[this.at + 31]!;
  }

  set cpuStarvedClass(value: number) {
    this.numbers[this.at + 31] = value;
  }
  /** Its links in the job control's queue and running list (null while not in them). */
  queueLink: ListLink<JobRuntime> | null = null;
  runningLink: ListLink<JobRuntime> | null = null;

  /** Shards its data lost for good after too many retries. */
  get droppedShards(): number {
    return this.shards?.droppedShards ?? 0;
  }

  /**
   * A PS job's training speeds as they changed: time (s) and steps/s, pair after pair, the first
   * RATE_CHANGES_KEPT changes (null for other jobs, and before it trained).
   */
  private get rateChanges(): number[] | null {
    return this.extras === null ? null : this.extras.rateChanges;
  }

  private set rateChanges(value: number[] | null) {
    if (this.extras !== null || value !== null) this.more().rateChanges = value;
  }

  /** Notes the training speed it runs at from now (PS jobs only: what `secondsTo90PctSpeed` reads). */
  noteRate(atS: number, stepsPerS: number): void {
    if (this.specNow.kind !== 'ps' || !(stepsPerS > 0)) return;
    const changes = (this.rateChanges ??= []);
    if (changes.length >= 2 * RATE_CHANGES_KEPT || changes[changes.length - 1] === stepsPerS) return;
    changes.push(atS, stepsPerS);
  }

  /** A PS job's first training speed, steps/s (null: not a PS job, or it never trained). */
  get firstStepsPerS(): number | null {
    return this.rateChanges === null ? null : this.rateChanges[1]!;
  }

  /** Seconds from its first start until it first trained at 90% of its last speed (null: not a PS job, never trained, or past the changes kept). */
  get secondsTo90PctSpeed(): number | null {
    const changes = this.rateChanges;
    const firstS = this.firstStartS;
    if (changes === null || firstS === null || !(this.lastRateStepsPerS > 0)) return null;
    for (let i = 0; i < changes.length; i += 2) if (changes[i + 1]! >= 0.9 * this.lastRateStepsPerS) return changes[i]! - firstS;
    return null;
  }

  /** Its pods the OOM killer ended. */
  get oomKills(): number {
    return this.psStats?.oomKills ?? 0;
  }

  /** What happened to its parameter servers and pods (null until something did: see `psCounters`). */
  get psStats(): { maxPs: number; oomKills: number; psMigrations: number } | null {
    return this.extras === null ? null : this.extras.psStats;
  }

  set psStats(value: { maxPs: number; oomKills: number; psMigrations: number } | null) {
    if (this.extras !== null || value !== null) this.more().psStats = value;
  }

  /** Its PS and OOM counters, made when first counted. */
  psCounters(): { maxPs: number; oomKills: number; psMigrations: number } {
    return (this.psStats ??= { maxPs: 0, oomKills: 0, psMigrations: 0 });
  }

  /** The job's own extras, made at its first change of one. */
  private more(): JobExtras {
    return (this.extras ??= new JobExtras());
  }

  /** Cold number `k` (see COLD_DEFAULTS): its first value until the job changes it. */
  private coldNumber(k: number): number {
    const extras = this.extras;
    return extras === null || extras.cold === null ? COLD_DEFAULTS[k]! : extras.cold[extras.coldAt + k]!;
  }

  /** Sets cold number `k`, taking the job's block of them at its first change. */
  private setColdNumber(k: number, value: number): void {
    if ((this.extras === null || this.extras.cold === null) && Object.is(value, COLD_DEFAULTS[k])) return;
    const extras = this.more();
    if (extras.cold === null) [extras.cold, extras.coldAt] = this.run.store.takeCold();
    extras.cold[extras.coldAt + k] = value;
  }

  /** GPUs the job asked for (shared GPUs count fractionally). */
  get requestedGpus(): number {
    return this.numbers[this.at + 24]!;
  }

  /** What `request` returns while the job lives (made when first read, let go when the job ends). */
  private requestMade: JobRequest | null = null;
  /** What `truth` returns while the job lives (made when first read, let go when the job ends). */
  private truthMade: JobTruth | null = null;

  /** The job as submitted (its roles as an auto-scaler's create plan set them, when one did). */
  get spec(): JobSpec {
    return this.specNow;
  }

  /**
   * The job's PS tasks in rank order (jobs with a PS truth only; empty otherwise): a PS that
   * replaces one takes over its rank, as a migrated PS keeps its rank index.
   */
  get psRanked(): readonly TaskPlacement[] {
    return this.extras === null ? NO_TASKS : this.extras.psRanked;
  }

  set psRanked(value: readonly TaskPlacement[]) {
    if (this.extras !== null || value !== NO_TASKS) this.more().psRanked = value;
  }

  constructor(
    private specNow: JobSpec,
    seed: number,
    clock: SimClock,
    store: JobNumbers = new JobNumbers(1),
  ) {
    this.run = store.shared(seed, clock);
    this.numbers = store.values;
    this.at = store.take();
    this.preprocessing = specNow.preprocessing ?? null;
    this.numbers[this.at] = Number.NaN;
    this.numbers[this.at + 2] = Number.NaN;
    this.numbers[this.at + 11] = 1;
    this.numbers[this.at + 13] = 1;
    this.numbers[this.at + 23] = nominalStepsPerS(specNow);
    this.numbers[this.at + 24] = requestedGpus(specNow);
    this.numbers[this.at + 29] = -1;
    this.numbers[this.at + 30] = -1;
    this.numbers[this.at + 31] = -1;
    if (!(this.nominalRateStepsPerS > 0)) {
      throw new InvariantError(`job ${specNow.id}: its requested shape trains at ${this.nominalRateStepsPerS} steps/s`);
    }
  }

  /**
   * Replaces the job's roles before it is first queued (an auto-scaler's create plan sizes it):
   * its request, nominal speed and requested GPUs follow.
   */
  replaceRoles(roles: JobSpec['roles']): void {
    if (this.phase !== 'waiting' || this.firstStartS !== null) throw new InvariantError(`job ${this.specNow.id}: its roles can change only before it is queued`);
    this.specNow = { ...this.specNow, roles };
    this.requestMade = null;
    this.truthMade = null;
    this.numbers[this.at + 23] = nominalStepsPerS(this.specNow);
    this.numbers[this.at + 24] = requestedGpus(this.specNow);
    if (!(this.nominalRateStepsPerS > 0)) {
      throw new InvariantError(`job ${this.specNow.id}: its planned shape trains at ${this.nominalRateStepsPerS} steps/s`);
    }
  }

  /** Names of the nodes the job has held tasks on, in the order it first used them. */
  get nodesUsed(): readonly string[] {
    const list = this.nodesUsedList;
    return list === null ? NO_NODES : typeof list === 'string' ? [list] : list;
  }

  /** Notes that the job holds a task on node `name`. */
  noteNodeUsed(name: string): void {
    let list = this.nodesUsedList;
    if (list === null || list === name) {
      this.nodesUsedList = name;
      return;
    }
    if (typeof list === 'string') this.nodesUsedList = list = [list];
    if (this.nodesUsedSet !== null) {
      if (this.nodesUsedSet.has(name)) return;
      this.nodesUsedSet.add(name);
    } else {
      if (list.includes(name)) return;
      if (list.length >= NODES_SCANNED) this.nodesUsedSet = new Set([...list, name]);
    }
    list.push(name);
  }

  /**
   * The speeds the job measured, oldest first, with their measurement noise. The noise of a sample
   * is fixed by the run's seed, the job and the sample's index, so it is applied when a sample is
   * first read rather than when it is taken: most runs take a sample at every preemption and read
   * none (only `optimus` reads them), and drawing a keyed noise costs more than the rest of a preemption's bookkeeping.
   */
  get speedSamples(): readonly SpeedSample[] {
    const list = this.speedSampleList;
    if (list === null) return NO_SPEED_SAMPLES;
    const extras = this.more();
    for (let i = extras.speedSamplesNoised; i < list.length; i++) {
      const sample = list[i]!;
      const noise = 1 + SPEED_NOISE * keyedNormal(`dlsim:${this.run.seed}:speed:${this.spec.id}:${i}`);
      list[i] = { ps: sample.ps, workers: sample.workers, stepsPerS: sample.stepsPerS * noise };
    }
    extras.speedSamplesNoised = list.length;
    return list;
  }

  /** Adds a speed sample as the job ran (its measurement noise is applied when read: see speedSamples). */
  addSpeedSample(sample: SpeedSample): void {
    (this.speedSampleList ??= []).push(sample);
  }

  /** What the job's submitter declared (what policies read; made afresh for each read once the job ended, so that it is not kept). */
  get request(): JobRequest {
    if (this.hasEnded()) return this.requestMade ?? requestOf(this.spec);
    return (this.requestMade ??= requestOf(this.spec));
  }

  /** The job's ground truth (what oracle baselines read; made afresh for each read once the job ended). */
  get truth(): JobTruth {
    if (this.hasEnded()) return this.truthMade ?? truthOf(this.spec);
    return (this.truthMade ??= truthOf(this.spec));
  }

  /** True once the job completed or failed for good. */
  private hasEnded(): boolean {
    return this.currentPhase === 'completed' || this.currentPhase === 'failed';
  }

  /** The job's priority class (its spec's, `high` by default). */
  get priorityClass(): PriorityClass {
    return priorityOf(this.spec);
  }

  /** Where the job is in its life. */
  get phase(): JobPhase {
    return this.currentPhase;
  }

  set phase(next: JobPhase) {
    const from = this.currentPhase;
    this.currentPhase = next;
    // An ended job's request and truth are read again seldom if ever: a million of each need not stay made.
    if (next === 'completed' || next === 'failed') this.requestMade = this.truthMade = null;
    this.watcher?.phaseChanged(this, from);
  }

  /** True while it runs and nothing stops its training (no pause, hang, crash or blocking save). */
  get trainingActive(): boolean {
    return this.phase === 'running' && !this.paused && !this.hung && !this.crashed && !this.saving;
  }

  /** Current speed in steps per second (0 unless running, not paused, not hung, not crashed and not saving). */
  get rateStepsPerS(): number {
    if (!this.trainingActive) return 0;
    return this.baseRateStepsPerS * this.speedFactor * this.hardwareFactor * this.preprocessingFactor;
  }

  /** Steps done up to `lastUpdateS`: the stored value the simulation's own accounting reads and writes. */
  get storedProgressSteps(): number {
    return this.stepsAtUpdate;
  }

  /** Steps done as of the clock's current time (what policies read). */
  get progressSteps(): number {
    const dtS = this.run.clock.nowS - this.lastUpdateS;
    return this.phase === 'running' && dtS > 0 ? this.stepsAfter(dtS) : this.stepsAtUpdate;
  }

  /** Sets the steps done as of `lastUpdateS` (bring the job up to date first); the watcher hears of it. */
  set progressSteps(steps: number) {
    this.watcher?.touched(this);
    this.stepsAtUpdate = steps;
  }

  /** GPU-seconds held up to `lastUpdateS`: the stored value. */
  get storedAttainedGpuS(): number {
    return this.gpuSAtUpdate;
  }

  /** GPUs held times seconds, as of the clock's current time (what policies read; at the end of a run, the stored value). */
  get attainedGpuS(): number {
    const dtS = this.run.clock.nowS - this.lastUpdateS;
    return this.phase === 'running' && dtS > 0 ? this.gpuSAfter(dtS) : this.gpuSAtUpdate;
  }

  /** Stored steps plus `dtS` more at the current rate: what `advanceTo` stores and `progressSteps` reads, the same sum. */
  private stepsAfter(dtS: number): number {
    return this.stepsAtUpdate + this.rateStepsPerS * dtS;
  }

  /** Stored GPU-seconds plus `dtS` more on the GPUs held now (the same sum for `advanceTo` and `attainedGpuS`). */
  private gpuSAfter(dtS: number): number {
    return this.gpuSAtUpdate + this.gpus * dtS;
  }

  /** Brings progress and time accounting up to `nowS`. */
  advanceTo(nowS: number): void {
    this.watcher?.touched(this);
    const dtS = nowS - this.lastUpdateS;
    if (dtS < 0) throw new InvariantError(`job ${this.spec.id}: time went back from ${this.lastUpdateS}s to ${nowS}s`);
    if (this.phase === 'running') {
      this.gpuSAtUpdate = this.gpuSAfter(dtS);
      this.attainedCpuMilliS += this.cpuMilli * dtS;
      if (this.shrunkByRecovery) this.scaledDownS += dtS;
      if ((this.paused && this.pauseForRecovery) || this.hung) this.downtimeGpuS += this.requestedGpus * dtS;
      else if (this.shrunkByRecovery) this.downtimeGpuS += Math.max(0, this.requestedGpus - this.gpus) * dtS;
      if (this.paused) {
        this.pausedS += dtS;
        this.splitPause(this.lastUpdateS, nowS);
      } else if (this.hung) {
        // A hang is a failure nobody has noticed yet.
        this.pausedS += dtS;
        this.addPausedS('detecting', dtS);
      } else if (this.saving) {
        this.checkpointingS += dtS;
      } else {
        this.stepsAtUpdate = this.stepsAfter(dtS);
        this.runningS += dtS;
        this.slowedS += (1 - this.hardwareFactor) * dtS;
        this.trainedSinceCheckpointS += dtS;
      }
    } else if (this.phase === 'queued') {
      this.queuedS += dtS;
      // Queued again after a crash (it restarts with a recovery pause), not after a preemption.
      if (this.restartPause !== null) this.downtimeGpuS += this.requestedGpus * dtS;
    } else if (this.phase === 'waiting' && this.firstStartS !== null) {
      this.waitingForResubmitS += dtS;
      this.downtimeGpuS += this.requestedGpus * dtS;
    }
    this.lastUpdateS = nowS;
  }

  /** Seconds paused, by the kind of pause step (all zero for a job that never paused). */
  get pausedByKindS(): Readonly<Record<PauseKind, number>> {
    return this.pausedByKind ?? NO_PAUSES;
  }

  private addPausedS(kind: PauseKind, seconds: number): void {
    (this.pausedByKind ??= { ...NO_PAUSES })[kind] += seconds;
  }

  /** Attributes paused time in [fromS, toS] to the steps of the current pause. */
  private splitPause(fromS: number, toS: number): void {
    let stepStartS = this.pauseStartS;
    let last: PauseKind = 'resizing';
    for (const step of this.pauseSteps) {
      const stepEndS = stepStartS + step.seconds;
      const overlapS = Math.min(toS, stepEndS) - Math.max(fromS, stepStartS);
      if (overlapS > 0) this.addPausedS(step.kind, overlapS);
      stepStartS = stepEndS;
      last = step.kind;
    }
    // Float rounding at the pause's end lands in its last step.
    const beyondS = toS - Math.max(fromS, stepStartS);
    if (beyondS > 0) this.addPausedS(last, beyondS);
  }

  /** Seconds a failure went unnoticed or undiagnosed: until resubmission, detection pauses, hangs. */
  get detectingS(): number {
    return this.waitingForResubmitS + this.pausedByKindS.detecting;
  }

  /** A fault hit the job at `nowS` (it crashed, hung or slowed down): its day of life counts as a day with a fault. */
  meetFault(nowS: number): void {
    if (this.firstStartS === null) return;
    const day = Math.floor((nowS - this.firstStartS) / DAY_S);
    if (day !== this.lastFaultDay) {
      this.faultDays++;
      this.lastFaultDay = day;
    }
  }

  /**
   * Whole days from the first start to the end (or `nowS`), and how many of them a fault hit; a
   * last, partial day is left out, whatever happened on it.
   */
  daysOfLife(nowS: number): { readonly days: number; readonly withFault: number } {
    const days = Math.floor(this.wallSinceStartS(nowS) / DAY_S);
    return { days, withFault: this.faultDays - (this.lastFaultDay >= days ? 1 : 0) };
  }

  /** When the job will finish at its current rate, or Infinity when it is not progressing. */
  finishTimeS(): number {
    const rate = this.rateStepsPerS;
    if (rate <= 0) return Infinity;
    const remaining = Math.max(0, this.spec.totalSteps - this.stepsAtUpdate);
    return this.lastUpdateS + remaining / rate;
  }

  /** Seconds from submission to first start (to now, or to the end, when it never started). */
  queueS(nowS: number): number {
    return (this.firstStartS ?? this.endS ?? nowS) - this.spec.submitS;
  }

  /** Seconds from first start to the end (or to `nowS` while unfinished); 0 when never started. */
  wallSinceStartS(nowS: number): number {
    return this.firstStartS === null ? 0 : (this.endS ?? nowS) - this.firstStartS;
  }

  /**
   * Effective training seconds: steps done and kept, times the nominal step time; at most the
   * seconds trained (a job running faster than at its requested size, on more workers, gains no
   * more effective time than the time it trained).
   */
  effectiveS(): number {
    return Math.min(this.stepsAtUpdate / this.nominalRateStepsPerS, this.runningS);
  }

  /** Seconds it would run alone: from its first start at its requested size, no faults, input keeping up (start-up plus its steps at the nominal step time). */
  runAloneS(): number {
    return (this.spec.startupS ?? 0) + this.spec.totalSteps / this.nominalRateStepsPerS;
  }

  /** Seconds the training processes ran: training and checkpoint saves. */
  processRuntimeS(): number {
    return this.runningS + this.checkpointingS;
  }

  /**
   * Rolls progress back to the last completed checkpoint (`extra` further ones after silent
   * corruption) and accounts what was lost; returns the steps lost.
   */
  rollBack(extra: number): number {
    const toSteps = extra > 0 ? this.previousCheckpointedSteps : this.checkpointedSteps;
    const lost = Math.max(0, this.stepsAtUpdate - toSteps);
    if (lost > 0 && this.baseRateStepsPerS > 0) this.lostGpuS += (lost / this.baseRateStepsPerS) * this.gpus;
    this.lostSteps += lost;
    this.stepsAtUpdate = toSteps;
    if (extra > 0) this.checkpointedSteps = toSteps;
    this.saving = false;
    this.trainedSinceCheckpointS = 0;
    return lost;
  }

  /** A preemption without a save: progress goes back to the last completed checkpoint; the work lost is counted apart from faults'. */
  loseSinceCheckpoint(): void {
    const lost = Math.max(0, this.stepsAtUpdate - this.checkpointedSteps);
    if (lost > 0 && this.baseRateStepsPerS > 0) this.reclaimLostGpuS += (lost / this.baseRateStepsPerS) * this.gpus;
    this.reclaimLostSteps += lost;
    this.progressSteps = this.checkpointedSteps;
    this.saving = false;
    this.trainedSinceCheckpointS = 0;
  }

  /** Loss values reported so far, as of the clock's current time (empty without a loss curve). */
  lossSamples(): LossSample[] {
    if (!this.spec.loss) return [];
    return lossSamples(this.run.seed, this.spec.id, this.spec.loss, this.spec.totalSteps, this.progressSteps);
  }
}
