import { quantileSorted } from 'd3-array';
import type { JobRecord } from './job-record.js';
import { UserTallies, type FairnessSummary, type PerUserSummary } from './user-fairness.js';

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
  // One pass over every job for every count, sum and list of the summary: over a million jobs a
  // pass costs mostly the reading of each job's numbers, and each pass of its own cost about as much
  // as the rest. Each sum adds the jobs in their order. The loop is indexed: it runs once a run,
  // too seldom to be compiled, and a million jobs read through an iterator make as many result objects.
  const pass = new SummaryPass(jobs.length, endS);
  for (let k = 0; k < jobs.length; k++) pass.add(jobs[k]!);
  const completed = pass.completed;
  const unfinished = jobs.length - completed - pass.failed;
  const firstSubmitS = jobs.length > 0 ? pass.firstSubmitS : 0;
  const lastEndS = unfinished > 0 ? endS : Math.max(firstSubmitS, pass.latestEndS);
  const makespanS = Math.max(0, lastEndS - firstSubmitS);
  // The time ratios are weighted by GPU-seconds held; by CPU milli-core-seconds when no started job held GPUs.
  const ratios = pass.anyGpu ? pass.byGpu : pass.byCpu;

  const gpuCapacityS = input.totalGpus * makespanS;
  const cpuCapacityS = input.totalCpuMilli * makespanS;
  let faultsTotal = 0;
  for (const count of Object.values(input.faultsByType)) faultsTotal += count;
  return {
    scenario: input.scenario,
    policy: input.policy,
    seed: input.seed,
    jobs: { submitted: jobs.length, completed, failed: pass.failed, unfinished },
    makespanS: roundS(makespanS),
    jctS: sortedQuantiles(pass.jctS.subarray(0, completed)),
    queueDelayS: sortedQuantiles(pass.queueDelayS.subarray(0, completed)),
    waitS: sortedQuantiles(pass.waitS.subarray(0, completed)),
    ettr: roundRatio(ratios.weightSum > 0 ? ratios.ettrSum / ratios.weightSum : 0),
    runtimeRatio: roundRatio(ratios.weightSum > 0 ? ratios.runtimeSum / ratios.weightSum : 0),
    gpuAllocationRate: roundRatio(gpuCapacityS > 0 ? input.allocatedGpuS / gpuCapacityS : 0),
    gpuUtilization: roundRatio(gpuCapacityS > 0 ? input.busyGpuS / gpuCapacityS : 0),
    cpuAllocationRate: roundRatio(cpuCapacityS > 0 ? input.allocatedCpuMilliS / cpuCapacityS : 0),
    faults: { total: faultsTotal, byType: { ...input.faultsByType }, daysWithFault: roundRatio(pass.days > 0 ? pass.daysWithFault / pass.days : 0) },
    restarts: pass.restarts,
    oomKills: pass.oomKills,
    scalePlans: input.scalePlans ?? 0,
    lostGpuHours: roundRatio(pass.lostGpuS / 3600),
    downtimeGpuHours: roundRatio(pass.downtimeGpuS / 3600),
    cpuStarvedWaitS: {
      mean: roundS(completed > 0 ? pass.cpuStarvedS / completed : 0),
      total: roundS(pass.cpuStarvedS),
      share: roundRatio(pass.completedQueuedS > 0 ? Math.min(1, pass.cpuStarvedS / pass.completedQueuedS) : 0),
    },
    dataWorkers: { meanPerJob: roundRatio(completed > 0 ? pass.dataWorkersSum / completed : 0) },
    waitByReason: waitByReasonOf(input.waitByReasonS ?? {}),
    ...pass.users.result(roundS, roundRatio),
    events: input.events,
    perf: { wallS: 0, eventsPerS: 0 },
    ...(pass.spot.length > 0 ? priorityClassesOf(pass.high, pass.spot) : {}),
  };
}

/** Sums of the time ratios under one weighting (see SummaryPass). */
interface RatioSums {
  weightSum: number;
  ettrSum: number;
  runtimeSum: number;
}

/**
 * The counts, sums and lists of a summary, told of a run's jobs one at a time in the run's order
 * (each sum adds them in that order). A started job's time ratios are summed under both weightings
 * (GPU-seconds and CPU milli-core-seconds held): which one the summary takes is known only once
 * every job was seen.
 */
