/**
 * The sampler: what a controller measures of a running job. Every period it reads the true usage
 * of each listened job (model/usage.ts) and records it with noise — steps/s, and per role the CPU
 * cores and memory MiB used per replica — keeping the last SAMPLES_KEPT records per job, as
 * DLRover's job master does (REFERENCE §2). Each noise draw is fixed by a key of seed, job, role
 * and the job's sample index, so a job's samples do not depend on which other jobs are listened,
 * or in what order. A sample costs one truth read per listened job; jobs not listened cost nothing.
 */
import { InvariantError } from '../errors.js';
import type { JobSpec } from '../model/job-spec.js';
import { keyedNormal, SPEED_NOISE } from '../model/observations.js';
import type { TaskPlacement } from '../model/allocation.js';
import { trueUsage, type ReplicaUsage, type RoleShape, type RoleUsage, type UsageSample } from '../model/usage.js';
import { psTruthUsage } from '../model/ps-truth.js';
import { holdingsOf, psTruthOf, type PsTruthJob } from './ps-job.js';

/** Records kept per job: DLRover's job master keeps its last 50 (REFERENCE §2). */
export const SAMPLES_KEPT = 50;

/**
 * Relative noise (standard deviation) of a sampled CPU use: a period's mean of a replica's CPU
 * use moves by a few percent from one period to the next [modelling assumption].
 */
export const CPU_USAGE_NOISE = 0.05;

/** Relative noise (standard deviation) of a sampled memory use: memory moves less than CPU [modelling assumption]. */
export const MEM_USAGE_NOISE = 0.02;

/** A job's current truth, as the simulation knows it: spec, runtime shape and steps/s. */
export interface UsageTruth {
  readonly jobId: string;
  readonly spec: JobSpec;
  readonly shape: readonly RoleShape[];
  readonly stepsPerS: number;
  /** For a job with a PS truth: its tasks, its PS in rank order and the steps it has done. */
  readonly ps?: { readonly tasks: readonly TaskPlacement[]; readonly psRanked: readonly TaskPlacement[]; readonly steps: number };
  /** Its input queue's fill (0 empty, 1 full) when its input is tracked; absent otherwise. */
  readonly inputQueueLevel?: number;
}

/** Where the sampler reads a listened job's current truth. */
export interface TruthSource {
  /** The job's truth now; called only for listened jobs. */
  truthOf(jobId: string): UsageTruth;
}

/** How the sampler samples. */
export interface SamplerOptions {
  /** Seconds between two samples. */
  readonly periodS: number;
  /** The run's seed: it fixes every noise draw. */
  readonly seed: number;
  /** Relative noise of CPU use; default CPU_USAGE_NOISE. */
  readonly cpuNoise?: number;
  /** Relative noise of memory use; default MEM_USAGE_NOISE. */
  readonly memNoise?: number;
}

/** One job's bounded history: a ring of at most SAMPLES_KEPT records and the index of its next sample. */
interface History {
  readonly records: UsageSample[];
  /** Position of the oldest record once the ring is full. */
  start: number;
  nextIndex: number;
}

/** Takes noisy usage samples of the jobs it listens to and keeps their recent history. */
export class Sampler {
  /** Seconds between two samples. */
  readonly periodS: number;
  private readonly seed: number;
  private readonly cpuNoise: number;
  private readonly memNoise: number;
  private readonly listened = new Set<string>();
  private readonly histories = new Map<string, History>();
  private lastAtS = -Infinity;

  constructor(
    options: SamplerOptions,
    private readonly source: TruthSource,
  ) {
    if (!(options.periodS > 0) || !Number.isFinite(options.periodS)) throw new InvariantError(`sample period ${options.periodS} s is not a positive number`);
    this.periodS = options.periodS;
    this.seed = options.seed;
    this.cpuNoise = options.cpuNoise ?? CPU_USAGE_NOISE;
    this.memNoise = options.memNoise ?? MEM_USAGE_NOISE;
  }

  /** Samples the job from the next sample on (again, if it was listened before: its history goes on). */
  listen(jobId: string): void {
    this.listened.add(jobId);
  }

  /** Ids of the jobs sampled at the next sample, in the order they were first listened. */
  listening(): string[] {
    return [...this.listened];
  }

  /** Stops sampling the job; its history stays readable until `forget`. */
  unlisten(jobId: string): void {
    this.listened.delete(jobId);
  }

  /** Stops sampling the job and drops its history. */
  forget(jobId: string): void {
    this.listened.delete(jobId);
    this.histories.delete(jobId);
  }

