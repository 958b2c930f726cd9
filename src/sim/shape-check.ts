import { InvariantError } from '../errors.js';
import type { TaskPlacement } from '../model/allocation.js';
import type { JobSpec, ReplicaDemand } from '../model/job-spec.js';
import { MAX_CPU_CORES, MAX_MEM_GIB } from '../model/limits.js';

/**
 * Checks that a job's tasks form a shape it may run with, against its spec's bounds (not equality):
 * each task holds its role's GPUs (count and share) and any positive CPU and memory within the
 * per-replica limits (an auto-scaler may give a PS more CPU, an OOM relaunch more memory);
 * workers number the requested count, or for an elastic job a multiple of its unit within its
 * bounds; PS jobs that are elastic may run any positive number of parameter servers; other roles
 * their requested count. A breach is a policy bug (InvariantError).
 */
export function checkShape(spec: JobSpec, tasks: readonly TaskPlacement[], policy: string): void {
  for (const role of spec.roles) {
    let count = 0;
    for (const task of tasks) {
      if (task.role !== role.role) continue;
      count++;
      if (!demandFits(task.demand, role.demand)) {
        throw new InvariantError(`${policy}: job ${spec.id} got a ${role.role} task whose demand is outside its spec's bounds`);
      }
    }
    let ok: boolean;
    if (role.role === 'worker' && spec.elastic) {
      const { minReplicas, maxReplicas, unit } = spec.elastic;
      ok = count >= minReplicas && count <= maxReplicas && count % unit === 0;
    } else if (role.role === 'ps' && spec.elastic) {
      ok = count >= 1;
    } else {
      ok = count === role.replicas;
    }
    if (!ok) throw new InvariantError(`${policy}: job ${spec.id} cannot run with ${count} ${role.role} replicas`);
  }
  for (const task of tasks) {
    if (spec.roles.length === 1 ? spec.roles[0]!.role !== task.role : !spec.roles.some((r) => r.role === task.role)) {
      throw new InvariantError(`${policy}: job ${spec.id} has no ${task.role} role`);
    }
  }
}

function demandFits(task: ReplicaDemand, role: ReplicaDemand): boolean {
  if (task === role) return true;
  return (
    task.gpus === role.gpus &&
    task.gpuMilli === role.gpuMilli &&
    task.cpuMilli > 0 &&
    task.cpuMilli <= MAX_CPU_CORES * 1000 &&
    task.memMiB > 0 &&
    task.memMiB <= MAX_MEM_GIB * 1024
  );
}
