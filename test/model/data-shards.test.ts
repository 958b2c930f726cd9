import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import { DataShards, MAX_SHARD_RETRIES, MAX_SHARDS_PER_PART, dataSpecProblem, type Shard, type ShardOutcome } from '../../src/model/data-shards.js';
import type { DataSpec } from '../../src/model/job-spec.js';

const spec = (samplesPerEpoch: number, epochs = 1, batchSize = 2, minibatchesPerShard = 5): DataSpec => ({
  samplesPerEpoch,
  epochs,
  batchSize,
  minibatchesPerShard,
});

/** A shard as [epoch, start, end] (retries left out). */
const range = (shard: Shard | null): [number, number, number] | null => (shard ? [shard.epoch, shard.start, shard.end] : null);

describe('DataShards sizes', () => {
  it('cuts an epoch into batch x minibatches shards, the last one short', () => {
    const shards = new DataShards(spec(25)); // 10-sample shards
    expect(shards.shardSamples).toBe(10);
    expect(shards.shardsPerEpoch).toBe(3);
    expect(shards.todoShards).toBe(3);
    expect([...shards.todo()].map(range)).toEqual([
      [0, 0, 10],
      [0, 10, 20],
      [0, 20, 25],
    ]);
    expect(range(shards.take('a'))).toEqual([0, 0, 10]);
    expect(range(shards.take('b'))).toEqual([0, 10, 20]);
    expect(range(shards.take('c'))).toEqual([0, 20, 25]);
    expect(shards.take('d')).toBeNull();
  });

  it('hands epochs out in order and ends when all are trained', () => {
    const shards = new DataShards(spec(20, 2));
    const seen: (number[] | null)[] = [];
    expect(shards.epoch).toBe(0);
    for (let i = 0; i < 4; i++) {
      seen.push(range(shards.take('w')));
      expect(shards.done).toBe(false);
      shards.complete('w');
    }
    expect(seen).toEqual([
      [0, 0, 10],
      [0, 10, 20],
      [1, 0, 10],
      [1, 10, 20],
    ]);
    expect(shards.done).toBe(true);
    expect(shards.epoch).toBe(2);
    expect(shards.trainedSamples).toBe(40);
    expect(shards.remainingSamples).toBe(0);
    expect(shards.take('w')).toBeNull();
  });

  it('uses DLRover defaults: 3 retries, 50,000 shards a part', () => {
    expect(MAX_SHARD_RETRIES).toBe(3);
    expect(MAX_SHARDS_PER_PART).toBe(50_000);
    const shards = new DataShards(spec(10 * 120_000)); // 120,000 shards: three parts
    expect(shards.partsPerEpoch).toBe(3);
  });
});

