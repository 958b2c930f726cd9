import { InvariantError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import type { ClusterState } from '../model/cluster-state.js';
import type { JobPhase } from '../policies/types.js';
import type { JobRuntime, JobWatcher } from './job-runtime.js';

/** Relative slack for sums of float time steps compared with a difference of two times. */
const TIME_SLACK = 1e-9;

let checkByDefault = false;

/** Makes every Simulation built afterwards in this thread check invariants unless its options say otherwise (test set-up). */
export function setInvariantChecksByDefault(on: boolean): void {
  checkByDefault = on;
}

/** True when Simulations check invariants unless told otherwise. */
export function invariantChecksByDefault(): boolean {
  return checkByDefault;
}

/** What the checker reads of the simulation at the end of an instant. */
export interface InstantState {
  /** Simulated time of the instant, in seconds. */
  readonly nowS: number;
  /** The queue, in its order. */
  readonly queued: readonly JobRuntime[];
  /** The running list, in start order. */
  readonly running: readonly JobRuntime[];
  /** Jobs the simulation counts as ended (completed or failed). */
  readonly endedJobs: number;
}

/**
 * Checks a run after every instant, at the cost of what changed in it: the cluster nodes that
 * changed (and the cluster-wide totals from every node's share), the jobs whose phase or accounting
 * changed, and per-phase job counts against the simulation's lists; at the end of the run, all of
 * it in full and the summary. Any breach throws InvariantError.
 */
export class InvariantChecker implements JobWatcher {
  private readonly counts: Record<JobPhase, number> = { waiting: 0, queued: 0, running: 0, completed: 0, failed: 0 };
  private readonly touchedJobs = new Set<JobRuntime>();
  private lastS = -Infinity;

  constructor(
    private readonly jobs: readonly JobRuntime[],
    private readonly cluster: ClusterState,
  ) {
    for (const job of jobs) {
      this.counts[job.phase]++;
      job.watcher = this;
    }
    cluster.trackChanges();
  }

  /** JobWatcher: the job's accounting is being brought up to date. */
  touched(job: JobRuntime): void {
    this.touchedJobs.add(job);
  }

  /** JobWatcher: the job changed phase. */
  phaseChanged(job: JobRuntime, from: JobPhase): void {
    this.counts[from]--;
    this.counts[job.phase]++;
    this.touchedJobs.add(job);
  }

  /** Checks the state at the end of an instant. */
  afterInstant(state: InstantState): void {
    const { nowS } = state;
    if (!(nowS >= this.lastS)) throw new InvariantError(`time went back from ${this.lastS}s to ${nowS}s`);
    this.lastS = nowS;
    this.cluster.checkChangedNodes();
    if (state.queued.length !== this.counts.queued) {
      throw new InvariantError(`the queue holds ${state.queued.length} entries but ${this.counts.queued} jobs are queued`);
    }
    if (state.running.length !== this.counts.running) {
      throw new InvariantError(`the running list holds ${state.running.length} entries but ${this.counts.running} jobs are running`);
    }
    if (state.endedJobs !== this.counts.completed + this.counts.failed) {
      throw new InvariantError(`${state.endedJobs} jobs counted as ended but ${this.counts.completed + this.counts.failed} completed or failed`);
    }
    for (const job of this.touchedJobs) checkJob(job, this.cluster, nowS);
    this.touchedJobs.clear();
  }

  /** Checks everything in full at the end of a run: the cluster, every job, and the summary. */
  afterRun(summary: RunSummary, endS: number): void {
    this.cluster.checkInvariants();
    for (const job of this.jobs) checkJob(job, this.cluster, endS);
    this.touchedJobs.clear();
    const { jobs } = summary;
    const unfinished = this.counts.waiting + this.counts.queued + this.counts.running;
    if (jobs.completed !== this.counts.completed || jobs.failed !== this.counts.failed || jobs.unfinished !== unfinished) {
      throw new InvariantError(`summary job counts ${JSON.stringify(jobs)} differ from the jobs' phases ${JSON.stringify(this.counts)}`);
    }
    checkSummary(summary, this.jobs.length);
  }
}

/**
 * Checks one job at `nowS`: its phase agrees with what it holds (auxiliary tasks only while it runs) and its times; its progress is
 * within its steps; 0 ≤ effective training time ≤ time its processes ran ≤ wall time since its
 * first start (so 0 ≤ its ETTR ≤ its runtime ratio ≤ 1).
 */
export function checkJob(job: JobRuntime, cluster: ClusterState, nowS: number): void {
  const where = `job ${job.spec.id} (${job.phase})`;
  const holds = cluster.tasksOf(job.spec.id) !== undefined;
  const ended = job.phase === 'completed' || job.phase === 'failed';
  if (holds !== (job.phase === 'running')) throw new InvariantError(`${where} ${holds ? 'holds' : 'holds no'} resources`);
  if (job.phase !== 'running' && cluster.auxOf(job.spec.id).length > 0) throw new InvariantError(`${where} holds auxiliary tasks but is not running`);
  if (ended !== (job.endS !== null)) throw new InvariantError(`${where} has end time ${job.endS}`);
  if ((job.phase === 'failed') !== (job.failureReason !== null)) throw new InvariantError(`${where} has failure reason ${job.failureReason}`);
  if (job.phase === 'running' && job.firstStartS === null) throw new InvariantError(`${where} never started`);
  if (job.lastUpdateS > nowS) throw new InvariantError(`${where} is accounted up to ${job.lastUpdateS}s, after the current time ${nowS}s`);
  if (job.firstStartS !== null && job.firstStartS < job.spec.submitS) throw new InvariantError(`${where} started before it was submitted`);
  if (job.endS !== null && (job.endS > nowS || job.endS < (job.firstStartS ?? job.spec.submitS))) {
    throw new InvariantError(`${where} ended at ${job.endS}s, outside its life`);
  }
  const total = job.spec.totalSteps;
  const doneSteps = job.storedProgressSteps;
  if (!(doneSteps >= 0 && doneSteps <= total * (1 + TIME_SLACK))) {
    throw new InvariantError(`${where} has done ${doneSteps} of its ${total} steps`);
  }
  if (job.phase === 'completed' && doneSteps !== total) throw new InvariantError(`${where} completed after ${doneSteps} of ${total} steps`);
  const wallS = job.wallSinceStartS(job.endS ?? job.lastUpdateS);
  const runtimeS = job.processRuntimeS();
  const effectiveS = job.effectiveS();
  const slackS = TIME_SLACK * Math.max(1, wallS);
  if (!(job.runningS >= 0 && job.checkpointingS >= 0 && runtimeS <= wallS + slackS)) {
    throw new InvariantError(`${where}: runtime ${runtimeS}s (training ${job.runningS}s, saving ${job.checkpointingS}s) exceeds its ${wallS}s since first start`);
  }
  if (!(effectiveS >= 0 && effectiveS <= runtimeS + slackS)) {
    throw new InvariantError(`${where}: effective training time ${effectiveS}s outside 0..its runtime ${runtimeS}s`);
  }
}

/**
 * Checks a run summary: job counts add up to the `submitted` jobs; 0 ≤ ETTR ≤ runtime ratio ≤ 1;
 * allocation rates within 0..1; quantiles in order; fault counts add up; no negative amounts.
 */
export function checkSummary(summary: RunSummary, submitted: number): void {
  const fail = (what: string): never => {
    throw new InvariantError(`summary of ${summary.scenario} (${summary.policy}, seed ${summary.seed}): ${what}`);
  };
  const { jobs } = summary;
  const parts = [jobs.completed, jobs.failed, jobs.unfinished];
  if (jobs.submitted !== submitted || parts.some((n) => !(Number.isInteger(n) && n >= 0)) || jobs.completed + jobs.failed + jobs.unfinished !== jobs.submitted) {
    fail(`submitted ${jobs.submitted} of ${submitted} jobs ≠ completed ${jobs.completed} + failed ${jobs.failed} + unfinished ${jobs.unfinished}`);
  }
  if (!(summary.ettr >= 0 && summary.ettr <= summary.runtimeRatio)) fail(`ETTR ${summary.ettr} outside 0..runtime ratio ${summary.runtimeRatio}`);
  if (!(summary.runtimeRatio <= 1)) fail(`runtime ratio ${summary.runtimeRatio} above 1`);
  for (const [name, rate] of [['GPU allocation', summary.gpuAllocationRate], ['CPU allocation', summary.cpuAllocationRate]] as const) {
    if (!(rate >= 0 && rate <= 1 + 1e-6)) fail(`${name} rate ${rate} outside 0..1`);
  }
  for (const [name, q] of [['JCT', summary.jctS], ['queue delay', summary.queueDelayS], ['wait', summary.waitS]] as const) {
    if (!(q.p50 >= 0 && q.p50 <= q.p90 && q.p90 <= q.p99 && q.mean >= 0)) fail(`${name} quantiles out of order: ${JSON.stringify(q)}`);
  }
  let faults = 0;
  for (const count of Object.values(summary.faults.byType)) faults += count;
  if (faults !== summary.faults.total) fail(`fault total ${summary.faults.total} ≠ ${faults} by type`);
  if (!(summary.faults.daysWithFault >= 0 && summary.faults.daysWithFault <= 1)) fail(`days with a fault ${summary.faults.daysWithFault} outside 0..1`);
  const amounts = { makespanS: summary.makespanS, gpuUtilization: summary.gpuUtilization, lostGpuHours: summary.lostGpuHours, downtimeGpuHours: summary.downtimeGpuHours, restarts: summary.restarts };
  for (const [name, value] of Object.entries(amounts)) if (!(value >= 0)) fail(`${name} ${value} is negative`);
}