  /** Takes one sample of each listened job at `nowS` (never before the previous sample). */
  sampleAt(nowS: number): void {
    if (nowS < this.lastAtS) throw new InvariantError(`sample at ${nowS} s is before the last sample at ${this.lastAtS} s`);
    this.lastAtS = nowS;
    for (const jobId of this.listened) {
      let history = this.histories.get(jobId);
      if (!history) {
        history = { records: [], start: 0, nextIndex: 0 };
        this.histories.set(jobId, history);
      }
      const truth = this.source.truthOf(jobId);
      const measured = this.measure(truth, nowS, history.nextIndex++);
      // A queue's fill is read as it is (a count of buffered batches, not a noisy rate).
      const record = truth.inputQueueLevel === undefined ? measured : { ...measured, inputQueueLevel: truth.inputQueueLevel };
      if (history.records.length < SAMPLES_KEPT) {
        history.records.push(record);
      } else {
        history.records[history.start] = record;
        history.start = (history.start + 1) % SAMPLES_KEPT;
      }
    }
  }

  /** The job's last records (at most SAMPLES_KEPT), oldest first; empty when never sampled. */
  samplesOf(jobId: string): readonly UsageSample[] {
    const history = this.histories.get(jobId);
    if (!history) return [];
    return [...history.records.slice(history.start), ...history.records.slice(0, history.start)];
  }

  private measure(truth: UsageTruth, atS: number, index: number): UsageSample {
    const psJob = truth.ps === undefined ? null : psTruthOf(truth.spec);
    if (psJob !== null) return this.measurePsJob(psJob, truth, atS, index);
    const usage = trueUsage(truth.spec, truth.shape, truth.stepsPerS);
    const key = `dlsim:${this.seed}:usage:${truth.jobId}`;
    const roles = usage.roles.map((r, i): RoleUsage => {
      const roleKey = `${key}:${i}:${r.role}`;
      const demandCores = truth.shape[i]!.demand.cpuMilli / 1000;
      const cpu = r.cpuUsedCores * (1 + this.cpuNoise * keyedNormal(`${roleKey}:cpu:${index}`));
      const mem = r.memUsedMiB * (1 + this.memNoise * keyedNormal(`${roleKey}:mem:${index}`));
      return { role: r.role, replicas: r.replicas, cpuUsedCores: Math.min(demandCores, Math.max(0, cpu)), memUsedMiB: Math.max(0, mem) };
    });
    const steps = usage.stepsPerS * (1 + SPEED_NOISE * keyedNormal(`${key}:steps:${index}`));
    return { atS, stepsPerS: Math.max(0, steps), roles };
  }

  /** A sample of a job with a PS truth: each worker and each PS on its own (PS rank by rank). */
  private measurePsJob(psJob: PsTruthJob, truth: UsageTruth, atS: number, index: number): UsageSample {
    const { tasks, psRanked, steps } = truth.ps!;
    const usage = psTruthUsage(psJob.speed, psJob.truth, holdingsOf(tasks, psRanked), truth.stepsPerS, steps);
    const key = `dlsim:${this.seed}:usage:${truth.jobId}`;
    // Workers in the order of the holdings (the job's non-PS tasks), each with what its truth says it uses.
    const trainers = tasks.filter((t) => t.role !== 'ps');
    const roles = truth.shape.map((r, i): RoleUsage => {
      const roleKey = `${key}:${i}:${r.role}`;
      const perReplica: ReplicaUsage[] = [];
      const record = (task: TaskPlacement, cpuCores: number, memMiB: number): void => {
        const rank = perReplica.length;
        perReplica.push({
          cpuUsedCores: Math.min(task.demand.cpuMilli / 1000, noisy(cpuCores, this.cpuNoise, `${roleKey}:${rank}:cpu:${index}`)),
          memUsedMiB: noisy(memMiB, this.memNoise, `${roleKey}:${rank}:mem:${index}`),
          cpuHeldCores: task.demand.cpuMilli / 1000,
          memHeldMiB: task.demand.memMiB,
        });
      };
      if (r.role === 'ps') psRanked.forEach((task, rank) => record(task, usage.psCpuCores[rank]!, usage.psMemMiB[rank]!));
      else trainers.forEach((task, k) => task.role === r.role && record(task, usage.workerCpuCores[k]!, usage.workerMemMiB));
      const meanCpu = perReplica.reduce((sum, u) => sum + u.cpuUsedCores, 0) / Math.max(1, perReplica.length);
      const maxMem = perReplica.reduce((most, u) => Math.max(most, u.memUsedMiB), 0);
      return { role: r.role, replicas: r.replicas, cpuUsedCores: meanCpu, memUsedMiB: maxMem, perReplica };
    });
    return { atS, stepsPerS: noisy(truth.stepsPerS, SPEED_NOISE, `${key}:steps:${index}`), roles };
  }
}

/** A sampled value: `value` with relative normal noise of `noise`, fixed by `drawKey`, never below 0. */
function noisy(value: number, noise: number, drawKey: string): number {
  return Math.max(0, value * (1 + noise * keyedNormal(drawKey)));
}
