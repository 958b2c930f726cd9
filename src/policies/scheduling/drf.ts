import { assertNever } from '../../errors.js';
import type { TaskPlacement } from '../../model/allocation.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobSpec, RoleSpec } from '../../model/job-spec.js';
import type { PlacementRequest, ReplicaRequest, SchedulingAction, SchedulingContext, SchedulingPolicy } from '../types.js';

/** Resources a job holds (or the cluster has), in the simulator's integer units. */
export interface ResourceAmounts {
  gpuMilli: number;
  cpuMilli: number;
  memMiB: number;
}

/** A job DRF may give resources to in this pass, with what it holds so far in the plan. */
interface Candidate {
  readonly spec: JobSpec;
  /** True for a running job (it grows by a resize), false for a queued one (it starts). */
  readonly running: boolean;
  /** Held now plus planned in this pass. */
  readonly held: ResourceAmounts;
  /** Worker count, held plus planned. */
  workers: number;
  /** Tasks planned in this pass. */
  readonly planned: TaskPlacement[];
}

/**
 * Weight of a job in weighted DRF. The job format has no weight field, so every job weighs 1;
 * the division by the weight is kept so a weight field only has to be read here.
 */
export function drfWeight(_spec: JobSpec): number {
  return 1;
}

/**
 * A job's weighted dominant share: the largest of its GPU, CPU and memory holdings as a share of
 * the cluster's installed capacity, divided by its weight (resources the cluster lacks count 0).
 */
export function dominantShare(held: Readonly<ResourceAmounts>, capacity: Readonly<ResourceAmounts>, weight: number): number {
  let share = 0;
  if (capacity.gpuMilli > 0) share = Math.max(share, held.gpuMilli / capacity.gpuMilli);
  if (capacity.cpuMilli > 0) share = Math.max(share, held.cpuMilli / capacity.cpuMilli);
  if (capacity.memMiB > 0) share = Math.max(share, held.memMiB / capacity.memMiB);
  return share / weight;
}

/** Options of the DRF scheduler. */
export interface DrfOptions {
  /**
   * False (`drf`): a job's allocation is decided when it starts and kept while it runs, as the
   * cluster schedulers Optimus compares against do (Borg, YARN). True (`drf-elastic`): running
   * elastic jobs also grow, by resizes, whenever capacity frees.
   */
  readonly growRunning: boolean;
}

/**
 * `drf` / `drf-elastic`: weighted Dominant Resource Fairness by progressive filling (REFERENCE §6).
 * Each pass repeatedly gives one more "task" to the job with the lowest dominant share (ties:
 * earlier submission, then id) that still fits, skips a job whose task does not fit, and stops when
 * no job's task fits. A job's first task is its minimum: a rigid job's whole gang; an elastic job's
 * `minReplicas` workers (and one PS for PS jobs). After that, an elastic job's task is `unit`
 * workers plus one PS for PS jobs (REFERENCE: "worker, plus a PS"), up to `maxReplicas` workers.
 * Queued jobs take part; running elastic jobs too when `growRunning` (they grow by resizes).
 * Nothing is shrunk or preempted.
 */
export function createDrf(options: DrfOptions = { growRunning: false }): SchedulingPolicy {
  return {
    name: options.growRunning ? 'drf-elastic' : 'drf',
    schedule(context: SchedulingContext): SchedulingAction[] {
      const capacity = capacityOf(context.cluster);
      const candidates = candidatesOf(context, options.growRunning);
      const open = candidates.filter((c) => nextRequest(c) !== null);
      const scratch = context.scratch();
      while (open.length > 0) {
        const k = lowestShare(open, capacity);
        const candidate = open[k]!;
        const request = nextRequest(candidate);
        const tasks = request === null ? null : context.placement.place(scratch, request);
        if (tasks === null) {
          open.splice(k, 1);
          continue;
        }
        grant(candidate, tasks);
        if (nextRequest(candidate) === null) open.splice(k, 1);
      }
      const actions: SchedulingAction[] = [];
      for (const c of candidates) {
        if (c.planned.length === 0) continue;
        actions.push(
          c.running
            ? { kind: 'resize', jobId: c.spec.id, add: c.planned, remove: [] }
            : { kind: 'start', jobId: c.spec.id, tasks: c.planned },
        );
      }
      return actions;
    },
  };
}

