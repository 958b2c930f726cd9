/**
 * Input preprocessing of GPU jobs (GoldMiner, seed 003, REFERENCE §4): the CPU work that turns raw
 * samples into training input (decoding, augmentation, feature transforms). It is stateless, so it
 * can run on the training task's own CPUs (coupled) or on data workers anywhere in the cluster.
 *
 * The model (dlsim's, from the seed's description): a job's input supply grows in proportion to the
 * CPU working on it; its GPUs train at full speed once the supply keeps up, so
 *   speed = compute speed × min(1, CPU per GPU supplied ÷ CPU per GPU needed).
 * A trace job's recorded run time was measured at its own request: its compute speed is what makes
 * its request give that run time (so replaying it at its request gives the trace's run time).
 */
import seedrandom from 'seedrandom';

/** A GPU job's input preprocessing (ground truth: policies never see it). */
export interface PreprocessingSpec {
  /** CPU per GPU, in thousandths of a core, its input needs for the GPUs to train at full speed. */
  readonly cpuMilliPerGpu: number;
  /**
   * For a trace job: the CPU per GPU (thousandths) its recorded run time was measured at, its own
   * request. Absent: its work is given at full speed (its GPUs' compute speed).
   */
  readonly observedAtCpuMilliPerGpu?: number;
  /** The model family it was drawn from, when it was drawn (reports only). */
  readonly family?: string;
}

/** One model family's preprocessing need. */
export interface PreprocessingFamily {
  readonly family: string;
  /** vCPU per GPU (thousandths) for full speed on one GPU. */
  readonly cpuMilliPerGpu: number;
  readonly weight: number;
}

/**
 * dlsim's choice, shaped by the one measurement the seed describes (one V100 of an 8-GPU, 64-vCPU
 * machine, vCPUs varied): most models need more than the machine's 8 vCPU per GPU for full speed,
 * and some need all 64. The families, their needs and weights are not read off the paper's figure
 * (only the seed's text is public): 85% of GPU jobs need more than 8 vCPU per GPU, 15% need 64.
 */
export const PREPROCESSING_FAMILIES: readonly PreprocessingFamily[] = [
  { family: 'language', cpuMilliPerGpu: 4_000, weight: 15 },
  { family: 'speech', cpuMilliPerGpu: 12_000, weight: 10 },
  { family: 'image-classification', cpuMilliPerGpu: 16_000, weight: 25 },
  { family: 'detection', cpuMilliPerGpu: 24_000, weight: 15 },
  { family: 'recommendation', cpuMilliPerGpu: 32_000, weight: 20 },
  { family: 'video', cpuMilliPerGpu: 64_000, weight: 15 },
];

const FAMILY_WEIGHT_TOTAL = PREPROCESSING_FAMILIES.reduce((sum, f) => sum + f.weight, 0);

/**
 * A job's preprocessing drawn from PREPROCESSING_FAMILIES, fixed by a key (the run's seed and the
 * job's id), so a job's draw does not depend on the other jobs or their order.
 */
export function drawPreprocessing(key: string, observedAtCpuMilliPerGpu?: number): PreprocessingSpec {
  let target = seedrandom.alea(`preprocessing|${key}`)() * FAMILY_WEIGHT_TOTAL;
  let family = PREPROCESSING_FAMILIES[PREPROCESSING_FAMILIES.length - 1]!;
  for (const candidate of PREPROCESSING_FAMILIES) {
    target -= candidate.weight;
    if (target < 0) {
      family = candidate;
      break;
    }
  }
  return {
    cpuMilliPerGpu: family.cpuMilliPerGpu,
    family: family.family,
    ...(observedAtCpuMilliPerGpu === undefined ? {} : { observedAtCpuMilliPerGpu }),
  };
}

/** The share of full speed an input supply of `cpuMilliPerGpu` gives (min(1, supplied ÷ needed)). */
export function supplyShare(spec: PreprocessingSpec, cpuMilliPerGpu: number): number {
  return Math.min(1, cpuMilliPerGpu / spec.cpuMilliPerGpu);
}

/** Factors this close to 1 are 1 (the same supply computed two ways differs in its last digits). */
const SAME_SPEED = 1e-12;

/**
 * The job's speed relative to its nominal speed (the speed its work is given at) when its GPUs get
 * `cpuMilliPerGpu` of input preprocessing per GPU: min(1, supplied ÷ needed), divided by the same at
 * the CPU its record was measured at for a trace job.
 */
export function preprocessingSpeedFactor(spec: PreprocessingSpec, cpuMilliPerGpu: number): number {
  const reference = spec.observedAtCpuMilliPerGpu === undefined ? 1 : supplyShare(spec, spec.observedAtCpuMilliPerGpu);
  if (!(reference > 0)) return 1;
  const factor = supplyShare(spec, cpuMilliPerGpu) / reference;
  return Math.abs(factor - 1) < SAME_SPEED ? 1 : factor;
}

/**
 * dlsim's choice: the input queue between the preprocessing and the training holds this many seconds
 * of training at full speed (a prefetch of a few batches). It is a fluid buffer: its fill moves at
 * (supply − consumption) ÷ capacity; while it holds input the GPUs train at full speed, and once it
 * runs dry at the supply (min(supply, compute)).
 */
export const INPUT_QUEUE_S = 10;

/**
 * How fast the input queue's fill (0 empty, 1 full) changes, per second: what the supply brings
 * (supply ÷ need per GPU, in units of full-speed consumption) minus the share of full speed that
 * training consumes.
 */
export function inputQueueLevelPerS(spec: PreprocessingSpec, cpuMilliPerGpu: number, consumedShare: number): number {
  return (cpuMilliPerGpu / spec.cpuMilliPerGpu - consumedShare) / INPUT_QUEUE_S;
}

/** The fill of an input queue `dtS` seconds after it was `level`, moving at `levelPerS`, kept in [0, 1]. */
export function inputQueueLevelAfter(level: number, levelPerS: number, dtS: number): number {
  return Math.min(1, Math.max(0, level + levelPerS * dtS));
}