class SummaryPass {
  completed = 0;
  failed = 0;
  /** The earliest submission (Infinity before the first job). */
  firstSubmitS = Infinity;
  latestEndS = -Infinity;
  restarts = 0;
  oomKills = 0;
  lostGpuS = 0;
  downtimeGpuS = 0;
  anyGpu = false;
  readonly byGpu: RatioSums = { weightSum: 0, ettrSum: 0, runtimeSum: 0 };
  readonly byCpu: RatioSums = { weightSum: 0, ettrSum: 0, runtimeSum: 0 };
  /** Started jobs' whole days of life, and those a fault hit. */
  days = 0;
  daysWithFault = 0;
  /** Completed jobs' times, one entry per completed job in order (the first `completed` entries are in use). */
  readonly jctS: Float64Array;
  readonly queueDelayS: Float64Array;
  readonly waitS: Float64Array;
  /** Completed jobs' CPU-starved and queued seconds, and their data-worker-seconds per second of life. */
  cpuStarvedS = 0;
  completedQueuedS = 0;
  dataWorkersSum = 0;
  readonly users = new UserTallies();
  /** High-priority and spot jobs, each in order. */
  readonly high: JobRecord[] = [];
  readonly spot: JobRecord[] = [];

  constructor(
    jobs: number,
    private readonly endS: number,
  ) {
    this.jctS = new Float64Array(jobs);
    this.queueDelayS = new Float64Array(jobs);
    this.waitS = new Float64Array(jobs);
  }

  /** Counts the job (the next in the run's order). */
  add(job: JobRecord): void {
    const endS = this.endS;
    const submitS = job.spec.submitS;
    this.firstSubmitS = Math.min(this.firstSubmitS, submitS);
    const jobEndS = job.endS;
    this.latestEndS = Math.max(this.latestEndS, jobEndS ?? 0);
    this.restarts += job.restarts;
    this.oomKills += job.oomKills;
    this.lostGpuS += job.lostGpuS;
    this.downtimeGpuS += job.downtimeGpuS;
    const priorityClass = job.priorityClass;
    if (priorityClass === 'spot') this.spot.push(job);
    else if (priorityClass === 'high') this.high.push(job);
    this.users.add(job);
    const phase = job.phase;
    if (phase === 'failed') this.failed++;
    if (job.firstStartS !== null) this.addStarted(job);
    if (phase !== 'completed') return;
    const at = this.completed++;
    this.jctS[at] = jobEndS! - submitS;
    this.queueDelayS[at] = job.queueS(endS);
    const queuedS = job.queuedS;
    this.waitS[at] = queuedS;
    this.cpuStarvedS += job.cpuStarvedWaitS;
    this.completedQueuedS += queuedS;
    const wallS = job.wallSinceStartS(endS);
    if (wallS > 0) this.dataWorkersSum += job.dataWorkerS / wallS;
  }

  /** Adds a started job's time ratios and days of life. */
  private addStarted(job: JobRecord): void {
    const wallS = job.wallSinceStartS(this.endS);
    const gpuS = job.attainedGpuS;
    if (gpuS > 0) this.anyGpu = true;
    if (wallS > 0) {
      const ettr = Math.min(1, job.effectiveS() / wallS);
      const runtime = Math.min(1, job.processRuntimeS() / wallS);
      addRatios(this.byGpu, gpuS, ettr, runtime);
      addRatios(this.byCpu, job.attainedCpuMilliS, ettr, runtime);
    }
    const life = job.daysOfLife(this.endS);
    this.days += life.days;
    this.daysWithFault += life.withFault;
  }
}

/** Adds one job's time ratios at its weight (a job of no weight counts none). */
function addRatios(sums: RatioSums, weight: number, ettr: number, runtime: number): void {
  if (weight <= 0) return;
  sums.weightSum += weight;
  sums.ettrSum += weight * ettr;
  sums.runtimeSum += weight * runtime;
}

/** Per-class results, as a summary key, of a workload with spot jobs (its high-priority and spot jobs, each in order). */
function priorityClassesOf(high: readonly JobRecord[], spot: readonly JobRecord[]): { priorityClasses: PriorityClassesSummary } {
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

/** Job counts and completed jobs' JCT and waits of one class. */
function classSummary(jobs: readonly JobRecord[]): ClassSummary {
  const completed = jobs.filter((j) => j.phase === 'completed');
  return {
    jobs: jobs.length,
    completed: completed.length,
    jctS: sortedQuantiles(Float64Array.from(completed, (j) => j.endS! - j.spec.submitS)),
    waitS: sortedQuantiles(Float64Array.from(completed, (j) => j.queuedS)),
  };
}

/** Mean and quantiles (d3 type-7) of durations in seconds; all zero for an empty set. */
export function quantiles(valuesS: ArrayLike<number>): Quantiles {
  return sortedQuantiles(Float64Array.from(valuesS));
}

/** quantiles of the values, sorting them in place (natively, without a comparator: a million values in milliseconds). */
function sortedQuantiles(valuesS: Float64Array): Quantiles {
  if (valuesS.length === 0) return { mean: 0, p50: 0, p90: 0, p99: 0 };
  const sorted = valuesS.sort();
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