function capacityOf(cluster: ClusterView): ResourceAmounts {
  return { gpuMilli: cluster.totalGpus * 1000, cpuMilli: cluster.totalCpuMilli, memMiB: cluster.totalMemMiB };
}

/** Queued jobs (holding nothing) and, when they may grow, running elastic jobs (holding their tasks). */
function candidatesOf(context: SchedulingContext, growRunning: boolean): Candidate[] {
  const candidates: Candidate[] = context.queued.map((job) => ({
    spec: job.spec,
    running: false,
    held: { gpuMilli: 0, cpuMilli: 0, memMiB: 0 },
    workers: 0,
    planned: [],
  }));
  if (!growRunning) return candidates;
  for (const job of context.running) {
    if (!job.spec.elastic) continue;
    const held: ResourceAmounts = { gpuMilli: 0, cpuMilli: 0, memMiB: 0 };
    for (const task of context.cluster.tasksOf(job.spec.id) ?? []) addTask(held, task);
    candidates.push({ spec: job.spec, running: true, held, workers: job.workers, planned: [] });
  }
  return candidates;
}

/** Index of the open candidate with the lowest weighted dominant share; ties: earlier submission, then id. */
function lowestShare(open: readonly Candidate[], capacity: ResourceAmounts): number {
  let best = 0;
  let bestShare = Infinity;
  open.forEach((c, k) => {
    const share = dominantShare(c.held, capacity, drfWeight(c.spec));
    const other = open[best]!.spec;
    if (
      share < bestShare ||
      (share === bestShare && (c.spec.submitS < other.submitS || (c.spec.submitS === other.submitS && c.spec.id < other.id)))
    ) {
      best = k;
      bestShare = share;
    }
  });
  return best;
}

/** The candidate's next task as a placement request, or null when it cannot take more. */
function nextRequest(c: Candidate): PlacementRequest | null {
  const { spec } = c;
  const elastic = spec.elastic;
  if (!c.running && c.planned.length === 0) return requestOf(spec, (role) => minimumReplicas(spec, role));
  if (elastic === null || c.workers + elastic.unit > elastic.maxReplicas) return null;
  return requestOf(spec, (role) => (role.role === 'worker' ? elastic.unit : role.role === 'ps' ? 1 : 0));
}

/** Replicas of a role a job starts with: a rigid job's requested gang; an elastic job's minReplicas workers and one PS. */
function minimumReplicas(spec: JobSpec, role: RoleSpec): number {
  if (spec.elastic === null) return role.replicas;
  switch (role.role) {
    case 'worker':
      return spec.elastic.minReplicas;
    case 'ps':
      return 1;
    case 'chief':
      return role.replicas;
    default:
      return assertNever(role.role);
  }
}

function requestOf(spec: JobSpec, count: (role: RoleSpec) => number): PlacementRequest {
  const replicas: ReplicaRequest[] = [];
  for (const role of spec.roles) {
    for (let r = count(role); r > 0; r--) replicas.push({ role: role.role, demand: role.demand });
  }
  return { jobId: spec.id, jobKind: spec.kind, gpuTypes: spec.gpuTypes, replicas };
}

function grant(c: Candidate, tasks: readonly TaskPlacement[]): void {
  for (const task of tasks) {
    c.planned.push(task);
    addTask(c.held, task);
    if (task.role === 'worker') c.workers++;
  }
}

function addTask(held: ResourceAmounts, task: TaskPlacement): void {
  held.gpuMilli += task.gpuIndices.length * task.demand.gpuMilli;
  held.cpuMilli += task.demand.cpuMilli;
  held.memMiB += task.demand.memMiB;
}
