import { describe, expect, it } from 'vitest';
import type { FaultType } from '../../src/faults/catalog.js';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { copyFree, type CapacityScratch, type NodeFree } from '../../src/model/capacity.js';
import type { ClusterState } from '../../src/model/cluster-state.js';
import type { PauseStep } from '../../src/model/pause.js';
import type { CrashCause, GrowPlan, RecoveryCleanup, RecoveryContext, RecoveryPlan } from '../../src/policies/recovery/types.js';
import { policyEntry, policyIds } from '../../src/policies/registry.js';
import type { JobView } from '../../src/policies/types.js';
import type { JobRuntime } from '../../src/sim/job-runtime.js';
import { allreduceJob, faultType } from '../helpers.js';
import { contextOf, rackOf, runningJob } from './recovery/harness.js';

/** Nodes whose node-check test runs slow (a straggler among the elastic job's nodes). */
const SLOW_NODES = new Set([3]);

/**
 * A small busy cluster of four 8-GPU nodes: an elastic all-reduce job of 6 two-GPU workers, two on
 * each of nodes 0, 1 and 3 (unit 2, 2 to 6 workers), and a rigid one-worker 8-GPU job on node 2.
 */
interface ContractCase {
  readonly cluster: ClusterState;
  readonly jobs: ReadonlyMap<string, JobRuntime>;
  context(cause: CrashCause): RecoveryContext;
}

function contractCase(): ContractCase {
  const cluster = rackOf(4);
  const checkpoint = { intervalS: 600, saveS: 30, loadS: 60, flash: false };
  const elastic = runningJob(
    allreduceJob('elastic', { workers: 6, gpus: 2, totalSteps: 10_000, elastic: { minReplicas: 2, maxReplicas: 6, unit: 2 }, checkpoint }),
    cluster,
    [0, 0, 1, 1, 3, 3],
  );
  const rigid = runningJob(allreduceJob('rigid', { workers: 1, gpus: 8, totalSteps: 10_000, checkpoint }), cluster, [2]);
  const jobs = new Map([elastic, rigid].map((job) => [job.spec.id, job]));
  const jobIds = [...jobs.keys()];
  return { cluster, jobs, context: (cause) => contextOf(cluster, cause, { jobIds, testS: (nodeIndex) => (SLOW_NODES.has(nodeIndex) ? 40 : 10) }) };
}

const CRASH: FaultType = faultType('process-crash', { kind: 'crash' });
const GPU_DOWN: FaultType = faultType('gpu-fell-off', { kind: 'gpu-down' });
const NODE_DOWN: FaultType = faultType('node-lost', { kind: 'node-down' });

/** A crash cause on the case's cluster; a lost node goes down there first when `downNode` says so. */
interface CauseCase {
  readonly name: string;
  readonly jobId: string;
  readonly downNode?: number;
  cause(tasks: readonly TaskPlacement[]): CrashCause;
}

const rankZero = (tasks: readonly TaskPlacement[]): number | null => tasks.find((t) => t.role === 'worker')?.nodeIndex ?? null;

const CAUSES: readonly CauseCase[] = ['elastic', 'rigid'].flatMap((jobId) => {
  const ownNode = jobId === 'elastic' ? 1 : 2;
  return [
    {
      name: `${jobId}: software crash`,
      jobId,
      cause: (tasks) => ({ fault: CRASH, hardwareLost: false, lostNodeIndices: [], rankZeroNodeIndex: rankZero(tasks), faultNodeIndex: ownNode, oom: null }),
    },
    {
      name: `${jobId}: lost GPU node`,
      jobId,
      cause: (tasks) => ({ fault: GPU_DOWN, hardwareLost: true, lostNodeIndices: [ownNode], rankZeroNodeIndex: rankZero(tasks), faultNodeIndex: ownNode, oom: null }),
    },
    {
      name: `${jobId}: lost rank-0 node`,
      jobId,
      downNode: jobId === 'elastic' ? 0 : 2,
      cause: (tasks) => ({ fault: NODE_DOWN, hardwareLost: true, lostNodeIndices: [rankZero(tasks)!], rankZeroNodeIndex: rankZero(tasks), faultNodeIndex: rankZero(tasks), oom: null }),
    },
    {
      name: `${jobId}: OOM`,
      jobId,
      cause: (tasks) => ({ fault: null, hardwareLost: false, lostNodeIndices: [], rankZeroNodeIndex: rankZero(tasks), faultNodeIndex: ownNode, oom: { role: 'worker', memMiB: 16_384 } }),
    },
    {
      name: `${jobId}: hang watchdog`,
      jobId,
      cause: (tasks) => ({ fault: null, hardwareLost: false, lostNodeIndices: [], rankZeroNodeIndex: rankZero(tasks), faultNodeIndex: null, oom: null }),
    },
  ];
});

/** The case with the cause applied to its cluster, the crashed job and its cause. */
function crashed(causeCase: CauseCase): { kase: ContractCase; job: JobView; cause: CrashCause; tasks: readonly TaskPlacement[] } {
  const kase = contractCase();
  if (causeCase.downNode !== undefined) kase.cluster.setNodeHealth(causeCase.downNode, 'down');
  const tasks = [...(kase.cluster.tasksOf(causeCase.jobId) ?? [])];
  return { kase, job: kase.jobs.get(causeCase.jobId)!, cause: causeCase.cause(tasks), tasks };
}

