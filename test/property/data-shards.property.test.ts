import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import { DataShards, MAX_SHARD_RETRIES, type ReleaseCause, type Shard, type ShardOutcome } from '../../src/model/data-shards.js';
import type { DataSpec } from '../../src/model/job-spec.js';

const WORKERS = ['w0', 'w1', 'w2', 'w3'] as const;
const workerArb = fc.constantFrom(...WORKERS);

const specArb: fc.Arbitrary<DataSpec> = fc.record({
  samplesPerEpoch: fc.integer({ min: 1, max: 60 }),
  epochs: fc.integer({ min: 1, max: 3 }),
  batchSize: fc.integer({ min: 1, max: 4 }),
  minibatchesPerShard: fc.integer({ min: 1, max: 3 }),
});

const optionsArb = fc.record(
  { maxRetries: fc.integer({ min: 0, max: 3 }), maxShardsPerPart: fc.integer({ min: 1, max: 6 }) },
  { requiredKeys: [] },
);

type Op =
  | { readonly kind: 'take' | 'complete' | 'fail'; readonly worker: string }
  | { readonly kind: 'release'; readonly worker: string; readonly cause: ReleaseCause }
  | { readonly kind: 'restore' }
  | { readonly kind: 'train'; readonly workers: readonly string[]; readonly samples: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('take' as const), worker: workerArb }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('complete' as const), worker: workerArb }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('fail' as const), worker: workerArb }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant('release' as const), worker: workerArb, cause: fc.constantFrom<ReleaseCause>('removed', 'died') }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'restore' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('train' as const),
      workers: fc.shuffledSubarray([...WORKERS, 'w4']),
      samples: fc.integer({ min: 0, max: 40 }),
    }),
    weight: 4,
  },
);

const key = (shard: Shard): string => `${shard.epoch}:${shard.start}`;

/**
 * The test's own record of what happened, built only from what the class hands out (shards taken,
 * the shards it reports settled, the fates it returns) and from the test's count of each shard's
 * failures, never from the class's counters.
 */
class Reference {
  /** How often each sample (epoch x samplesPerEpoch + index) was trained or dropped. */
  readonly settledTimes: Uint8Array;
  trained = 0;
  dropped = 0;
  droppedShards = 0;
  /** Failures of each shard since the last restore, by key. */
  readonly failures = new Map<string, number>();

  constructor(
    readonly spec: DataSpec,
    readonly maxRetries: number,
  ) {
    this.settledTimes = new Uint8Array(spec.samplesPerEpoch * spec.epochs);
  }

  settle(shard: Shard, outcome: ShardOutcome): void {
    for (let sample = shard.start; sample < shard.end; sample++) {
      const at = shard.epoch * this.spec.samplesPerEpoch + sample;
      expect(this.settledTimes[at], `sample ${sample} of epoch ${shard.epoch} settled twice`).toBe(0);
      this.settledTimes[at] = 1;
    }
    if (outcome === 'trained') this.trained += shard.end - shard.start;
    else {
      this.dropped += shard.end - shard.start;
      this.droppedShards++;
    }
  }

  /** Counts a failure of the shard; the fate it must meet. */
  failed(shard: Shard): 'requeued' | 'dropped' {
    const failures = (this.failures.get(key(shard)) ?? 0) + 1;
    this.failures.set(key(shard), failures);
    return failures > this.maxRetries ? 'dropped' : 'requeued';
  }

  /** Whether no sample of the shard is settled yet. */
  unsettled(shard: Shard): boolean {
    const base = shard.epoch * this.spec.samplesPerEpoch;
    for (let sample = shard.start; sample < shard.end; sample++) if (this.settledTimes[base + sample] !== 0) return false;
    return true;
  }
}

/** Checks a shard handed out is one of the spec's: aligned, of full size but for an epoch's last. */
function expectWellFormed(shard: Shard, spec: DataSpec): void {
  const shardSamples = spec.batchSize * spec.minibatchesPerShard;
  expect(shard.start % shardSamples).toBe(0);
  expect(shard.end).toBe(Math.min(shard.start + shardSamples, spec.samplesPerEpoch));
  expect(shard.epoch).toBeGreaterThanOrEqual(0);
  expect(shard.epoch).toBeLessThan(spec.epochs);
}