describe('DataShards TODO and DOING', () => {
  it('is a FIFO and a worker holds one shard at a time', () => {
    const shards = new DataShards(spec(50));
    expect(range(shards.take('a'))).toEqual([0, 0, 10]);
    expect(() => shards.take('a')).toThrow(InvariantError);
    expect(range(shards.take('b'))).toEqual([0, 10, 20]);
    expect(shards.doingShards).toBe(2);
    expect(shards.todoShards).toBe(3);
    expect([...shards.doing()].map(([worker, shard]) => [worker, shard.start])).toEqual([
      ['a', 0],
      ['b', 10],
    ]);
    shards.complete('a');
    expect(shards.doingOf('a')).toBeNull();
    expect(range(shards.doingOf('b'))).toEqual([0, 10, 20]);
    expect(range(shards.take('a'))).toEqual([0, 20, 30]);
  });

  it('returns null when every remaining shard is DOING, not done', () => {
    const shards = new DataShards(spec(20));
    shards.take('a');
    shards.take('b');
    expect(shards.take('c')).toBeNull();
    expect(shards.done).toBe(false);
    expect(shards.remainingSamples).toBe(20);
  });

  it('puts a failed shard at the tail of TODO with one more retry, and drops it on the failure past 3', () => {
    const settled: [number, ShardOutcome, number][] = [];
    const shards = new DataShards(spec(30), { onSettled: (shard, outcome) => settled.push([shard.start, outcome, shard.retries]) });
    shards.take('a');
    expect(shards.fail('a')).toBe('requeued');
    expect([...shards.todo()].map((shard) => [shard.start, shard.retries])).toEqual([
      [10, 0],
      [20, 0],
      [0, 1],
    ]);
    shards.take('b');
    shards.complete('b');
    shards.take('b');
    shards.complete('b');
    for (let retries = 1; retries <= 2; retries++) {
      const shard = shards.take('a')!;
      expect([shard.start, shard.retries]).toEqual([0, retries]);
      expect(shards.fail('a')).toBe('requeued');
    }
    expect(shards.take('a')!.retries).toBe(3);
    expect(shards.fail('a')).toBe('dropped');
    expect(shards.droppedShards).toBe(1);
    expect(shards.droppedSamples).toBe(10);
    expect(shards.trainedSamples).toBe(20);
    expect(shards.done).toBe(true);
    expect(settled).toEqual([
      [10, 'trained', 0],
      [20, 'trained', 0],
      [0, 'dropped', 4],
    ]);
  });

  it('honours another retry limit: 0 drops on the first failure', () => {
    const shards = new DataShards(spec(10), { maxRetries: 0 });
    shards.take('a');
    expect(shards.fail('a')).toBe('dropped');
    expect(shards.done).toBe(true);
  });

  it('takes a removed worker\'s shard back without a retry, a dead one\'s with one', () => {
    const shards = new DataShards(spec(30), { maxRetries: 1 });
    shards.take('a');
    shards.take('b');
    expect(shards.release('a', 'removed')).toBe('requeued');
    expect(shards.release('b', 'died')).toBe('requeued');
    expect(shards.release('c', 'died')).toBeNull();
    expect([...shards.todo()].map((shard) => [shard.start, shard.retries])).toEqual([
      [20, 0],
      [0, 0],
      [10, 1],
    ]);
    shards.take('x'); // 20
    shards.take('y'); // 0
    shards.take('z'); // 10, one retry already
    expect(shards.release('y', 'removed')).toBe('requeued');
    expect(shards.release('z', 'died')).toBe('dropped');
    expect(shards.droppedSamples).toBe(10);
    expect(shards.doingShards).toBe(1);
  });

  it('restore puts DOING back at the head of TODO in take order, with retries reset, and forgets partials', () => {
    const shards = new DataShards(spec(60), { maxRetries: 5 });
    shards.take('a'); // 0
    shards.fail('a'); // 0 to the tail, 1 retry
    shards.take('b'); // 10
    shards.take('c'); // 20
    shards.train(['b'], 4);
    expect(shards.partialSamples('b')).toBe(4);
    shards.restore();
    expect(shards.doingShards).toBe(0);
    expect(shards.partialSamples('b')).toBe(0);
    expect([...shards.todo()].map((shard) => [shard.start, shard.retries])).toEqual([
      [10, 0],
      [20, 0],
      [30, 0],
      [40, 0],
      [50, 0],
      [0, 0],
    ]);
    expect(shards.todoShards).toBe(6);
    expect(shards.remainingSamples).toBe(60);
    expect(shards.take('c')!.start).toBe(10);
  });

  it('a second restore keeps the first one\'s shards behind the new DOING', () => {
    const shards = new DataShards(spec(40));
    shards.take('a'); // 0
    shards.take('b'); // 10
    shards.restore(); // TODO 0 10 20 30
    shards.take('a'); // 0
    shards.restore(); // TODO 0 10 20 30
    expect([...shards.todo()].map((shard) => shard.start)).toEqual([0, 10, 20, 30]);
    shards.take('a'); // 0
    shards.take('b'); // 10
    shards.complete('a');
    shards.restore(); // TODO 10 20 30
    expect([...shards.todo()].map((shard) => shard.start)).toEqual([10, 20, 30]);
  });

  it('rejects completing or failing for a worker that holds nothing', () => {
    const shards = new DataShards(spec(10));
    expect(() => shards.complete('a')).toThrow(/worker a.*holds no shard/);
    expect(() => shards.fail('a')).toThrow(InvariantError);
  });
});

