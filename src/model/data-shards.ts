import FastPriorityQueue from 'fastpriorityqueue';
import { InvariantError } from '../errors.js';
import type { DataSpec } from './job-spec.js';

/** DLRover's cap on the shards of an epoch made at once; a larger epoch is handed out in parts of this many shards. */
export const MAX_SHARDS_PER_PART = 50_000;

/** DLRover's retry limit: a shard is dropped on the failure that takes its retries above it. */
export const MAX_SHARD_RETRIES = 3;

/** A shard: the samples [start, end) of one epoch, and how often it failed since it was made or restored. */
export interface Shard {
  /** Epoch index, from 0. */
  readonly epoch: number;
  /** First sample index within the epoch. */
  readonly start: number;
  /** One past the last sample index within the epoch. */
  readonly end: number;
  /** Failures so far (a dead worker's shard counts as failed; a removed worker's does not). */
  readonly retries: number;
}

/** How a shard left the service for good: its samples trained, or dropped after too many failures. */
export type ShardOutcome = 'trained' | 'dropped';

/** What became of a shard handed back: at the tail of TODO again, or dropped. */
export type ShardFate = 'requeued' | 'dropped';

/** Why a worker left: a planned scale-down (`removed`) or a crash (`died`, counted as the shard failing). */
export type ReleaseCause = 'removed' | 'died';

/** Tuning of a DataShards; every field defaults to DLRover's value. */
export interface DataShardsOptions {
  /** Failures a shard survives; the next one drops it (default MAX_SHARD_RETRIES). */
  readonly maxRetries?: number;
  /** Shards per part of an epoch, made only when TODO runs empty (default MAX_SHARDS_PER_PART). */
  readonly maxShardsPerPart?: number;
  /** Called as each shard is trained or dropped, in that order (for tracing and tests). */
  readonly onSettled?: (shard: Shard, outcome: ShardOutcome) => void;
}

/** Why a data spec cannot be sharded (a phrase naming the field), or null when it can; for validators to wrap with a location. */
export function dataSpecProblem(spec: DataSpec): string | null {
  for (const field of ['samplesPerEpoch', 'epochs', 'batchSize', 'minibatchesPerShard'] as const) {
    const value = spec[field];
    if (!Number.isSafeInteger(value) || value < 1) return `${field} must be a whole number of at least 1, not ${value}`;
  }
  if (!Number.isSafeInteger(spec.samplesPerEpoch * spec.epochs)) return 'samplesPerEpoch x epochs is too large';
  if (!Number.isSafeInteger(spec.batchSize * spec.minibatchesPerShard)) return 'batchSize x minibatchesPerShard is too large';
  return null;
}

/** A FIFO of shards: an array read from `head`, compacted when the read part dominates. */
class ShardFifo {
  private items: Shard[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(shard: Shard): void {
    this.items.push(shard);
  }

  shift(): Shard | undefined {
    if (this.head >= this.items.length) return undefined;
    const shard = this.items[this.head++]!;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return shard;
  }

  /** The queued shards, head first. */
  *values(): Generator<Shard> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }

  /** Replaces the contents with `shards` (head first). */
  reset(shards: Shard[]): void {
    this.items = shards;
    this.head = 0;
  }
}

/** A worker's DOING shard and the samples of it trained so far. */
interface Holding {
  readonly shard: Shard;
  partialSamples: number;
}

/** A worker waiting in `train` for a shard once it has trained `atSamples` of its share; `order` is its place in the list. */
interface Need {
  readonly atSamples: number;
  readonly order: number;
}

/**
 * dlsim's model of the DLRover master's dynamic data sharding (REFERENCE §2): a shard is `batchSize`
 * x `minibatchesPerShard` samples (the last of an epoch may be short); epochs are handed out in order.
 *
 * TODO, head first, is: shards put back by `restore`, then the unhanded shards of the current part
 * of an epoch (kept as an index range, never as objects), then shards handed back by a failure or a
 * departed worker in the order they came back. As in DLRover, the next part (the next epoch when an
 * epoch is one part) is made only when all of that is empty, so a shard handed back waits behind the
 * rest of its part but ahead of later parts and epochs; an epoch of more than `maxShardsPerPart`
 * shards is made in parts of that many. Memory is O(workers + shards handed back), whatever the
 * dataset's size. DOING maps each worker to at most one shard, in the order the shards were taken.
 */
