import { assertNever } from '../../errors.js';
import type { TaskPlacement } from '../../model/allocation.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobRequest, RoleSpec } from '../../model/job-spec.js';
import type { JobShapeRequest, PlacementPolicy, PlacementRequest, ReplicaRequest } from '../types.js';
import { identicalGangKey } from './gang-key.js';

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

/** What one DRF pass needs besides its candidates. */
export interface FillSetup {
  readonly capacity: ResourceAmounts;
  readonly weights: UserWeights;
  /** What each user holds outside the candidates' `held` (running jobs that are not candidates). */
  readonly usersHeld: Map<string, ResourceAmounts>;
  readonly placement: PlacementPolicy;
  readonly scratch: CapacityScratch;
}

/**
 * Weighted DRF by progressive filling (REFERENCE §6): repeatedly gives one more task to the user
 * with the lowest weighted dominant share (what all the user's jobs hold, running ones included)
 * among users with a job that can still take one; within that user, to the job with the lowest
 * dominant share (ties: earlier submission, then id). A job whose task does not fit is skipped for
 * the rest of the pass. Stops when no task fits. Candidates' `held`, `workers`, `planned` and
 * `grants` are updated in place; every grant is reserved in the scratch. Returns the grants in
 * the order they were made.
 */
export function progressiveFill(candidates: readonly DrfCandidate[], setup: FillSetup): DrfGrant[] {
  const { capacity, weights, usersHeld } = setup;
  const userHeld = (user: string): ResourceAmounts => {
    let held = usersHeld.get(user);
    if (!held) usersHeld.set(user, (held = noResources()));
    return held;
  };
  for (const c of candidates) {
    const held = userHeld(c.user);
    held.gpuMilli += c.held.gpuMilli;
    held.cpuMilli += c.held.cpuMilli;
    held.memMiB += c.held.memMiB;
  }
  const open = new Map<string, DrfCandidate[]>();
  for (const c of candidates) {
    if (nextRequest(c) === null) continue;
    const list = open.get(c.user) ?? [];
    list.push(c);
    open.set(c.user, list);
  }
  const order: DrfGrant[] = [];
  // Gangs of identical replicas that failed: the free capacity only shrinks in a pass, so their likes fail too (a complete placement).
  const failed = new Set<string>();
  const complete = setup.placement.completeForIdentical === true;
  while (open.size > 0) {
    const user = lowestUser(open, usersHeld, capacity, weights);
    const jobs = open.get(user)!;
    const k = lowestJob(jobs, capacity);
    const candidate = jobs[k]!;
    const request = nextRequest(candidate);
    const key = request !== null && complete ? identicalGangKey(request) : null;
    const tasks = request === null || (key !== null && failed.has(key)) ? null : setup.placement.place(setup.scratch, request);
    if (tasks === null) {
      if (key !== null) failed.add(key);
      jobs.splice(k, 1);
    } else {
      const held = userHeld(user);
      for (const task of tasks) {
        candidate.planned.push(task);
        addTask(candidate.held, task);
        addTask(held, task);
        if (task.role === 'worker') candidate.workers++;
      }
      candidate.grants++;
      order.push({ candidate, tasks });
      if (nextRequest(candidate) === null) jobs.splice(k, 1);
    }
    if (jobs.length === 0) open.delete(user);
  }
  return order;
}

/** The user with the lowest weighted dominant share among `open`; ties: the user of the earliest-submitted open job, then its id. */
function lowestUser(
  open: ReadonlyMap<string, readonly DrfCandidate[]>,
  usersHeld: ReadonlyMap<string, ResourceAmounts>,
  capacity: ResourceAmounts,
  weights: UserWeights,
): string {
  let best = '';
  let bestShare = Infinity;
  let bestFirst: JobRequest | null = null;
  for (const [user, jobs] of open) {
    const share = dominantShare(usersHeld.get(user)!, capacity, weights[user] ?? 1);
    const first = earliest(jobs);
    if (share < bestShare || (share === bestShare && bestFirst !== null && before(first, bestFirst))) {
      best = user;
      bestShare = share;
      bestFirst = first;
    }
  }
  return best;
}

function earliest(jobs: readonly DrfCandidate[]): JobRequest {
  let first = jobs[0]!.request;
  for (const c of jobs) if (before(c.request, first)) first = c.request;
  return first;
}

function before(a: JobRequest, b: JobRequest): boolean {
  return a.submitS < b.submitS || (a.submitS === b.submitS && a.id < b.id);
}

/** Index of the job with the lowest dominant share; ties: earlier submission, then id. */
function lowestJob(jobs: readonly DrfCandidate[], capacity: ResourceAmounts): number {
  let best = 0;
  let bestShare = Infinity;
  jobs.forEach((c, k) => {
    const share = dominantShare(c.held, capacity, 1);
    if (share < bestShare || (share === bestShare && before(c.request, jobs[best]!.request))) {
      best = k;
      bestShare = share;
    }
  });
  return best;
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

function gangOf(request: JobShapeRequest, count: (role: RoleSpec) => number): PlacementRequest {
  const replicas: ReplicaRequest[] = [];
  for (const role of request.roles) {
    for (let r = count(role); r > 0; r--) replicas.push({ role: role.role, demand: role.demand });
  }
  return { jobId: request.id, jobKind: request.kind, gpuTypes: request.gpuTypes, replicas };
}
