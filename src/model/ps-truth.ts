/**
 * The hidden model of an asynchronous parameter-server job with a `psTruth` (policies never read
 * it; they see the sampler's records of it):
 *
 * - Speed: the Optimus async model of REFERENCE §5, f = w / (t0 + t1·w/p + t2·w + t3·p), taken
 *   worker by worker and PS by PS. PS i holds share s_i of the variables (sizes assigned round
 *   robin, as TensorFlow places variables) and applies s_i of every step's update, which takes
 *   t1·s_i seconds on the truth's reference PS CPU (`psCpuMilli`), proportionally longer with less
 *   CPU and shorter with more (the update is CPU-bound: REFERENCE §2 replaces a hot PS by one with
 *   more CPU); the slowest PS bounds every step. Workers train asynchronously, each at its own pace:
 *   worker k's step takes T_k = t0·c_k + t1·w·max_i(s_i·r_i) + t2·w + t3·p, where r_i = reference ÷
 *   held CPU of PS i and c_k = max(1, reference ÷ held CPU of worker k) (a worker's compute keeps
 *   `workerCpuMilli` busy and gains nothing beyond it); f = Σ_k 1/T_k. With even shares and the
 *   reference CPU everywhere this is the Optimus model exactly.
 * - CPU: worker k computes t0·c_k/T_k of the time, on the cores it uses (at most the reference's);
 *   PS i works f·t1·s_i·r_i of the time on the cores it holds. So PS CPU grows with the step rate
 *   the workers drive (DLRover's "PS CPU load is proportional to the worker count") and the hot PS,
 *   the one with the largest s_i·r_i, nears 100% first.
 * - Memory: PS i uses s_i · (psMemBaseMiB + psMemGrowthMiBPerStep · steps done): sparse embeddings
 *   grow with the new ids each step sees (seed 000: "PS 的内存会随着训练的进行而增加"); a PS whose
 *   use reaches what it holds is OOM-killed. Workers and the chief use `workerMemMiB`.
 */
import type { PsTruth, SpeedSpec } from './job-spec.js';

/** The Optimus async speed parameters (seconds). */
export type AsyncSpeed = Extract<SpeedSpec, { kind: 'ps-async' }>;

/** What a PS job runs with now, replica by replica, as the speed and usage of its truth need it. */
export interface PsHoldings {
  /** CPU each training worker (the chief counts as one) holds, thousandths of a core. */
  readonly workerCpuMilli: readonly number[];
  /** CPU each PS holds, thousandths of a core, in rank order. */
  readonly psCpuMilli: readonly number[];
}


/** Shares of the variables (and so of update work and memory) each of `psCount` PS gets, rank by rank: sizes assigned round robin. */
export function psShares(variableSizes: readonly number[], psCount: number): number[] {
  const shares = new Array<number>(psCount).fill(0);
  if (psCount === 0) return shares;
  let total = 0;
  for (const size of variableSizes) total += size;
  if (!(total > 0)) return shares.fill(1 / psCount);
  variableSizes.forEach((size, i) => (shares[i % psCount]! += size / total));
  return shares;
}

/** Each PS's update time factor s_i·p·r_i (1 for even shares at the reference CPU), rank by rank. */
function psLoadFactors(truth: PsTruth, holdings: PsHoldings): number[] {
  const p = holdings.psCpuMilli.length;
  const shares = psShares(truth.variableSizes, p);
  return holdings.psCpuMilli.map((cpuMilli, i) => shares[i]! * p * (truth.psCpuMilli / cpuMilli));
}

/** A worker's compute slowdown c_k: reference ÷ held CPU, at least 1. */
function workerSlowdown(truth: PsTruth, cpuMilli: number): number {
  return Math.max(1, truth.workerCpuMilli / cpuMilli);
}

