import type { RandomStream } from '../../engine/random.js';
import type { JobSpec, ReplicaDemand } from '../../model/job-spec.js';

// Elastic trainer jobs as PaddlePaddle EDL runs them (REFERENCE §3, seed 002): all-reduce training
// whose trainer count the scheduler may change between a minimum and a maximum. The seed gives no
// job sizes; the ranges below are dlsim's choices, made so that a job's range spans small and large
// shares of a 128-GPU cluster. They are not fitted to the validation's figures.

/** GPUs per trainer and their weights: mostly one-GPU trainers (dlsim's choice). */
export const EDL_TRAINER_GPUS: readonly (readonly [gpus: number, weight: number])[] = [
  [1, 0.7],
  [2, 0.3],
];
/** Minimum trainers and their weights (dlsim's choice); a job asks for EDL_REQUEST_FACTOR x its minimum. */
export const EDL_MIN_TRAINERS: readonly (readonly [trainers: number, weight: number])[] = [
  [1, 0.3],
  [2, 0.4],
  [4, 0.3],
];
/** Requested trainers as a multiple of the minimum (dlsim's choice). */
export const EDL_REQUEST_FACTOR = 2;
/** Maximum trainers as a multiple of the minimum, and their weights: large, so late jobs can fill the cluster (dlsim's choice). */
export const EDL_MAX_FACTOR: readonly (readonly [factor: number, weight: number])[] = [
  [8, 0.5],
  [16, 0.5],
];
/** Step time at the requested size, in seconds, and its all-reduce share (as the synthetic allreduce jobs). */
export const EDL_STEP_S = 1;
export const EDL_COMM_FRACTION = 0.1;

/** The fields of a job that do not depend on its kind. */
type JobBase = Pick<JobSpec, 'id' | 'submitS' | 'user' | 'gpuTypes' | 'source'>;

/**
 * One elastic trainer job: trainer size, minimum and maximum drawn from `stream`; it trains
 * `durationS` at its requested trainers. `demandOf` gives a trainer's CPU and memory for its GPUs.
 */
export function edlTrainerJob(base: JobBase, durationS: number, stream: RandomStream, demandOf: (gpus: number) => ReplicaDemand): JobSpec {
  const gpus = pick(EDL_TRAINER_GPUS, stream);
  const min = pick(EDL_MIN_TRAINERS, stream);
  const max = min * pick(EDL_MAX_FACTOR, stream);
  return {
    ...base,
    kind: 'allreduce',
    roles: [{ role: 'worker', replicas: EDL_REQUEST_FACTOR * min, demand: demandOf(gpus) }],
    elastic: { minReplicas: min, maxReplicas: max, unit: 1 },
    totalSteps: Math.round(durationS / EDL_STEP_S),
    speed: { kind: 'allreduce', computeS: EDL_STEP_S * (1 - EDL_COMM_FRACTION), commS: EDL_STEP_S * EDL_COMM_FRACTION },
  };
}

function pick(table: readonly (readonly [value: number, weight: number])[], stream: RandomStream): number {
  return table[stream.weightedIndex(table.map(([, weight]) => weight))]![0];
}