describe('DataShards parts above maxShardsPerPart', () => {
  it('makes an epoch part by part, and a shard handed back waits behind its part but ahead of the next', () => {
    const shards = new DataShards(spec(55, 2), { maxShardsPerPart: 2 }); // 6 shards an epoch: parts of 2, 2, 2
    expect(shards.partsPerEpoch).toBe(3);
    expect(shards.todoShards).toBe(12);
    shards.take('a'); // 0
    shards.take('b'); // 10
    expect(shards.fail('a')).toBe('requeued');
    expect(range(shards.take('a'))).toEqual([0, 0, 10]); // the part is empty but for the failed shard
    expect(range(shards.take('c'))).toEqual([0, 20, 30]); // the next part is made only now
    expect(shards.release('b', 'removed')).toBe('requeued');
    expect(range(shards.take('b'))).toEqual([0, 30, 40]);
    expect(range(shards.take('d'))).toEqual([0, 10, 20]);
    expect(shards.todoShards).toBe(8);
    const rest: number[][] = [];
    for (const worker of ['a', 'b', 'c', 'd']) shards.complete(worker);
    for (let shard = shards.take('a'); shard; shard = shards.take('a')) {
      rest.push(range(shard)!);
      shards.complete('a');
    }
    expect(rest).toEqual([
      [0, 40, 50],
      [0, 50, 55],
      [1, 0, 10],
      [1, 10, 20],
      [1, 20, 30],
      [1, 30, 40],
      [1, 40, 50],
      [1, 50, 55],
    ]);
    expect(shards.done).toBe(true);
    expect(shards.trainedSamples).toBe(110);
  });

  it('reports the epoch of the part being handed out', () => {
    const shards = new DataShards(spec(40, 3), { maxShardsPerPart: 3 }); // 4 shards: parts of 3 and 1
    const epochs: number[] = [];
    for (let shard = shards.take('a'); shard; shard = shards.take('a')) {
      epochs.push(shards.epoch);
      expect(shard.epoch).toBe(shards.epoch);
      shards.complete('a');
    }
    expect(epochs).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
  });

  it('keeps memory bounded for 10^9 samples: no shard objects for the untouched data', () => {
    const shards = new DataShards({ samplesPerEpoch: 1e9, epochs: 100, batchSize: 1, minibatchesPerShard: 1 });
    expect(shards.todoShards).toBe(1e11);
    shards.take('a');
    shards.fail('a');
    const used = shards.train(['a', 'b', 'c'], 3_000);
    expect(used).toBe(3_000);
    expect(shards.trainedSamples).toBe(3_000);
    expect(shards.heldTodoShards).toBe(1); // the failed shard, behind the first part's 50,000
    expect(shards.todoShards).toBe(1e11 - 3_000);
    expect(shards.doingShards).toBe(0); // with 1-sample shards every share ends with a shard
    expect(shards.remainingSamples).toBe(1e11 - 3_000);
  });
});

