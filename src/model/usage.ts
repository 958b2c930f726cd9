/**
 * The hidden usage model: what each replica of a running job really uses, as a controller would
 * measure it (CPU cores and memory per replica) if it could read it without noise. Policies never
 * call this; they read the sampler's noisy records of it.
 *
 * CPU, per replica, is a busy share of the replica's CPU demand, never above it:
 * - ps-async (Optimus model, REFERENCE §5: steps/s f = w / (t0 + t1·w/p + t2·w + t3·p)): each
 *   worker's step takes t0 + t1·w/p + t2·w + t3·p seconds, of which t0 is its own compute. A
 *   worker runs f/w steps a second, so it is busy f·t0/w of the time (t0 over its step time at the
 *   model's speed). The t1·w/p term is the PS-side update cost: each PS serves f/p updates a second
 *   at t1 seconds each, so it is busy f·t1/p of the time — the share of the step time that term
 *   takes. PS CPU thus grows with the step rate it serves, which is what DLRover's estimation
 *   assumes ("PS CPU load is proportional to the worker count", REFERENCE §2), and a PS whose
 *   update term dominates the step time (the bottleneck) is near 100% busy. The chief counts as a
 *   worker [modelling assumption: DLRover's chief is worker 0 and trains like the others].
 * - allreduce: workers (and a chief) keep ALLREDUCE_WORKER_CPU_FRACTION of their cores busy
 *   feeding data, in proportion to the share of the model's speed the job runs at.
 * - fixed (trace replay): every role uses FIXED_CPU_FRACTION of its cores while it runs.
 * In every kind, CPU use scales with the steps/s the job really runs (a stalled job uses none):
 * the formulas take the job's current steps/s, not the model's.
 *
 * Memory, per replica: the role's `memUseMiB` when set (it may exceed the demand: the pod is then
 * OOM-killed), else MEM_USED_FRACTION of the memory the role requested in its spec. The need is a
 * property of the model, so a controller raising or lowering the limit does not change it.
 */
import { assertNever, InvariantError } from '../errors.js';
import type { JobSpec, Role } from './job-spec.js';
import type { RoleShape } from './shape.js';
import { stepsPerS as modelStepsPerS, trainersOf } from './speed.js';

export type { RoleShape } from './shape.js';

/** What one replica uses and holds (its pod's limits, which a controller knows). */
export interface ReplicaUsage {
  readonly cpuUsedCores: number;
  readonly memUsedMiB: number;
  readonly cpuHeldCores: number;
  readonly memHeldMiB: number;
}

/** What each replica of a role uses. */
export interface RoleUsage {
  readonly role: Role;
  readonly replicas: number;
  /** CPU cores used per replica (never above its demand); the mean over replicas when they differ. */
  readonly cpuUsedCores: number;
  /** Memory used per replica, in MiB; the largest when they differ. */
  readonly memUsedMiB: number;
  /** Replica by replica in rank order, for a role whose replicas differ (a PS job's parameter servers). */
  readonly perReplica?: readonly ReplicaUsage[];
}

/** A job's usage: its steps/s and what each of its roles uses per replica. */
export interface JobUsage {
  readonly stepsPerS: number;
  readonly roles: readonly RoleUsage[];
}

/**
 * Share of requested memory a replica uses when its spec gives no `memUseMiB`: 1 − 0.46, the slack
 * (limit − usage) of manually configured jobs at Google (Rzadca et al., "Autopilot: workload
 * autoscaling at Google", EuroSys 2020: "Autopiloted jobs have a slack of just 23%, compared with
 * 46% for manually-managed jobs").
 */
export const MEM_USED_FRACTION = 0.54;

/**
 * Share of requested CPU a replica of a fixed-speed (trace replay) job uses: the same Autopilot
 * slack of manually configured limits [approx: that figure is given for limits in general, here
 * applied to CPU].
 */
export const FIXED_CPU_FRACTION = 0.54;

/**
 * Share of requested CPU an all-reduce worker keeps busy (data loading and the input pipeline) at
 * the model's speed [modelling assumption].
 */
export const ALLREDUCE_WORKER_CPU_FRACTION = 0.5;

/**
 * The true usage of a job running with `shape` at `stepsPerS` (its current speed, slowdowns
 * included): per role, CPU cores and memory MiB used per replica.
 */
export function trueUsage(spec: JobSpec, shape: readonly RoleShape[], stepsPerS: number): JobUsage {
  if (!Number.isFinite(stepsPerS) || stepsPerS < 0) throw new InvariantError(`job ${spec.id}: steps/s ${stepsPerS} is not a finite non-negative number`);
  const roles: RoleUsage[] = [];
  for (const r of shape) {
    const busy = Math.min(1, Math.max(0, busyShare(spec, shape, r.role, stepsPerS)));
    roles.push({ role: r.role, replicas: r.replicas, cpuUsedCores: (busy * r.demand.cpuMilli) / 1000, memUsedMiB: memNeedMiB(spec, r) });
  }
  return { stepsPerS, roles };
}

/** Share of its CPU demand a replica of `role` keeps busy (before the cap at 1). */
function busyShare(spec: JobSpec, shape: readonly RoleShape[], role: Role, rate: number): number {
  const speed = spec.speed;
  switch (speed.kind) {
    case 'ps-async': {
      const workers = trainersOf(spec, replicasOf(shape, 'worker'), replicasOf(shape, 'chief'));
      if (role === 'ps') {
        const ps = replicasOf(shape, 'ps');
        return ps > 0 ? (rate * speed.t1) / ps : 0;
      }
      return workers > 0 ? (rate * speed.t0) / workers : 0;
    }
    case 'allreduce':
      return ALLREDUCE_WORKER_CPU_FRACTION * shareOfModelSpeed(spec, shape, rate);
    case 'fixed':
      return FIXED_CPU_FRACTION * shareOfModelSpeed(spec, shape, rate);
    default:
      return assertNever(speed);
  }
}

/** The job's steps/s over what its speed model gives at this shape (0 when the shape cannot train). */
function shareOfModelSpeed(spec: JobSpec, shape: readonly RoleShape[], rate: number): number {
  const model = modelStepsPerS(spec, { workers: trainersOf(spec, replicasOf(shape, 'worker'), replicasOf(shape, 'chief')), ps: replicasOf(shape, 'ps') });
  return model > 0 ? rate / model : 0;
}

/** Memory a replica of the role needs: its `memUseMiB`, else a share of what its spec requested. */
function memNeedMiB(spec: JobSpec, r: RoleShape): number {
  const roleSpec = spec.roles.find((s) => s.role === r.role);
  if (roleSpec?.memUseMiB !== undefined) return roleSpec.memUseMiB;
  return MEM_USED_FRACTION * (roleSpec ?? r).demand.memMiB;
}

function replicasOf(shape: readonly RoleShape[], role: Role): number {
  let count = 0;
  for (const r of shape) if (r.role === role) count += r.replicas;
  return count;
}

/** One sampled record of a job, as a controller measures it: steps/s and, per role, use per replica (noisy). */
export interface UsageSample {
  readonly atS: number;
  readonly stepsPerS: number;
  readonly roles: readonly RoleUsage[];
  /** Its input queue's fill (0 empty: training waits for input; 1 full: input keeps up), for a job a data policy listens to. */
  readonly inputQueueLevel?: number;
}