/** Everything a recovery policy is given, deeply, to detect mutation. */
function snapshot(kase: ContractCase, cause: CrashCause): string {
  const { cluster } = kase;
  const nodes = cluster.nodes.map((node, i) => [
    cluster.nodeHealth(i),
    cluster.freeCpuMilli(i),
    cluster.freeMemMiB(i),
    Array.from({ length: node.gpus }, (_, g) => [cluster.gpuUp(i, g), cluster.gpuFreeMilli(i, g)]),
  ]);
  const jobs = [...kase.jobs.values()].map((job) => [
    job.request,
    job.phase,
    job.progressSteps,
    job.workers,
    job.gpus,
    job.paused,
    job.shrunkByRecovery,
    job.restarts,
    cluster.tasksOf(job.spec.id),
  ]);
  return JSON.stringify({ nodes, jobs, cause, schedulable: cluster.schedulableFreeWholeGpus });
}

function expectSteps(steps: readonly PauseStep[]): void {
  for (const step of steps) {
    expect(Number.isFinite(step.seconds), `${step.kind} lasts ${step.seconds} s`).toBe(true);
    expect(step.seconds).toBeGreaterThanOrEqual(0);
  }
}

/** Throws unless `add`, in order, fits the scratch: schedulable nodes, free GPU shares, CPU and memory. */
function expectFits(scratch: CapacityScratch, add: readonly TaskPlacement[], copies = new Map<number, NodeFree>()): void {
  for (const task of add) {
    expect(scratch.schedulable(task.nodeIndex), `node ${task.nodeIndex} takes new tasks`).toBe(true);
    let free = copies.get(task.nodeIndex);
    if (!free) copies.set(task.nodeIndex, (free = copyFree(scratch.free(task.nodeIndex))));
    expect(new Set(task.gpuIndices).size).toBe(task.gpuIndices.length);
    expect(task.gpuIndices.length).toBe(task.demand.gpus);
    for (const g of task.gpuIndices) {
      expect(free.gpuFreeMilli[g], `GPU ${g} of node ${task.nodeIndex}`).toBeGreaterThanOrEqual(task.demand.gpuMilli);
      free.gpuFreeMilli[g]! -= task.demand.gpuMilli;
    }
    free.cpuMilli -= task.demand.cpuMilli;
    free.memMiB -= task.demand.memMiB;
    expect(free.cpuMilli).toBeGreaterThanOrEqual(0);
    expect(free.memMiB).toBeGreaterThanOrEqual(0);
  }
}

/** Checks a plan against the crashed job and the context it was made in. */
function expectValid(plan: RecoveryPlan, job: JobView, tasks: readonly TaskPlacement[], context: RecoveryContext): void {
  const nodes = context.cluster.nodes.length;
  const cleanup = (c: Partial<RecoveryCleanup>): void => {
    for (const task of c.remove ?? []) expect(tasks, "tasks to remove are the job's").toContain(task);
    expect(new Set(c.remove ?? []).size).toBe((c.remove ?? []).length);
    for (const nodeIndex of [...(c.cordon ?? []), ...(c.foundBad ?? [])]) {
      expect(Number.isInteger(nodeIndex) && nodeIndex >= 0 && nodeIndex < nodes).toBe(true);
    }
  };
  switch (plan.kind) {
    case 'fail':
      expect(plan.why.length).toBeGreaterThan(0);
      cleanup(plan);
      return;
    case 'resubmit':
      for (const seconds of [plan.detectS, plan.rescheduleS]) expect(Number.isFinite(seconds) && seconds >= 0, `${seconds} s`).toBe(true);
      return;
    case 'requeue':
      cleanup(plan);
      expectSteps(plan.restartPause);
      return;
    case 'in-place': {
      cleanup(plan);
      expectSteps(plan.pause);
      const roles = new Set(job.request.roles.map((r) => r.role));
      for (const task of plan.add) expect(roles.has(task.role)).toBe(true);
      expectFits(context.scratchAfter(plan), plan.add);
      expect(plan.detail.length).toBeGreaterThan(0);
      return;
    }
    default:
      throw new Error(`unknown plan ${JSON.stringify(plan)}`);
  }
}

function expectGrowValid(plans: readonly GrowPlan[], kase: ContractCase, context: RecoveryContext): void {
  const copies = new Map<number, NodeFree>();
  const scratch = context.scratch();
  expect(new Set(plans.map((p) => p.jobId)).size).toBe(plans.length);
  for (const plan of plans) {
    expect(kase.jobs.has(plan.jobId)).toBe(true);
    for (const task of plan.add) expect(task.role).toBe('worker');
    expectFits(scratch, plan.add, copies);
    expectSteps(plan.pause);
  }
}

describe.each(policyIds('recovery'))('recovery policy %s (contract)', (name) => {
  const entry = policyEntry('recovery', name)!;
  const create = () => entry.create({});

  it.each(CAUSES.map((c) => [c.name, c] as const))('%s: the same inputs give the same plan', (_, causeCase) => {
    const plans = [create(), create()].map((policy) => {
      const { kase, job, cause } = crashed(causeCase);
      return JSON.stringify(policy.onCrash(job, cause, kase.context(cause)));
    });
    expect(plans[1]).toBe(plans[0]);
  });

  it.each(CAUSES.map((c) => [c.name, c] as const))('%s: the plan is valid, also when the crash repeats', (_, causeCase) => {
    const policy = create();
    const { kase, job, cause, tasks } = crashed(causeCase);
    const context = kase.context(cause);
    for (let crash = 0; crash < 6; crash++) {
      expectValid(policy.onCrash(job, cause, context), job, tasks, context);
      if (policy.growBack) expectGrowValid(policy.growBack(context), kase, context);
    }
  });

  it.each(CAUSES.map((c) => [c.name, c] as const))('%s: onCrash changes nothing it is given', (_, causeCase) => {
    const policy = create();
    const { kase, job, cause } = crashed(causeCase);
    const before = snapshot(kase, cause);
    policy.onCrash(job, cause, kase.context(cause));
    expect(snapshot(kase, cause)).toBe(before);
  });
});