/** The part of every worker's step time that is not its own compute: the hottest PS, and contention. */
function sharedStepS(speed: AsyncSpeed, truth: PsTruth, holdings: PsHoldings): number {
  const w = holdings.workerCpuMilli.length;
  const p = holdings.psCpuMilli.length;
  const hottest = Math.max(...psLoadFactors(truth, holdings));
  return (speed.t1 * w * hottest) / p + speed.t2 * w + speed.t3 * p;
}

/** Training speed in steps/s of a PS job with a truth: the sum of its workers' rates (0 without a worker or a PS). */
export function psTruthStepsPerS(speed: AsyncSpeed, truth: PsTruth, holdings: PsHoldings): number {
  if (holdings.workerCpuMilli.length === 0 || holdings.psCpuMilli.length === 0) return 0;
  const shared = sharedStepS(speed, truth, holdings);
  let rate = 0;
  for (const cpuMilli of holdings.workerCpuMilli) rate += 1 / (speed.t0 * workerSlowdown(truth, cpuMilli) + shared);
  return rate;
}

/** What a PS job's replicas really use at `stepsPerS` after `steps` steps: per worker and per PS, in rank order. */
export interface PsUsage {
  /** CPU cores each training worker (the chief counted) uses, in the order of the holdings. */
  readonly workerCpuCores: readonly number[];
  readonly workerMemMiB: number;
  /** CPU cores each PS uses, rank by rank. */
  readonly psCpuCores: readonly number[];
  /** Memory each PS uses, MiB, rank by rank. */
  readonly psMemMiB: readonly number[];
}

/**
 * The true usage of a PS job with a truth (see the module comment) when it runs at `stepsPerS`
 * (its truth's speed, or less when slowed or paused: every busy share scales with it).
 */
export function psTruthUsage(speed: AsyncSpeed, truth: PsTruth, holdings: PsHoldings, stepsPerS: number, steps: number): PsUsage {
  const p = holdings.psCpuMilli.length;
  const factors = psLoadFactors(truth, holdings);
  const shares = psShares(truth.variableSizes, p);
  const model = psTruthStepsPerS(speed, truth, holdings);
  const scale = model > 0 ? stepsPerS / model : 0;
  const shared = p > 0 ? sharedStepS(speed, truth, holdings) : 0;
  return {
    workerCpuCores: holdings.workerCpuMilli.map((cpuMilli) => {
      const computeS = speed.t0 * workerSlowdown(truth, cpuMilli);
      const busy = Math.min(1, (scale * computeS) / (computeS + shared));
      return (busy * Math.min(cpuMilli, truth.workerCpuMilli)) / 1000;
    }),
    workerMemMiB: truth.workerMemMiB,
    psCpuCores: holdings.psCpuMilli.map((cpuMilli, i) => (Math.min(1, (stepsPerS * speed.t1 * factors[i]!) / p) * cpuMilli) / 1000),
    psMemMiB: shares.map((share) => share * psMemTotalMiB(truth, steps)),
  };
}

/** PS memory in use after `steps` steps, summed over all PS, MiB. */
export function psMemTotalMiB(truth: PsTruth, steps: number): number {
  return truth.psMemBaseMiB + truth.psMemGrowthMiBPerStep * Math.max(0, steps);
}

/**
 * The step at which the first PS's memory use reaches what it holds (Infinity when none ever does
 * or memory does not grow), for PS holding `psMemMiB` rank by rank; `steps` when one already has.
 */
export function psOomStep(truth: PsTruth, psMemMiB: readonly number[], steps: number): number {
  const shares = psShares(truth.variableSizes, psMemMiB.length);
  let first = Infinity;
  psMemMiB.forEach((heldMiB, i) => {
    const share = shares[i]!;
    if (share <= 0) return;
    const totalAtLimitMiB = heldMiB / share;
    if (psMemTotalMiB(truth, steps) >= totalAtLimitMiB) first = Math.min(first, steps);
    else if (truth.psMemGrowthMiBPerStep > 0) first = Math.min(first, (totalAtLimitMiB - truth.psMemBaseMiB) / truth.psMemGrowthMiBPerStep);
  });
  return first;
}