export class DataShards {
  /** Samples in a full shard. */
  readonly shardSamples: number;
  /** Shards in one epoch (the last may be short). */
  readonly shardsPerEpoch: number;
  /** Parts an epoch is made in (1 unless it has more than maxShardsPerPart shards). */
  readonly partsPerEpoch: number;
  /** Samples over all epochs. */
  readonly totalSamples: number;
  private readonly maxRetries: number;
  private readonly maxShardsPerPart: number;
  private readonly onSettled: ((shard: Shard, outcome: ShardOutcome) => void) | undefined;

  private readonly restored = new ShardFifo();
  private readonly returned = new ShardFifo();
  /** The current part: its epoch, the next shard index to hand out and one past its last. */
  private freshEpoch = 0;
  private freshNext = 0;
  private freshEnd = 0;
  /** Parts made so far, over all epochs (the next part's global index). */
  private partsMade = 0;
  private readonly holdings = new Map<string, Holding>();
  private trained = 0;
  private dropped = 0;
  private droppedCount = 0;

  /** Throws InvariantError for a spec or option that cannot be sharded (validate user input first, see dataSpecProblem). */
  constructor(
    readonly spec: DataSpec,
    options: DataShardsOptions = {},
  ) {
    const problem = dataSpecProblem(spec);
    if (problem !== null) throw new InvariantError(`data shards: ${problem}`);
    this.maxRetries = options.maxRetries ?? MAX_SHARD_RETRIES;
    this.maxShardsPerPart = options.maxShardsPerPart ?? MAX_SHARDS_PER_PART;
    if (!Number.isSafeInteger(this.maxRetries) || this.maxRetries < 0) {
      throw new InvariantError(`data shards: maxRetries must be a whole number of at least 0, not ${this.maxRetries}`);
    }
    if (!Number.isSafeInteger(this.maxShardsPerPart) || this.maxShardsPerPart < 1) {
      throw new InvariantError(`data shards: maxShardsPerPart must be a whole number of at least 1, not ${this.maxShardsPerPart}`);
    }
    this.onSettled = options.onSettled;
    this.shardSamples = spec.batchSize * spec.minibatchesPerShard;
    this.shardsPerEpoch = Math.ceil(spec.samplesPerEpoch / this.shardSamples);
    this.partsPerEpoch = Math.ceil(this.shardsPerEpoch / this.maxShardsPerPart);
    this.totalSamples = spec.samplesPerEpoch * spec.epochs;
  }

  /** Hands the worker the head of TODO (now DOING), or null when TODO is empty; InvariantError if it already holds one. */
  take(worker: string): Shard | null {
    if (this.holdings.has(worker)) throw new InvariantError(`data shards: worker ${worker} already holds a shard`);
    const shard = this.nextTodo();
    if (shard) this.holdings.set(worker, { shard, partialSamples: 0 });
    return shard;
  }

  /** The worker's DOING shard is trained: its samples count as trained. InvariantError if it holds none. */
  complete(worker: string): void {
    this.settleTrained(this.leave(worker, 'complete'));
  }

  /** The worker's DOING shard failed: back to the tail of TODO with one more retry, or dropped past maxRetries. */
  fail(worker: string): ShardFate {
    return this.handBack(this.leave(worker, 'fail'), true);
  }

  /**
   * The worker left: its DOING shard, if any, goes back whole to the tail of TODO; `died` counts as
   * the shard failing (it may be dropped), `removed` does not. Null when it held no shard.
   */
  release(worker: string, cause: ReleaseCause): ShardFate | null {
    const holding = this.holdings.get(worker);
    if (!holding) return null;
    this.holdings.delete(worker);
    return this.handBack(holding.shard, cause === 'died');
  }

  /**
   * Training restarted from a checkpoint: every DOING shard goes back whole to the head of TODO, in
   * the order they were taken, ahead of the rest of TODO (DLRover restores `doing + todo`). As
   * DLRover's shard checkpoint keeps only sample ranges, every shard in TODO starts again at 0 retries.
   */
  restore(): void {
    const back: Shard[] = [];
    for (const holding of this.holdings.values()) back.push(withRetries(holding.shard, 0));
    this.holdings.clear();
    for (const shard of this.restored.values()) back.push(withRetries(shard, 0));
    this.restored.reset(back);
    this.returned.reset([...this.returned.values()].map((shard) => withRetries(shard, 0)));
  }

