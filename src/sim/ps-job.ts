/**
 * What the simulation reads of a PS job's hidden truth (model/ps-truth.ts) from the tasks it holds:
 * PS ranks, holdings, memory need per task and when growing PS memory reaches a PS's limit.
 */
import type { TaskPlacement } from '../model/allocation.js';
import type { JobSpec, PsTruth } from '../model/job-spec.js';
import { psMemTotalMiB, psOomStep, psShares, type AsyncSpeed, type PsHoldings } from '../model/ps-truth.js';

/** A job whose speed and usage its PS truth gives: an async PS job with a `psTruth`. */
export interface PsTruthJob {
  readonly speed: AsyncSpeed;
  readonly truth: PsTruth;
}

/** The job's PS truth and async speed, or null when it has none. */
export function psTruthOf(spec: JobSpec): PsTruthJob | null {
  if (spec.psTruth === undefined || spec.speed.kind !== 'ps-async') return null;
  return { speed: spec.speed, truth: spec.psTruth };
}

/**
 * The PS tasks in rank order after a change: tasks kept keep their rank, new ones fill the ranks
 * of those removed (a replacement takes over the rank of the PS it replaces), then come after.
 */
export function rankPs(previous: readonly TaskPlacement[], tasks: readonly TaskPlacement[]): TaskPlacement[] {
  const current = tasks.filter((t) => t.role === 'ps');
  const present = new Set(current);
  const known = new Set(previous);
  const fresh = current.filter((t) => !known.has(t));
  const ranked: TaskPlacement[] = [];
  let next = 0;
  for (const task of previous) {
    if (present.has(task)) ranked.push(task);
    else if (next < fresh.length) ranked.push(fresh[next++]!);
  }
  for (; next < fresh.length; next++) ranked.push(fresh[next]!);
  return ranked;
}

/** What the job holds, as its truth reads it. */
export function holdingsOf(tasks: readonly TaskPlacement[], psRanked: readonly TaskPlacement[]): PsHoldings {
  const workerCpuMilli: number[] = [];
  for (const task of tasks) if (task.role !== 'ps') workerCpuMilli.push(task.demand.cpuMilli);
  return { workerCpuMilli, psCpuMilli: psRanked.map((t) => t.demand.cpuMilli) };
}

/** Memory a task of the job uses after `steps` steps, MiB (a PS by its rank's share). */
export function taskMemNeedMiB(job: PsTruthJob, task: TaskPlacement, psRanked: readonly TaskPlacement[], steps: number): number {
  if (task.role !== 'ps') return job.truth.workerMemMiB;
  const rank = psRanked.indexOf(task);
  if (rank < 0) return 0;
  return psShares(job.truth.variableSizes, psRanked.length)[rank]! * psMemTotalMiB(job.truth, steps);
}

/** The step at which a PS's growing memory reaches what it holds (Infinity: never; `steps` when one already has). */
export function psOomAtStep(job: PsTruthJob, psRanked: readonly TaskPlacement[], steps: number): number {
  return psOomStep(job.truth, psRanked.map((t) => t.demand.memMiB), steps);
}
