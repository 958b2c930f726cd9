/**
 * Dynamic data sharding of running jobs (DLRover's master, REFERENCE §2; model/data-shards.ts) on
 * the simulation's fluid progress. A job with a `data` spec trains `batchSize` samples a step; the
 * samples its progress passed since the last sync are handed to the workers it had then (the chief
 * counts), shard by shard. When a worker leaves, its shard goes back to TODO and the samples it had
 * trained of it are trained again: the job's progress goes back by them. A shard dropped after
 * more than 3 retries is skipped: the job's progress goes forward by its samples. A job ends when
 * its progress reaches its steps (its epochs at `batchSize`); its ledger is then drained.
 * Steps trained again after a rollback to a checkpoint feed no new samples (the master hands out
 * each shard once; the samples passed before the crash count as trained) [modelling choice].
 */
import type { TaskPlacement } from '../model/allocation.js';
import { DataShards } from '../model/data-shards.js';
import type { DataSpec } from '../model/job-spec.js';

/** A job's shard ledger and the workers it knows. */
export class JobShards {
  private readonly ledger: DataShards;
  private readonly names = new Map<TaskPlacement, string>();
  private nextName = 0;
  /** Samples the ledger has accounted for (trained, dropped, or partly trained by a worker). */
  private accountedSamples = 0;

  constructor(private readonly spec: DataSpec) {
    this.ledger = new DataShards(spec);
  }

  /** Shards dropped after too many retries. */
  get droppedShards(): number {
    return this.ledger.droppedShards;
  }

  /**
   * Brings the ledger up to `progressSteps` with the workers of `tasks` known so far, then has the
   * workers no longer among `tasks` leave (`died`: a crash took them; else removed) and learns the new
   * ones. Returns the change of progress in steps the shards make (negative: partial shards to
   * train again; positive: dropped shards skipped).
   */
  sync(progressSteps: number, tasks: readonly TaskPlacement[], lostWorkersDied: boolean): number {
    this.feed(progressSteps);
    const present = new Set(tasks.filter((t) => t.role !== 'ps'));
    let deltaSamples = 0;
    for (const [task, name] of this.names) {
      if (present.has(task)) continue;
      const partial = this.ledger.partialSamples(name);
      const droppedBefore = this.ledger.droppedSamples;
      this.ledger.release(name, lostWorkersDied ? 'died' : 'removed');
      this.names.delete(task);
      deltaSamples += this.ledger.droppedSamples - droppedBefore - partial;
    }
    for (const task of present) if (!this.names.has(task)) this.names.set(task, `w${this.nextName++}`);
    this.accountedSamples += deltaSamples;
    return deltaSamples / this.spec.batchSize;
  }

  /** Trains what is left when the job completes, so every sample is trained or dropped. */
  drain(): void {
    const workers = [...this.names.values()];
    const left = this.ledger.remainingSamples - this.partials();
    if (workers.length === 0 || left <= 0) return;
    this.ledger.train(workers, left);
  }

  /** Hands the samples progress passed since the last sync to the known workers. */
  private feed(progressSteps: number): void {
    const workers = [...this.names.values()];
    const due = Math.floor(progressSteps * this.spec.batchSize) - this.accountedSamples;
    if (due <= 0 || workers.length === 0) return;
    this.accountedSamples += this.ledger.train(workers, due);
  }

  private partials(): number {
    let sum = 0;
    for (const name of this.names.values()) sum += this.ledger.partialSamples(name);
    return sum;
  }
}