  /**
   * The listed workers train `samples` (a whole number) more samples together, in bulk. Each gets
   * floor(samples / n); the first `samples mod n` in list order get one more. All train at the same
   * rate: each finishes its DOING shard (taking one first if it holds none), then takes the next
   * from TODO, and so on; when several need a shard at the same point, the one listed first takes
   * first. What is left of a share when its shard is unfinished stays as that worker's partial
   * progress; a worker whose share ends exactly with a shard takes no new one. When TODO runs empty
   * the rest of every share is unused. Returns the samples used (trained into shards, partials
   * included). Cost: O((shards completed + workers) x log workers).
   */
  train(workers: readonly string[], samples: number): number {
    if (!Number.isSafeInteger(samples) || samples < 0) throw new InvariantError(`data shards: cannot train ${samples} samples`);
    if (new Set(workers).size !== workers.length) throw new InvariantError(`data shards: a worker is listed twice in ${workers.join(',')}`);
    if (samples === 0) return 0;
    if (workers.length === 0) throw new InvariantError(`data shards: ${samples} samples to train but no workers`);
    const count = workers.length;
    const base = Math.floor(samples / count);
    const extra = samples % count;
    const shareOf = (order: number): number => base + (order < extra ? 1 : 0);
    const needs = new FastPriorityQueue<Need>((a, b) => a.atSamples < b.atSamples || (a.atSamples === b.atSamples && a.order < b.order));
    let used = 0;
    for (let order = 0; order < count; order++) {
      const share = shareOf(order);
      if (share === 0) continue;
      const worker = workers[order]!;
      const holding = this.holdings.get(worker);
      if (!holding) {
        needs.add({ atSamples: 0, order });
        continue;
      }
      const left = holding.shard.end - holding.shard.start - holding.partialSamples;
      if (left > share) {
        holding.partialSamples += share;
        used += share;
        continue;
      }
      used += left;
      this.holdings.delete(worker);
      this.settleTrained(holding.shard);
      if (left < share) needs.add({ atSamples: left, order });
    }
    for (let need = needs.poll(); need; need = needs.poll()) {
      const worker = workers[need.order]!;
      const shard = this.take(worker);
      if (!shard) break; // nothing hands a shard back during train, so TODO stays empty for the others too
      const budget = shareOf(need.order) - need.atSamples;
      const size = shard.end - shard.start;
      if (size > budget) {
        this.holdings.get(worker)!.partialSamples = budget;
        used += budget;
        continue;
      }
      used += size;
      this.holdings.delete(worker);
      this.settleTrained(shard);
      if (size < budget) needs.add({ atSamples: need.atSamples + size, order: need.order });
    }
    return used;
  }

  /** The worker's DOING shard, or null. */
  doingOf(worker: string): Shard | null {
    return this.holdings.get(worker)?.shard ?? null;
  }

  /** Samples of the worker's DOING shard trained so far (0 without one). */
  partialSamples(worker: string): number {
    return this.holdings.get(worker)?.partialSamples ?? 0;
  }

  /** DOING as [worker, shard] pairs, in the order the shards were taken. */
  *doing(): Generator<[string, Shard]> {
    for (const [worker, holding] of this.holdings) yield [worker, holding.shard];
  }

  /** Every shard in TODO, head first, later parts and epochs included; O(TODO) to walk, for inspection and tests. */
  *todo(): Generator<Shard> {
    yield* this.restored.values();
    for (let index = this.freshNext; index < this.freshEnd; index++) yield this.shardAt(this.freshEpoch, index);
    yield* this.returned.values();
    for (let part = this.partsMade; part < this.spec.epochs * this.partsPerEpoch; part++) {
      const [epoch, first, end] = this.partRange(part);
      for (let index = first; index < end; index++) yield this.shardAt(epoch, index);
    }
  }

  /** True when every sample of every epoch is trained or dropped. */
  get done(): boolean {
    return this.remainingSamples === 0;
  }

  /** Samples of the shards trained so far. */
  get trainedSamples(): number {
    return this.trained;
  }