describe('DataShards.train (fluid)', () => {
  it('shares samples evenly, the first listed workers taking the remainder, and keeps partials per worker', () => {
    const shards = new DataShards(spec(100)); // 10 shards of 10
    expect(shards.train(['a', 'b', 'c'], 17)).toBe(17); // shares 6, 6, 5
    expect([...shards.doing()].map(([worker, shard]) => [worker, shard.start, shards.partialSamples(worker)])).toEqual([
      ['a', 0, 6],
      ['b', 10, 6],
      ['c', 20, 5],
    ]);
    expect(shards.trainedSamples).toBe(0);
    expect(shards.remainingSamples).toBe(100);
    // shares 5 (c), 5 (a), 4 (b): c and b end exactly with their shards and take none; a ends at 4 and takes 30
    expect(shards.train(['c', 'a', 'b'], 14)).toBe(14);
    expect(shards.trainedSamples).toBe(30);
    expect(shards.doingOf('c')).toBeNull();
    expect(shards.doingOf('b')).toBeNull();
    expect(range(shards.doingOf('a'))).toEqual([0, 30, 40]);
    expect(shards.partialSamples('a')).toBe(1);
    expect(shards.remainingSamples).toBe(70);
  });

  it('hands shards out in the order workers run out, ties in list order', () => {
    const shards = new DataShards(spec(100));
    shards.take('b'); // 0
    shards.train(['b'], 7);
    // a needs a shard at 0, b at 3; with 25 each: a takes 10 (0), b 20 (3), a 30 (10), b 40 (13), a 50 (20), b 60 (23)
    shards.train(['a', 'b'], 50);
    expect(shards.trainedSamples).toBe(50);
    expect(range(shards.doingOf('a'))).toEqual([0, 50, 60]);
    expect(shards.partialSamples('a')).toBe(5);
    expect(range(shards.doingOf('b'))).toEqual([0, 60, 70]);
    expect(shards.partialSamples('b')).toBe(2);
  });

  it('stops when TODO runs dry and returns the samples used', () => {
    const shards = new DataShards(spec(25, 1));
    expect(shards.train(['a', 'b'], 100)).toBe(25);
    expect(shards.done).toBe(true);
    expect(shards.doingShards).toBe(0);
    expect(shards.train(['a'], 5)).toBe(0);
  });

  it('loses a released or failed worker\'s partial progress: its shard goes back whole', () => {
    const shards = new DataShards(spec(30));
    shards.train(['a', 'b'], 16);
    expect(shards.partialSamples('a')).toBe(8);
    shards.release('a', 'died');
    shards.fail('b');
    expect(shards.partialSamples('a')).toBe(0);
    expect(shards.partialSamples('b')).toBe(0);
    expect(shards.remainingSamples).toBe(30);
    expect([...shards.todo()].map((shard) => [shard.start, shard.end, shard.retries])).toEqual([
      [20, 30, 0],
      [0, 10, 1],
      [10, 20, 1],
    ]);
    shards.train(['c'], 30);
    expect(shards.done).toBe(true);
  });

  it('a worker with a zero share takes nothing, and zero samples change nothing', () => {
    const shards = new DataShards(spec(30));
    shards.train(['a', 'b', 'c'], 2);
    expect(shards.doingOf('c')).toBeNull();
    expect(shards.doingShards).toBe(2);
    expect(shards.train([], 0)).toBe(0);
    expect(shards.doingShards).toBe(2);
  });

  it('completing a shard trained in part counts all of its samples', () => {
    const shards = new DataShards(spec(30));
    shards.train(['a'], 3);
    shards.complete('a');
    expect(shards.trainedSamples).toBe(10);
  });

  it('rejects bad amounts and worker lists', () => {
    const shards = new DataShards(spec(30));
    expect(() => shards.train(['a'], -1)).toThrow(InvariantError);
    expect(() => shards.train(['a'], 1.5)).toThrow(/cannot train 1.5 samples/);
    expect(() => shards.train(['a', 'a'], 4)).toThrow(/listed twice/);
    expect(() => shards.train([], 4)).toThrow(/no workers/);
  });
});

describe('DataShards bad inputs', () => {
  it.each<[Partial<DataSpec>, RegExp]>([
    [{ samplesPerEpoch: 0 }, /samplesPerEpoch must be a whole number of at least 1, not 0/],
    [{ epochs: 1.5 }, /epochs must be/],
    [{ batchSize: -2 }, /batchSize must be/],
    [{ minibatchesPerShard: Number.NaN }, /minibatchesPerShard must be/],
    [{ samplesPerEpoch: 2 ** 40, epochs: 2 ** 20 }, /samplesPerEpoch x epochs is too large/],
  ])('rejects %j', (change, message) => {
    const bad = { ...spec(10), ...change };
    expect(dataSpecProblem(bad)).toMatch(message);
    expect(() => new DataShards(bad)).toThrow(InvariantError);
  });

  it('accepts a good spec and rejects bad options', () => {
    expect(dataSpecProblem(spec(10))).toBeNull();
    expect(() => new DataShards(spec(10), { maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new DataShards(spec(10), { maxShardsPerPart: 0 })).toThrow(/maxShardsPerPart/);
  });
});