/** Every structural invariant and counter against the reference. */
function expectConsistent(shards: DataShards, reference: Reference): void {
  const doing = [...shards.doing()];
  const todo = [...shards.todo()];
  const seen = new Set<string>();
  let pendingSamples = 0;
  for (const shard of [...doing.map(([, shard]) => shard), ...todo]) {
    expect(seen.has(key(shard)), `shard ${key(shard)} twice in TODO and DOING`).toBe(false);
    seen.add(key(shard));
    expectWellFormed(shard, reference.spec);
    expect(reference.unsettled(shard), `shard ${key(shard)} pending but settled`).toBe(true);
    expect(shard.retries).toBe(reference.failures.get(key(shard)) ?? 0);
    pendingSamples += shard.end - shard.start;
  }
  expect(new Set(doing.map(([worker]) => worker)).size).toBe(doing.length);
  for (const [worker, shard] of doing) expect(shards.partialSamples(worker)).toBeLessThan(shard.end - shard.start);
  // TODO, DOING and the settled samples partition the data: disjoint above, and their sizes add up.
  const total = reference.spec.samplesPerEpoch * reference.spec.epochs;
  expect(pendingSamples + reference.trained + reference.dropped).toBe(total);
  expect(shards.doingShards).toBe(doing.length);
  expect(shards.todoShards).toBe(todo.length);
  expect(shards.trainedSamples).toBe(reference.trained);
  expect(shards.droppedSamples).toBe(reference.dropped);
  expect(shards.droppedShards).toBe(reference.droppedShards);
  expect(shards.remainingSamples).toBe(total - reference.trained - reference.dropped);
  expect(shards.done).toBe(pendingSamples === 0);
}

/** Samples trained so far, partial progress on DOING shards included. */
function progress(shards: DataShards, reference: Reference): number {
  let partial = 0;
  for (const [worker] of shards.doing()) partial += shards.partialSamples(worker);
  return reference.trained + partial;
}

function apply(op: Op, shards: DataShards, reference: Reference): void {
  switch (op.kind) {
    case 'take': {
      if (shards.doingOf(op.worker)) {
        expect(() => shards.take(op.worker)).toThrow(InvariantError);
        return;
      }
      const todoBefore = shards.todoShards;
      const shard = shards.take(op.worker);
      if (shard === null) expect(todoBefore).toBe(0);
      else {
        expectWellFormed(shard, reference.spec);
        expect(shards.doingOf(op.worker)).toBe(shard);
      }
      return;
    }
    case 'complete':
    case 'fail': {
      const held = shards.doingOf(op.worker);
      if (!held) {
        expect(() => (op.kind === 'complete' ? shards.complete(op.worker) : shards.fail(op.worker))).toThrow(InvariantError);
        return;
      }
      if (op.kind === 'complete') shards.complete(op.worker);
      else expect(shards.fail(op.worker)).toBe(reference.failed(held));
      expect(shards.doingOf(op.worker)).toBeNull();
      return;
    }
    case 'release': {
      const held = shards.doingOf(op.worker);
      const fate = shards.release(op.worker, op.cause);
      if (!held) expect(fate).toBeNull();
      else expect(fate).toBe(op.cause === 'died' ? reference.failed(held) : 'requeued');
      expect(shards.partialSamples(op.worker)).toBe(0);
      return;
    }
    case 'restore':
      shards.restore();
      reference.failures.clear();
      expect(shards.doingShards).toBe(0);
      return;
    case 'train': {
      if (op.workers.length === 0 && op.samples > 0) {
        expect(() => shards.train(op.workers, op.samples)).toThrow(InvariantError);
        return;
      }
      const listed = new Set(op.workers);
      const others = [...shards.doing()].filter(([worker]) => !listed.has(worker));
      const partialsOfOthers = others.map(([worker]) => shards.partialSamples(worker));
      const before = progress(shards, reference);
      const used = shards.train(op.workers, op.samples);
      expect(used).toBeLessThanOrEqual(op.samples);
      expect(progress(shards, reference) - before).toBe(used);
      if (used < op.samples) expect(shards.todoShards).toBe(0);
      for (const [i, [worker, shard]] of others.entries()) {
        expect(shards.doingOf(worker)).toBe(shard);
        expect(shards.partialSamples(worker)).toBe(partialsOfOthers[i]);
      }
      return;
    }
  }
}

describe('DataShards under random operations', () => {
  it('trains every sample exactly once or counts it dropped, with TODO and DOING disjoint and the counters right', () => {
    fc.assert(
      fc.property(specArb, optionsArb, fc.array(opArb, { maxLength: 40 }), fc.boolean(), (spec, options, ops, drainInBulk) => {
        const reference = new Reference(spec, options.maxRetries ?? MAX_SHARD_RETRIES);
        const shards = new DataShards(spec, { ...options, onSettled: (shard, outcome) => reference.settle(shard, outcome) });
        expectConsistent(shards, reference);
        for (const op of ops) {
          apply(op, shards, reference);
          expectConsistent(shards, reference);
        }
        // Drain: the other workers leave (planned), one worker trains the rest.
        for (const [worker] of [...shards.doing()]) apply({ kind: 'release', worker, cause: 'removed' }, shards, reference);
        if (drainInBulk) apply({ kind: 'train', workers: ['drain'], samples: shards.remainingSamples + 1 }, shards, reference);
        else {
          for (let shard = shards.take('drain'); shard; shard = shards.take('drain')) apply({ kind: 'complete', worker: 'drain' }, shards, reference);
        }
        expectConsistent(shards, reference);
        expect(shards.done).toBe(true);
        expect(shards.epoch).toBe(spec.epochs);
        expect(reference.settledTimes.every((times) => times === 1)).toBe(true);
        expect(reference.trained + reference.dropped).toBe(spec.samplesPerEpoch * spec.epochs);
      }),
      { numRuns: 1000 },
    );
  });
});
