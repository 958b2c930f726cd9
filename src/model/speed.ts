import { assertNever } from '../errors.js';
import type { JobSpec, RoleSpec } from './job-spec.js';
import { psTruthStepsPerS } from './ps-truth.js';

/** Replica counts a job runs with, as its speed model needs them. */
export interface JobShape {
  readonly workers: number;
  readonly ps: number;
  /** CPU each parameter server holds, in thousandths of a core (absent: what the spec asks for). */
  readonly psCpuMilli?: number;
}

/** The job's requested shape: the replica counts in its spec. */
export function requestedShape(spec: Pick<JobSpec, 'roles' | 'speed'>): JobShape {
  return { workers: trainersOf(spec, replicasOfRole(spec.roles, 'worker'), replicasOfRole(spec.roles, 'chief')), ps: replicasOfRole(spec.roles, 'ps') };
}

/**
 * Workers an async PS job's speed model counts: its workers and its chief, which trains like them
 * (DLRover's chief is worker 0; the usage model counts it so too). Other kinds: their workers.
 */
export function trainersOf(spec: Pick<JobSpec, 'speed'>, workers: number, chiefs: number): number {
  return spec.speed.kind === 'ps-async' ? workers + chiefs : workers;
}

/** Training speed in steps per second for a shape, before slowdowns; 0 when the shape cannot train. */
export function stepsPerS(spec: Pick<JobSpec, 'speed' | 'roles'>, shape: JobShape): number {
  const speed = spec.speed;
  switch (speed.kind) {
    case 'fixed':
      return 1;
    case 'allreduce':
      return shape.workers > 0 ? 1 / allreduceStepTimeS(speed.computeS, speed.commS, requestedShape(spec).workers, shape.workers) : 0;
    case 'ps-async': {
      const { workers: w, ps: p } = shape;
      if (w <= 0 || p <= 0) return 0;
      return w / (speed.t0 + ((speed.t1 * w) / p) * psUpdateSlowdown(spec, shape) + speed.t2 * w + speed.t3 * p);
    }
    default:
      return assertNever(speed);
  }
}

/**
 * Steps per second at the requested shape: the speed effective training time is measured against.
 * A PS job with a truth counts its chief as a worker, as its truth does.
 */
export function nominalStepsPerS(spec: Pick<JobSpec, 'speed' | 'roles' | 'psTruth'>): number {
  if (spec.psTruth !== undefined && spec.speed.kind === 'ps-async') {
    const trainers = spec.roles.filter((r) => r.role !== 'ps' && r.replicas > 0);
    const ps = spec.roles.find((r) => r.role === 'ps');
    const holdings = {
      workerCpuMilli: trainers.flatMap((r) => new Array<number>(r.replicas).fill(r.demand.cpuMilli)),
      psCpuMilli: ps === undefined ? [] : new Array<number>(ps.replicas).fill(ps.demand.cpuMilli),
    };
    return psTruthStepsPerS(spec.speed, spec.psTruth, holdings);
  }
  return stepsPerS(spec, requestedShape(spec));
}

/**
 * Synchronous data-parallel step time in seconds at n workers with a fixed global batch:
 * compute shrinks as n0/n; the ring all-reduce cost grows as 2(n-1)/n, scaled so that
 * `commS` is its cost at the requested size n0 (at 2 workers when n0 = 1).
 */
export function allreduceStepTimeS(computeS: number, commS: number, requestedWorkers: number, workers: number): number {
  const ring = (n: number): number => (2 * (n - 1)) / n;
  return (computeS * requestedWorkers) / workers + (commS * ring(workers)) / ring(Math.max(requestedWorkers, 2));
}

/**
 * How much longer a PS's share of a step (the t1·w/p parameter-update term) takes with the CPU each
 * PS holds than with the CPU its spec asks for: requested ÷ held. The update is CPU-bound work on
 * the PS (a modelling assumption, as DLRover's brain treats a CPU-hot PS as the bottleneck and
 * replaces it by one with more CPU, REFERENCE §2), so twice the CPU halves the term.
 */
export function psUpdateSlowdown(spec: Pick<JobSpec, 'roles'>, shape: JobShape): number {
  if (shape.psCpuMilli === undefined) return 1;
  const requested = spec.roles.find((r) => r.role === 'ps')?.demand.cpuMilli;
  if (requested === undefined || requested === shape.psCpuMilli) return 1;
  return requested / shape.psCpuMilli;
}

function replicasOfRole(roles: readonly RoleSpec[], role: RoleSpec['role']): number {
  let count = 0;
  for (const r of roles) if (r.role === role) count += r.replicas;
  return count;
}
