import { assertNever } from '../../errors.js';
import type { TaskPlacement } from '../../model/allocation.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobRequest, RoleSpec } from '../../model/job-spec.js';
import type { JobShapeRequest, JobView, PlacementRequest, ReplicaRequest } from '../types.js';

/** Resources a job or user holds (or the cluster has), in the simulator's integer units. */
export interface ResourceAmounts {
  gpuMilli: number;
  cpuMilli: number;
  memMiB: number;
}

/** The parts of a job request its first gang is built from. */
export type JobGang = JobShapeRequest & Pick<JobRequest, 'elastic'>;

/** Weights of users in weighted DRF, by user name; a user not listed weighs 1. */
export type UserWeights = Readonly<Record<string, number>>;

/** A job DRF may give resources to in this pass, with what it holds so far in the plan. */
export interface DrfCandidate {
  readonly request: JobRequest;
  /** The queued job's view, when the queue handed it (its start then names it: see SchedulingAction); else null. */
  readonly view: JobView | null;
  /** The DRF user the job's share counts toward (see drfUser). */
  readonly user: string;
  /** True when the job already runs (it grows by a resize), false for a queued one (it starts). */
  readonly running: boolean;
  /** Held (or kept) now plus planned in this pass. */
  readonly held: ResourceAmounts;
  /** Worker count, held plus planned. */
  workers: number;
  /** Tasks planned in this pass. */
  readonly planned: TaskPlacement[];
  /** Grants made in this pass (each grant is one DRF task: a gang, or `unit` workers plus a PS). */
  grants: number;
}

/** One grant of a pass: the job and the tasks it was given. */
export interface DrfGrant {
  readonly candidate: DrfCandidate;
  readonly tasks: readonly TaskPlacement[];
}

/**
 * The user a job's share counts toward: its `user`, or the job itself when the user is unknown
 * (""), so anonymous jobs are treated as users of their own (job-level DRF).
 */
export function drfUser(request: Pick<JobRequest, 'id' | 'user'>): string {
  return request.user === '' ? `\u0000job:${request.id}` : request.user;
}

/**
 * A weighted dominant share: the largest of the GPU, CPU and memory held as a share of the
 * cluster's installed capacity, divided by the weight (resources the cluster lacks count 0).
 */
export function dominantShare(held: Readonly<ResourceAmounts>, capacity: Readonly<ResourceAmounts>, weight: number): number {
  let share = 0;
  if (capacity.gpuMilli > 0) share = Math.max(share, held.gpuMilli / capacity.gpuMilli);
  if (capacity.cpuMilli > 0) share = Math.max(share, held.cpuMilli / capacity.cpuMilli);
  if (capacity.memMiB > 0) share = Math.max(share, held.memMiB / capacity.memMiB);
  return share / weight;
}

/** The cluster's installed capacity. */
export function capacityOf(cluster: ClusterView): ResourceAmounts {
  return { gpuMilli: cluster.totalGpus * 1000, cpuMilli: cluster.totalCpuMilli, memMiB: cluster.totalMemMiB };
}

/** A queued job as a candidate: it holds nothing yet. */
export function queuedCandidate(request: JobRequest, view: JobView | null = null): DrfCandidate {
  return { request, view, user: drfUser(request), running: false, held: noResources(), workers: 0, planned: [], grants: 0 };
}

/** Nothing held. */
export function noResources(): ResourceAmounts {
  return { gpuMilli: 0, cpuMilli: 0, memMiB: 0 };
}

/** Adds what a task holds to `held`. */
export function addTask(held: ResourceAmounts, task: TaskPlacement): void {
  held.gpuMilli += task.gpuIndices.length * task.demand.gpuMilli;
  held.cpuMilli += task.demand.cpuMilli;
  held.memMiB += task.demand.memMiB;
}

/** Resources held by the tasks. */
export function heldBy(tasks: readonly TaskPlacement[]): ResourceAmounts {
  const held = noResources();
  for (const task of tasks) addTask(held, task);
  return held;
}

/**
 * The candidate's next task as a placement request, or null when it cannot take more. A queued
 * job's first task is its minimum: a rigid job's whole gang; an elastic job's `minReplicas`
 * workers (one PS for PS jobs, its chief). After that an elastic job's task is `unit` workers plus
 * one PS for PS jobs (REFERENCE §6: "worker, plus a PS"), up to `maxReplicas` workers.
 */
export function nextRequest(c: DrfCandidate): PlacementRequest | null {
  const { request } = c;
  const elastic = request.elastic;
  if (!c.running && c.planned.length === 0) return minimumRequest(request);
  if (elastic === null || c.workers + elastic.unit > elastic.maxReplicas) return null;
  return gangOf(request, (role) => (role.role === 'worker' ? elastic.unit : role.role === 'ps' ? 1 : 0));
}

/** Replicas of a role a job starts with: a rigid job's requested gang; an elastic job's minReplicas workers and one PS. */
export function minimumReplicas(request: Pick<JobRequest, 'elastic'>, role: RoleSpec): number {
  if (request.elastic === null) return role.replicas;
  switch (role.role) {
    case 'worker':
      return request.elastic.minReplicas;
    case 'ps':
      return 1;
    case 'chief':
      return role.replicas;
    default:
      return assertNever(role.role);
  }
}

/** A job's first task as a placement request: its requested gang, or an elastic job's minimum (see minimumReplicas). */
export function minimumRequest(request: JobGang): PlacementRequest {
  return gangOf(request, (role) => minimumReplicas(request, role));
}

/** The smallest gang DRF starts a job with: an elastic job's minimum (see minimumRequest); null for a rigid job (its requested gang). */
export function smallestDrfStart(request: JobGang): PlacementRequest | null {
  return request.elastic === null ? null : minimumRequest(request);
}

function gangOf(request: JobShapeRequest, count: (role: RoleSpec) => number): PlacementRequest {
  const replicas: ReplicaRequest[] = [];
  for (const role of request.roles) {
    for (let r = count(role); r > 0; r--) replicas.push({ role: role.role, demand: role.demand });
  }
  return { jobId: request.id, jobKind: request.kind, gpuTypes: request.gpuTypes, replicas };
}