  /** Samples of the shards dropped after too many failures. */
  get droppedSamples(): number {
    return this.dropped;
  }

  /** Shards dropped after too many failures. */
  get droppedShards(): number {
    return this.droppedCount;
  }

  /** Shards waiting in TODO, the parts and epochs not made yet included. */
  get todoShards(): number {
    const made = this.restored.length + (this.freshEnd - this.freshNext) + this.returned.length;
    return made + this.shardsFromPart(this.partsMade);
  }

  /** Shards in TODO held as objects: those put back by restore or handed back (the current part is a range). */
  get heldTodoShards(): number {
    return this.restored.length + this.returned.length;
  }

  /** Shards in DOING (one per worker at most). */
  get doingShards(): number {
    return this.holdings.size;
  }

  /** Index of the epoch being handed out: that of the last part made (0 before any); `epochs` once done. */
  get epoch(): number {
    if (this.done) return this.spec.epochs;
    return this.partsMade === 0 ? 0 : Math.floor((this.partsMade - 1) / this.partsPerEpoch);
  }

  /** Samples neither trained nor dropped (DOING partials count as not trained). */
  get remainingSamples(): number {
    return this.totalSamples - this.trained - this.dropped;
  }

  /** The head of TODO, removed; makes the next part when TODO is empty; null when no part is left. */
  private nextTodo(): Shard | null {
    for (;;) {
      const restored = this.restored.shift();
      if (restored) return restored;
      if (this.freshNext < this.freshEnd) return this.shardAt(this.freshEpoch, this.freshNext++);
      const returned = this.returned.shift();
      if (returned) return returned;
      if (this.partsMade >= this.spec.epochs * this.partsPerEpoch) return null;
      [this.freshEpoch, this.freshNext, this.freshEnd] = this.partRange(this.partsMade++);
    }
  }

  /** A part's epoch and its shard indices [first, end) within the epoch. */
  private partRange(part: number): [number, number, number] {
    const epoch = Math.floor(part / this.partsPerEpoch);
    const first = (part % this.partsPerEpoch) * this.maxShardsPerPart;
    return [epoch, first, Math.min(first + this.maxShardsPerPart, this.shardsPerEpoch)];
  }

  /** Shards in the parts from global index `part` on. */
  private shardsFromPart(part: number): number {
    const parts = this.spec.epochs * this.partsPerEpoch;
    if (part >= parts) return 0;
    const epoch = Math.floor(part / this.partsPerEpoch);
    const inEpoch = this.shardsPerEpoch - (part % this.partsPerEpoch) * this.maxShardsPerPart;
    return inEpoch + (this.spec.epochs - epoch - 1) * this.shardsPerEpoch;
  }

  /** The fresh shard `index` of an epoch. */
  private shardAt(epoch: number, index: number): Shard {
    const start = index * this.shardSamples;
    return { epoch, start, end: Math.min(start + this.shardSamples, this.spec.samplesPerEpoch), retries: 0 };
  }

  /** Takes the worker's DOING shard out of DOING; InvariantError if it holds none. */
  private leave(worker: string, what: string): Shard {
    const holding = this.holdings.get(worker);
    if (!holding) throw new InvariantError(`data shards: cannot ${what} for worker ${worker}: it holds no shard`);
    this.holdings.delete(worker);
    return holding.shard;
  }

  /** Counts a shard as trained. */
  private settleTrained(shard: Shard): void {
    this.trained += shard.end - shard.start;
    this.onSettled?.(shard, 'trained');
  }

  /** Puts a shard back at the tail of TODO; a failed one gains a retry and is dropped past maxRetries. */
  private handBack(shard: Shard, failed: boolean): ShardFate {
    if (!failed) {
      this.returned.push(shard);
      return 'requeued';
    }
    const retried = withRetries(shard, shard.retries + 1);
    if (retried.retries <= this.maxRetries) {
      this.returned.push(retried);
      return 'requeued';
    }
    this.dropped += shard.end - shard.start;
    this.droppedCount++;
    this.onSettled?.(retried, 'dropped');
    return 'dropped';
  }
}

/** The shard with its retry count set. */
function withRetries(shard: Shard, retries: number): Shard {
  return shard.retries === retries ? shard : { ...shard, retries };
}
