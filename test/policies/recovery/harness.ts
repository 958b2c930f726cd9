import type { TaskPlacement } from '../../../src/model/allocation.js';
import { CapacityScratch } from '../../../src/model/capacity.js';
import { ClusterState } from '../../../src/model/cluster-state.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { packPlacement } from '../../../src/policies/placement/pack.js';
import type { CrashCause, GrowPlan, RecoveryCleanup, RecoveryContext, RecoveryPlan } from '../../../src/policies/recovery/types.js';
import { JobRuntime } from '../../../src/sim/job-runtime.js';
import { gpuCluster } from '../../helpers.js';

/** A cluster of `count` 8-GPU nodes in one rack. */
export function rackOf(count: number): ClusterState {
  return new ClusterState(gpuCluster(count, 8));
}

/** Allocates one task per entry of `nodeIndices` (role by role in the spec's order, lowest free GPUs) and returns the job, running. */
export function runningJob(spec: JobSpec, cluster: ClusterState, nodeIndices: readonly number[]): JobRuntime {
  const replicas = spec.roles.flatMap((role) => Array.from({ length: role.replicas }, () => role));
  const scratch = new CapacityScratch(cluster);
  const tasks: TaskPlacement[] = nodeIndices.map((nodeIndex, i) => {
    const role = replicas[i]!;
    const task = scratch.reserve(nodeIndex, role.role, role.demand);
    if (!task) throw new Error(`a ${role.role} of ${spec.id} does not fit node ${nodeIndex}`);
    return task;
  });
  cluster.allocate(spec.id, tasks);
  const job = new JobRuntime(spec, 1, { nowS: 0 });
  job.phase = 'running';
  job.firstStartS = 0;
  job.progressSteps = 500;
  countTasks(job, cluster);
  return job;
}

/** Reads the job's worker, PS and GPU counts from what it holds. */
function countTasks(job: JobRuntime, cluster: ClusterState): void {
  const tasks = cluster.tasksOf(job.spec.id) ?? [];
  job.workers = tasks.filter((t) => t.role === 'worker').length;
  job.ps = tasks.filter((t) => t.role === 'ps').length;
  job.gpus = tasks.reduce((sum, t) => sum + (t.gpuIndices.length * t.demand.gpuMilli) / 1000, 0);
}

/** How the probe and the calls a policy makes are set up. */
export interface ContextOptions {
  /** Seconds each node's check test takes (absent: 10). */
  readonly testS?: (nodeIndex: number) => number;
  /** Start order of the running jobs, by id (absent: the order of `jobIds`). */
  readonly jobIds?: readonly string[];
}

/** The context the simulation would pass for a crash with `cause` (the cluster has no hidden broken hardware). */
export function contextOf(cluster: ClusterState, cause: CrashCause, options: ContextOptions = {}): RecoveryContext {
  return {
    nowS: 7200,
    cluster,
    placement: packPlacement,
    scratch: () => new CapacityScratch(cluster),
    tasksOf: (jobId) => cluster.tasksOf(jobId) ?? [],
    startOrder: (jobId) => (options.jobIds ?? []).indexOf(jobId),
    testNodes: (nodeIndices) =>
      nodeIndices.map((nodeIndex) => ({ nodeIndex, faulty: cause.lostNodeIndices.includes(nodeIndex), testS: options.testS?.(nodeIndex) ?? 10 })),
    scratchAfter: (cleanup: RecoveryCleanup) => {
      const scratch = new CapacityScratch(cluster);
      for (const nodeIndex of cleanup.cordon) scratch.setSchedulable(nodeIndex, false);
      scratch.unreserve(cleanup.remove);
      return scratch;
    },
  };
}

/** Carries a recovery plan out on the cluster and the job, as the simulation does (no pauses, no timeline). */
export function applyPlan(cluster: ClusterState, job: JobRuntime, plan: RecoveryPlan): void {
  if (plan.kind === 'resubmit' || plan.kind === 'fail' || plan.kind === 'requeue') {
    cluster.release(job.spec.id);
    job.phase = plan.kind === 'fail' ? 'failed' : 'queued';
    countTasks(job, cluster);
    return;
  }
  for (const nodeIndex of plan.cordon) cluster.setNodeHealth(nodeIndex, 'cordoned');
  if (plan.remove.length > 0) cluster.releaseTasks(job.spec.id, plan.remove);
  cluster.allocate(job.spec.id, plan.add);
  if (plan.shrunk) job.shrunkByRecovery = true;
  countTasks(job, cluster);
}

/** Carries a grow plan out. */
export function applyGrow(cluster: ClusterState, job: JobRuntime, plan: GrowPlan): void {
  cluster.allocate(job.spec.id, plan.add);
  if (plan.done) job.shrunkByRecovery = false;
  countTasks(job, cluster);
}
