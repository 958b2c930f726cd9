import FastPriorityQueue from 'fastpriorityqueue';

/** Resource amounts in the simulator's integer units, in this order: GPU thousandths, CPU thousandths of a core, memory MiB. */
export type ResourceVector = [gpuMilli: number, cpuMilli: number, memMiB: number];

/** Replica counts of a PS job: parameter servers and workers. */
export interface PsShape {
  readonly ps: number;
  readonly workers: number;
}

/** A job as the marginal-gain allocation sees it: its bounds, demands and estimated models. */
export interface AllocationJob {
  readonly id: string;
  /** Smallest worker count it can run with (>= 1, a multiple of `workerUnit`). */
  readonly minWorkers: number;
  /** Workers come and go in multiples of this. */
  readonly workerUnit: number;
  readonly maxWorkers: number;
  readonly maxPs: number;
  /** What one worker replica holds. */
  readonly workerDemand: Readonly<ResourceVector>;
  /** What one parameter server holds. */
  readonly psDemand: Readonly<ResourceVector>;
  /** Estimated steps to convergence (Q). */
  readonly remainingSteps: number;
  /** Estimated steps per second at a shape (f). */
  readonly stepsPerS: (ps: number, workers: number) => number;
}

/**
 * Optimus's greedy allocation (REFERENCE §5). Every job, in the given order, first gets 1 PS and
 * its minimum workers when that fits the budget (otherwise it gets nothing: null). Then, one at a
 * time, the job with the largest marginal gain gets one more PS or one more unit of workers:
 * gain = (Q/f(p, w) - Q/f(p', w')) / (dominant share of the added replicas), the dominant share
 * being the largest over resources of demand / cluster capacity. A job's option that no longer
 * fits is closed (the budget only shrinks); the loop ends when no option fits or every gain <= 0.
 *
 * A priority queue holds each job's best open option; an entry is re-validated when popped, so a
 * round costs O(replicas added * log jobs), not a rescan of all jobs per replica.
 */
export function allocateByMarginalGain(
  jobs: readonly AllocationJob[],
  budget: Readonly<ResourceVector>,
  capacity: Readonly<ResourceVector>,
): (PsShape | null)[] {
  const left: ResourceVector = [budget[0], budget[1], budget[2]];
  const states: JobState[] = [];
  const shapes: (PsShape | null)[] = jobs.map(() => null);
  jobs.forEach((job, index) => {
    const need = add(scale(job.workerDemand, job.minWorkers), job.psDemand);
    if (!fits(need, left)) return;
    take(left, need);
    states.push({
      job,
      index,
      ps: 1,
      workers: job.minWorkers,
      workerOpen: true,
      psOpen: true,
      version: 0,
      workerCost: dominantShare(scale(job.workerDemand, job.workerUnit), capacity),
      psCost: dominantShare(job.psDemand, capacity),
    });
  });

  const queue = new FastPriorityQueue<Entry>((a, b) => a.gain > b.gain || (a.gain === b.gain && a.state.index < b.state.index));
  for (const state of states) pushBest(queue, state);
  while (!queue.isEmpty()) {
    const entry = queue.poll()!;
    const state = entry.state;
    if (entry.version !== state.version) continue;
    const { job } = state;
    const need = entry.option === 'worker' ? scale(job.workerDemand, job.workerUnit) : job.psDemand;
    state.version++;
    if (fits(need, left)) {
      take(left, need);
      if (entry.option === 'worker') state.workers += job.workerUnit;
      else state.ps++;
    } else if (entry.option === 'worker') {
      state.workerOpen = false;
    } else {
      state.psOpen = false;
    }
    pushBest(queue, state);
  }
  for (const state of states) shapes[state.index] = { ps: state.ps, workers: state.workers };
  return shapes;
}

/** The largest share of cluster capacity a demand takes over its resources (resources the cluster lacks are skipped). */
export function dominantShare(demand: Readonly<ResourceVector>, capacity: Readonly<ResourceVector>): number {
  let share = 0;
  for (let r = 0; r < 3; r++) if (capacity[r]! > 0) share = Math.max(share, demand[r]! / capacity[r]!);
  return share;
}

/** Estimated seconds to finish at a shape: Q / f (Infinity when f is 0). */
export function remainingTimeS(job: AllocationJob, ps: number, workers: number): number {
  if (job.remainingSteps <= 0) return 0;
  const speed = job.stepsPerS(ps, workers);
  return speed > 0 ? job.remainingSteps / speed : Infinity;
}

/** Marginal gain of one more unit of workers (or PS) for a job at (ps, workers): time saved per dominant share. */
export function marginalGain(job: AllocationJob, ps: number, workers: number, option: 'worker' | 'ps', capacity: Readonly<ResourceVector>): number {
  const cost = option === 'worker' ? dominantShare(scale(job.workerDemand, job.workerUnit), capacity) : dominantShare(job.psDemand, capacity);
  return gainOf(job, ps, workers, option, cost);
}

/** Seconds of remaining time one more replica saves, divided by its dominant share `cost`. */
function gainOf(job: AllocationJob, ps: number, workers: number, option: 'worker' | 'ps', cost: number): number {
  const now = remainingTimeS(job, ps, workers);
  const after = option === 'worker' ? remainingTimeS(job, ps, workers + job.workerUnit) : remainingTimeS(job, ps + 1, workers);
  const savedS = now === Infinity && after === Infinity ? 0 : now - after;
  if (Number.isNaN(savedS)) return 0;
  return cost > 0 ? savedS / cost : savedS > 0 ? Infinity : 0;
}

/** A job's allocation in progress. */
interface JobState {
  readonly job: AllocationJob;
  readonly index: number;
  ps: number;
  workers: number;
  /** False once one more worker unit did not fit. */
  workerOpen: boolean;
  psOpen: boolean;
  /** Bumped on every change; queue entries of older versions are stale. */
  version: number;
  readonly workerCost: number;
  readonly psCost: number;
}

interface Entry {
  readonly state: JobState;
  readonly version: number;
  readonly option: 'worker' | 'ps';
  readonly gain: number;
}

/** Queues the job's better open option when its gain is positive. */
function pushBest(queue: FastPriorityQueue<Entry>, state: JobState): void {
  const { job, ps, workers } = state;
  let best: Entry | null = null;
  if (state.workerOpen && workers + job.workerUnit <= job.maxWorkers) {
    best = { state, version: state.version, option: 'worker', gain: gainOf(job, ps, workers, 'worker', state.workerCost) };
  }
  if (state.psOpen && ps + 1 <= job.maxPs) {
    const gain = gainOf(job, ps, workers, 'ps', state.psCost);
    if (best === null || gain > best.gain) best = { state, version: state.version, option: 'ps', gain };
  }
  if (best !== null && best.gain > 0) queue.add(best);
}

function scale(v: Readonly<ResourceVector>, factor: number): ResourceVector {
  return [v[0] * factor, v[1] * factor, v[2] * factor];
}

function add(a: Readonly<ResourceVector>, b: Readonly<ResourceVector>): ResourceVector {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

function fits(need: Readonly<ResourceVector>, left: Readonly<ResourceVector>): boolean {
  return need[0] <= left[0] && need[1] <= left[1] && need[2] <= left[2];
}

function take(left: ResourceVector, need: Readonly<ResourceVector>): void {
  left[0] -= need[0];
  left[1] -= need[1];
  left[2] -= need[2];
}
