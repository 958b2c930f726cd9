import { performance } from 'node:perf_hooks';
import FastPriorityQueue from 'fastpriorityqueue';
import { Engine } from '../engine/engine.js';
import { RandomStreams } from '../engine/random.js';

/** Operations per second of the engine and of a bare heap on the same hold model, and their ratio. */
export interface HoldRatioResult {
  /** Events the engine dispatched per second. */
  readonly engineEventsPerS: number;
  /** Pop + push pairs the bare heap did per second. */
  readonly heapOpsPerS: number;
  /** engineEventsPerS / heapOpsPerS: the median of the per-round ratios. */
  readonly ratio: number;
}

/** Event increments of the hold model, seeded so every call does the same work. */
function increments(count: number): Float64Array {
  const stream = new RandomStreams(1).stream('bench-hold');
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = stream.exponential(1);
  return out;
}

/** The bare loop: a FastPriorityQueue of times, `holds` times pop the earliest and push it later, then drained. */
function heapHold(queueSize: number, holds: number, steps: Float64Array): number {
  const heap = new FastPriorityQueue<number>((a, b) => a < b);
  for (let i = 0; i < queueSize; i++) heap.add(steps[i % steps.length]!);
  let last = 0;
  for (let i = 0; i < holds; i++) {
    last = heap.poll()!;
    heap.add(last + steps[i % steps.length]!);
  }
  while (!heap.isEmpty()) last = heap.poll()!;
  return last;
}

/** The same hold model through the engine: each dispatched event schedules the next one. */
function engineHold(queueSize: number, holds: number, steps: Float64Array): number {
  let scheduled = 0;
  const engine: Engine<number> = new Engine<number>({
    isStale: () => false,
    dispatch: (event) => {
      if (scheduled++ < holds) engine.scheduleIn(steps[scheduled % steps.length]!, event);
    },
  });
  for (let i = 0; i < queueSize; i++) engine.scheduleAt(steps[i % steps.length]!, i);
  engine.run();
  return engine.dispatched;
}

/** Seconds `work` takes. */
function timeS(work: () => unknown): number {
  const startedMs = performance.now();
  work();
  return (performance.now() - startedMs) / 1000;
}

/**
 * Measures the engine against a bare FastPriorityQueue loop doing the same pops and pushes (the
 * hold model: `queueSize` pending events, `holds` times pop the earliest and push one later),
 * alternating the two `rounds` times in this process after a warm-up, so that load on the
 * machine hits both alike; the ratio is the median of the rounds' ratios.
 */
export function measureHoldRatio(queueSize = 10_000, holds = 500_000, rounds = 5): HoldRatioResult {
  const steps = increments(65_536);
  heapHold(queueSize, holds / 10, steps);
  engineHold(queueSize, holds / 10, steps);
  const heapRates: number[] = [];
  const engineRates: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const heapRate = (holds + queueSize) / timeS(() => heapHold(queueSize, holds, steps));
    const engineRate = (holds + queueSize) / timeS(() => engineHold(queueSize, holds, steps));
    heapRates.push(heapRate);
    engineRates.push(engineRate);
    ratios.push(engineRate / heapRate);
  }
  return { engineEventsPerS: Math.round(median(engineRates)), heapOpsPerS: Math.round(median(heapRates)), ratio: median(ratios) };
}

/** Simulations run before a ratio is measured: a small simulation takes about this many runs to reach its compiled speed (its time falls 3-6x over the first eight). */
export const SIM_WARMUP_RUNS = 30;

/** Simulations timed together in each round, so one round lasts far longer than the timer's grain and a collection. */
export const SIM_RUNS_PER_ROUND = 10;

/**
 * Measures `simulateOnce()` (one simulation, returning its event count) against the bare heap loop:
 * after `SIM_WARMUP_RUNS` warm-up simulations, `rounds` times the heap loop then `SIM_RUNS_PER_ROUND`
 * simulations, each timed as a whole; the median of the rounds' ratios of events per second to heap
 * operations per second.
 */
export function measureAgainstHeap(simulateOnce: () => number, rounds = 5, queueSize = 10_000, holds = 500_000): number {
  const steps = increments(65_536);
  heapHold(queueSize, holds / 10, steps);
  for (let i = 0; i < SIM_WARMUP_RUNS; i++) simulateOnce();
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const heapRate = (holds + queueSize) / timeS(() => heapHold(queueSize, holds, steps));
    let events = 0;
    const simS = timeS(() => {
      for (let i = 0; i < SIM_RUNS_PER_ROUND; i++) events += simulateOnce();
    });
    ratios.push(events / simS / heapRate);
  }
  return median(ratios);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
