import { quantileSorted } from 'd3-array';
import type { JobRecord } from './job-record.js';
import { userFairness, type FairnessSummary, type PerUserSummary } from './user-fairness.js';

/** Mean and tail quantiles of a set of durations, in seconds. */
export interface Quantiles {
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

/** Completed jobs' times of one priority class. */
export interface ClassSummary {
  /** Jobs of the class submitted, and how many completed. */
  readonly jobs: number;
  readonly completed: number;
  readonly jctS: Quantiles;
  /** All time the class's completed jobs spent queued. */
  readonly waitS: Quantiles;
}

/** The spot class: its times, how often its jobs were preempted and the work reclaims lost. */
export interface SpotClassSummary extends ClassSummary {
  /** Preemptions of spot jobs (for high-priority jobs, or by the scheduling policy). */
  readonly preemptions: number;
  /** GPU-hours of spot jobs' training lost to preemptions without a save (the work since their last checkpoint). */
  readonly preemptionLostGpuHours: number;
}

/** CPU-starved waiting of completed jobs. */
export interface CpuStarvedSummary {
  /** Seconds per completed job. */
  readonly mean: number;
  /** Seconds over all completed jobs. */
  readonly total: number;
  /** `total` over all the waiting (queued seconds) of completed jobs; 0 when none waited. */
  readonly share: number;
}

/** Data workers of completed jobs. */
export interface DataWorkersSummary {
  /** Mean over completed jobs of data-worker-seconds per second from first start to end (0 for a job without data workers). */
  readonly meanPerJob: number;
}

/** Per-class results of a workload with spot jobs. */
export interface PriorityClassesSummary {
  readonly high: ClassSummary;
  readonly spot: SpotClassSummary;
}

/** The run summary contract (DESIGN.md): keys are stable; add, never rename. */
export interface RunSummary {
  readonly scenario: string;
  readonly policy: string;
  readonly seed: number;
  readonly jobs: { readonly submitted: number; readonly completed: number; readonly failed: number; readonly unfinished: number };
  readonly makespanS: number;
  readonly jctS: Quantiles;
  readonly queueDelayS: Quantiles;
  /** All time completed jobs spent queued: the first wait and every wait after a preemption or a recovery. */
  readonly waitS: Quantiles;
  readonly ettr: number;
  readonly runtimeRatio: number;
  readonly gpuAllocationRate: number;
  readonly gpuUtilization: number;
  readonly cpuAllocationRate: number;
  readonly faults: { readonly total: number; readonly byType: Readonly<Record<string, number>>; readonly daysWithFault: number };
  readonly restarts: number;
  /** Pods the OOM killer ended (a pod with less memory than it used). */
  readonly oomKills: number;
  /** Plans an auto-scaler made (its ScalePlans: create plans and changes of running jobs). */
  readonly scalePlans: number;
  readonly lostGpuHours: number;
  /** GPU-hours faults kept jobs from training (detection, queueing again, rescheduling, node checks, start-up, loading, hangs, running scaled down). */
  readonly downtimeGpuHours: number;
  /** Completed jobs' CPU-starved waiting (GPUs free for the gang, CPU not): see CpuStarvedSummary. */
  readonly cpuStarvedWaitS: CpuStarvedSummary;
  /** Completed jobs' data workers: see DataWorkersSummary. */
  readonly dataWorkers: DataWorkersSummary;
  /** Every job's queued time by the reason its scheduling policy gave (see WAIT_REASONS in policies/wait-reason.ts): seconds and share of all queued time. */
  readonly waitByReason: Readonly<Record<string, WaitReasonSummary>>;
  /** Fairness between users: Jain's index over users' mean slowdowns (see user-fairness.ts). */
  readonly fairness: FairnessSummary;
  /** Per-user jobs and completed jobs' mean JCT and slowdown; not a metric (names differ between runs), so comparisons and baselines leave it out. */
  readonly perUser: PerUserSummary;
  readonly events: number;
  readonly perf: { readonly wallS: number; readonly eventsPerS: number };
  /** Present only when the workload has spot jobs (so runs without them keep their summaries). */
  readonly priorityClasses?: PriorityClassesSummary;
}

/** Everything the summary is computed from, at the end of a run. */
export interface SummaryInput {
  readonly scenario: string;
  readonly policy: string;
  readonly seed: number;
  readonly jobs: readonly JobRecord[];
  /** Simulated time the run stopped at, in seconds. */
  readonly endS: number;
  /** Plans the auto-scaler made (absent: none). */
  readonly scalePlans?: number;
  readonly totalGpus: number;
  readonly totalCpuMilli: number;
  readonly allocatedGpuS: number;
  readonly busyGpuS: number;
  readonly allocatedCpuMilliS: number;
  readonly faultsByType: Readonly<Record<string, number>>;
  /** Every job's queued seconds by wait reason, in the reasons' order (absent: none recorded). */
  readonly waitByReasonS?: Readonly<Record<string, number>>;
  readonly events: number;
}

/** Queued time waiting for one reason: seconds, and share of all queued seconds. */
export interface WaitReasonSummary {
  readonly totalS: number;
  readonly share: number;
}

/** Each reason's seconds and share of their sum. */
function waitByReasonOf(secondsByReason: Readonly<Record<string, number>>): Record<string, WaitReasonSummary> {
  let allS = 0;
  for (const seconds of Object.values(secondsByReason)) allS += seconds;
  const out: Record<string, WaitReasonSummary> = {};
  for (const [reason, seconds] of Object.entries(secondsByReason)) out[reason] = { totalS: roundS(seconds), share: roundRatio(allS > 0 ? seconds / allS : 0) };
  return out;
}

/** Builds the summary; `perf` is zero here and filled in by whoever timed the run. */
export function buildSummary(input: SummaryInput): RunSummary {
  const { jobs, endS } = input;
  // One pass over every job for the run's lists, counts and sums (over a million jobs, each pass of
  // its own cost about as much as all the rest); each sum adds the jobs in their order, as before.
  // The loops over jobs here are indexed: they run once a run, too seldom to be compiled, and a
  // million jobs read through an iterator make as many result objects.
  const completed: JobRecord[] = [];
  const started: JobRecord[] = [];
  let failed = 0;
  let firstSubmitS = jobs[0]?.spec.submitS ?? 0;
  let latestEndS = -Infinity;
  let restarts = 0;
  let oomKills = 0;
  let lostGpuS = 0;
  let downtimeGpuS = 0;
  for (let k = 0; k < jobs.length; k++) {
    const job = jobs[k]!;
    const phase = job.phase;
    if (phase === 'completed') completed.push(job);
    else if (phase === 'failed') failed++;
    if (job.firstStartS !== null) started.push(job);
    firstSubmitS = Math.min(firstSubmitS, job.spec.submitS);
    latestEndS = Math.max(latestEndS, job.endS ?? 0);
    restarts += job.restarts;
    oomKills += job.oomKills;
    lostGpuS += job.lostGpuS;
    downtimeGpuS += job.downtimeGpuS;
  }
  const unfinished = jobs.length - completed.length - failed;
  const lastEndS = unfinished > 0 ? endS : Math.max(firstSubmitS, latestEndS);
  const makespanS = Math.max(0, lastEndS - firstSubmitS);

  const weights = trainingWeights(started);
  let weightSum = 0;
  let ettrSum = 0;
  let runtimeSum = 0;
  for (let i = 0; i < started.length; i++) {
    const job = started[i]!;
    const wallS = job.wallSinceStartS(endS);
    const weight = weights[i]!;
    if (wallS <= 0 || weight <= 0) continue;
    weightSum += weight;
    ettrSum += weight * Math.min(1, job.effectiveS() / wallS);
    runtimeSum += weight * Math.min(1, job.processRuntimeS() / wallS);
  }

  const gpuCapacityS = input.totalGpus * makespanS;
  const cpuCapacityS = input.totalCpuMilli * makespanS;
  let faultsTotal = 0;
  for (const count of Object.values(input.faultsByType)) faultsTotal += count;
  return {
    scenario: input.scenario,
    policy: input.policy,
    seed: input.seed,
    jobs: { submitted: jobs.length, completed: completed.length, failed, unfinished },
    makespanS: roundS(makespanS),
    jctS: quantiles(valuesOf(completed, (j) => j.endS! - j.spec.submitS)),
    queueDelayS: quantiles(valuesOf(completed, (j) => j.queueS(endS))),
    waitS: quantiles(valuesOf(completed, (j) => j.queuedS)),
    ettr: roundRatio(weightSum > 0 ? ettrSum / weightSum : 0),
    runtimeRatio: roundRatio(weightSum > 0 ? runtimeSum / weightSum : 0),
    gpuAllocationRate: roundRatio(gpuCapacityS > 0 ? input.allocatedGpuS / gpuCapacityS : 0),
    gpuUtilization: roundRatio(gpuCapacityS > 0 ? input.busyGpuS / gpuCapacityS : 0),
    cpuAllocationRate: roundRatio(cpuCapacityS > 0 ? input.allocatedCpuMilliS / cpuCapacityS : 0),
    faults: { total: faultsTotal, byType: { ...input.faultsByType }, daysWithFault: roundRatio(daysWithFault(started, endS)) },
    restarts,
    oomKills,
    scalePlans: input.scalePlans ?? 0,
    lostGpuHours: roundRatio(lostGpuS / 3600),
    downtimeGpuHours: roundRatio(downtimeGpuS / 3600),
    cpuStarvedWaitS: cpuStarvedOf(completed),
    dataWorkers: { meanPerJob: roundRatio(meanDataWorkers(completed, endS)) },
    waitByReason: waitByReasonOf(input.waitByReasonS ?? {}),
    ...userFairness(jobs, roundS, roundRatio),
    events: input.events,
    perf: { wallS: 0, eventsPerS: 0 },
    ...priorityClassesOf(jobs),
  };
}

/** Per-class results, as a summary key, when some job is a spot job; nothing otherwise. */
function priorityClassesOf(jobs: readonly JobRecord[]): { priorityClasses: PriorityClassesSummary } | Record<string, never> {
  const spot = jobs.filter((j) => j.priorityClass === 'spot');
  if (spot.length === 0) return {};
  const high = jobs.filter((j) => j.priorityClass === 'high');
  return {
    priorityClasses: {
      high: classSummary(high),
      spot: {
        ...classSummary(spot),
        preemptions: spot.reduce((sum, j) => sum + j.preemptions, 0),
        preemptionLostGpuHours: roundRatio(spot.reduce((sum, j) => sum + j.reclaimLostGpuS, 0) / 3600),
      },
    },
  };
}

/** Completed jobs' CPU-starved waiting: mean and total seconds, and its share of their queued seconds. */
function cpuStarvedOf(completed: readonly JobRecord[]): CpuStarvedSummary {
  let starvedS = 0;
  let queuedS = 0;
  for (let k = 0; k < completed.length; k++) {
    const job = completed[k]!;
    starvedS += job.cpuStarvedWaitS;
    queuedS += job.queuedS;
  }
  return {
    mean: roundS(completed.length > 0 ? starvedS / completed.length : 0),
    total: roundS(starvedS),
    share: roundRatio(queuedS > 0 ? Math.min(1, starvedS / queuedS) : 0),
  };
}

/** Mean over completed jobs of data-worker-seconds per second from first start to end (a job with no such second counts 0); 0 for none. */
function meanDataWorkers(completed: readonly JobRecord[], endS: number): number {
  if (completed.length === 0) return 0;
  let sum = 0;
  for (let k = 0; k < completed.length; k++) {
    const job = completed[k]!;
    const wallS = job.wallSinceStartS(endS);
    if (wallS > 0) sum += job.dataWorkerS / wallS;
  }
  return sum / completed.length;
}

/** Job counts and completed jobs' JCT and waits of one class. */
function classSummary(jobs: readonly JobRecord[]): ClassSummary {
  const completed = jobs.filter((j) => j.phase === 'completed');
  return {
    jobs: jobs.length,
    completed: completed.length,
    jctS: quantiles(valuesOf(completed, (j) => j.endS! - j.spec.submitS)),
    waitS: quantiles(valuesOf(completed, (j) => j.queuedS)),
  };
}

/**
 * Share of the started jobs' whole days of life (from first start to end, or to `endS`) on which a
 * fault hit the job; 0 when no job lived a whole day.
 */
function daysWithFault(started: readonly JobRecord[], endS: number): number {
  let days = 0;
  let withFault = 0;
  for (let k = 0; k < started.length; k++) {
    const job = started[k]!;
    const life = job.daysOfLife(endS);
    days += life.days;
    withFault += life.withFault;
  }
  return days > 0 ? withFault / days : 0;
}

/**
 * Weights for the time ratios: the GPU-seconds each job held (shrunk, grown or stopped, as it
 * was); when no started job held GPUs, the CPU milli-core-seconds it held.
 */
function trainingWeights(started: readonly JobRecord[]): number[] {
  const anyGpu = started.some((j) => j.attainedGpuS > 0);
  return started.map((j) => (anyGpu ? j.attainedGpuS : j.attainedCpuMilliS));
}

/** One number of each job, in a typed array (sorted natively, without a comparator: a million jobs' worth in milliseconds). */
function valuesOf(jobs: readonly JobRecord[], valueOf: (job: JobRecord) => number): Float64Array {
  const values = new Float64Array(jobs.length);
  for (let i = 0; i < jobs.length; i++) values[i] = valueOf(jobs[i]!);
  return values;
}

/** Mean and quantiles (d3 type-7) of durations in seconds; all zero for an empty set. */
export function quantiles(valuesS: ArrayLike<number>): Quantiles {
  if (valuesS.length === 0) return { mean: 0, p50: 0, p90: 0, p99: 0 };
  const sorted = Float64Array.from(valuesS).sort();
  let sum = 0;
  for (let k = 0; k < sorted.length; k++) sum += sorted[k]!;
  return {
    mean: roundS(sum / sorted.length),
    p50: roundS(quantileSorted(sorted as unknown as number[], 0.5)!),
    p90: roundS(quantileSorted(sorted as unknown as number[], 0.9)!),
    p99: roundS(quantileSorted(sorted as unknown as number[], 0.99)!),
  };
}

/** Seconds rounded to milliseconds, so summaries print stably. */
export function roundS(valueS: number): number {
  return Math.round(valueS * 1000) / 1000;
}

/** A figure rounded to two decimals, for messages and reasons. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Ratios rounded to six decimals. */
export function roundRatio(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
