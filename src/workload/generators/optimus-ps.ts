import type { RandomStream } from '../../engine/random.js';
import type { JobSpec, LossCurveSpec, SpeedSpec } from '../../model/job-spec.js';
import { convergenceStep } from '../../model/observations.js';

// Elastic parameter-server jobs with loss curves, the kind Optimus schedules (REFERENCE §5). The
// ranges below are the ones the Optimus-vs-DRF validation workload was first drawn from; each
// says where it comes from. They are not fitted to the paper's results.

/** Share of PS jobs whose workers use one GPU (the rest are CPU jobs): dlsim's choice. */
export const OPTIMUS_PS_GPU_SHARE = 0.6;
/** Workers and PS a job asks for (the reference shape its work is sized at): dlsim's choice. */
export const OPTIMUS_PS_REQUEST = { workers: 4, ps: 2 } as const;
/** Most workers a job may run (it may run 1 to this many, and any number of PS): dlsim's choice. */
export const OPTIMUS_PS_MAX_WORKERS = 16;
/** Hours a job would train at the reference shape, log-uniform in this range: dlsim's choice. */
export const OPTIMUS_PS_REFERENCE_HOURS = { min: 1, max: 8 } as const;
/** Every PS: 8 cores (the Ant generator's no-history default, REFERENCE §2) and 32 GiB. */
export const OPTIMUS_PS_SERVER = { cores: 8, memGiB: 32 } as const;
/** A GPU job's worker: 1 GPU, 4 cores, 16 GiB; a CPU job's: 8 cores, 16 GiB (dlsim's choice). */
export const OPTIMUS_PS_WORKER = { gpu: { cores: 4, memGiB: 16 }, cpu: { cores: 8, memGiB: 16 } } as const;
/** t0 (compute per step, s), log-uniform. */
export const OPTIMUS_PS_T0_S = { min: 0.1, max: 0.6 } as const;
/**
 * t1/t0, log-uniform: from a communication-light model (DeepFM, the Ant generator's REFERENCE §2
 * calibration: 0.05) to ResNet-50 in the Optimus paper (best 20-container split 8 workers + 12 PS,
 * which needs t1/t0 ~ 2).
 */
export const OPTIMUS_PS_T1_OVER_T0 = { min: 0.05, max: 2 } as const;
/** t2/t0 and t3/t0, log-uniform around the DeepFM calibration (0.023 and 0.037). */
export const OPTIMUS_PS_T2_OVER_T0 = { min: 0.01, max: 0.05 } as const;
export const OPTIMUS_PS_T3_OVER_T0 = { min: 0.02, max: 0.08 } as const;
/** Loss curve 1/(b0*k + b1) + b2: b1 and b2 uniform in these ranges (dlsim's choice). */
export const OPTIMUS_PS_B1 = { min: 0.3, max: 1.5 } as const;
export const OPTIMUS_PS_B2 = { min: 0.05, max: 0.6 } as const;
/** A job converges when its excess loss has fallen to this share of its initial excess (uniform). */
export const OPTIMUS_PS_REACH = { min: 0.03, max: 0.1 } as const;
/** Relative noise of each reported loss value. */
export const OPTIMUS_PS_LOSS_NOISE = 0.01;

const GIB = 1024;

/** The fields of a job that the caller decides. */
export type PsJobBase = Pick<JobSpec, 'id' | 'submitS' | 'user' | 'gpuTypes' | 'source'>;

/**
 * An elastic PS job (asynchronous training, Optimus's speed model) that ends on convergence: its
 * loss curve reaches the target after the steps it would train in 1-8 h at 4 workers and 2 PS.
 * Every draw comes from `stream`, in a fixed order.
 */
export function optimusPsJob(base: PsJobBase, stream: RandomStream): JobSpec {
  const uniform = (range: { readonly min: number; readonly max: number }): number => range.min + (range.max - range.min) * stream.uniform();
  const logUniform = (range: { readonly min: number; readonly max: number }): number =>
    Math.exp(uniform({ min: Math.log(range.min), max: Math.log(range.max) }));
  const gpu = stream.uniform() < OPTIMUS_PS_GPU_SHARE;
  const t0 = sig(logUniform(OPTIMUS_PS_T0_S), 3);
  const speed: SpeedSpec & { kind: 'ps-async' } = {
    kind: 'ps-async',
    t0,
    t1: sig(t0 * logUniform(OPTIMUS_PS_T1_OVER_T0), 3),
    t2: sig(t0 * logUniform(OPTIMUS_PS_T2_OVER_T0), 3),
    t3: sig(t0 * logUniform(OPTIMUS_PS_T3_OVER_T0), 3),
  };
  const { workers, ps } = OPTIMUS_PS_REQUEST;
  const stepsPerS = workers / (speed.t0 + (speed.t1 * workers) / ps + speed.t2 * workers + speed.t3 * ps);
  const steps = stepsPerS * 3600 * logUniform(OPTIMUS_PS_REFERENCE_HOURS);
  const b1 = sig(uniform(OPTIMUS_PS_B1), 3);
  const b2 = sig(uniform(OPTIMUS_PS_B2), 3);
  const targetLoss = sig(b2 + uniform(OPTIMUS_PS_REACH) / b1, 4);
  const b0 = sig((1 / (targetLoss - b2) - b1) / steps, 4);
  const loss: LossCurveSpec = { b0, b1, b2, noise: OPTIMUS_PS_LOSS_NOISE, targetLoss };
  const worker = gpu ? OPTIMUS_PS_WORKER.gpu : OPTIMUS_PS_WORKER.cpu;
  return {
    ...base,
    kind: 'ps',
    roles: [
      { role: 'worker', replicas: workers, demand: { gpus: gpu ? 1 : 0, gpuMilli: 1000, cpuMilli: worker.cores * 1000, memMiB: worker.memGiB * GIB } },
      { role: 'ps', replicas: ps, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: OPTIMUS_PS_SERVER.cores * 1000, memMiB: OPTIMUS_PS_SERVER.memGiB * GIB } },
    ],
    elastic: { minReplicas: 1, maxReplicas: OPTIMUS_PS_MAX_WORKERS, unit: 1 },
    totalSteps: convergenceStep(loss),
    speed,
    loss,
  };
}

/** `digits` significant digits (the parameters stay short in exported traces). */
function sig(value: number, digits: number): number {
  return Number(value.toPrecision(digits));
}
