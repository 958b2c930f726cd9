import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../../src/model/allocation.js';
import { createDlrover, DLROVER, DLROVER_MAX_RELAUNCHES, oomRelaunchMemMiB } from '../../../src/policies/recovery/dlrover.js';
import { createTorchElastic } from '../../../src/policies/recovery/torch-elastic.js';
import type { CrashCause, RecoveryPlan } from '../../../src/policies/recovery/types.js';
import { allreduceJob, faultType, psJob } from '../../helpers.js';
import { applyGrow, applyPlan, contextOf, rackOf, runningJob } from './harness.js';

const GPU_DOWN = faultType('gpu-fell-off', { kind: 'gpu-down' });
const CRASH = faultType('process-crash', { kind: 'crash' });
const CHECKPOINT = { intervalS: 600, saveS: 30, loadS: 60, flash: false };

/** A lost node under the job's first task: its hardware failed. */
function lostNodeUnder(tasks: readonly TaskPlacement[], nodeIndex = tasks[0]!.nodeIndex): CrashCause {
  return { fault: GPU_DOWN, hardwareLost: true, lostNodeIndices: [nodeIndex], rankZeroNodeIndex: tasks[0]!.nodeIndex, faultNodeIndex: nodeIndex, oom: null };
}

function expectKind<K extends RecoveryPlan['kind']>(plan: RecoveryPlan, kind: K): Extract<RecoveryPlan, { kind: K }> {
  expect(plan.kind, JSON.stringify(plan)).toBe(kind);
  return plan as Extract<RecoveryPlan, { kind: K }>;
}

describe('in-place recovery (dlrover)', () => {
  it.each([[DLROVER_MAX_RELAUNCHES], [1]])('relaunches a pod lineage at most %i times, then drops it', (maxRelaunches) => {
    const cluster = rackOf(6);
    const job = runningJob(allreduceJob('a', { workers: 1, totalSteps: 1000, checkpoint: CHECKPOINT }), cluster, [0]);
    const policy = createDlrover({ ...DLROVER, maxRelaunches });
    for (let relaunch = 1; relaunch <= maxRelaunches; relaunch++) {
      const tasks = cluster.tasksOf('a')!;
      cluster.setNodeHealth(tasks[0]!.nodeIndex, 'down');
      const plan = expectKind(policy.onCrash(job, lostNodeUnder(tasks), contextOf(cluster, lostNodeUnder(tasks))), 'in-place');
      expect(plan.remove).toEqual([tasks[0]]);
      expect(plan.add).toHaveLength(1);
      expect(plan.add[0]!.nodeIndex).not.toBe(tasks[0]!.nodeIndex);
      expect(plan.detail).toBe('1 pods replaced');
      applyPlan(cluster, job, plan);
    }
    const tasks = cluster.tasksOf('a')!;
    const plan = expectKind(policy.onCrash(job, lostNodeUnder(tasks), contextOf(cluster, lostNodeUnder(tasks))), 'fail');
    expect(plan.why).toBe('relaunches of 1 worker pod(s) exhausted');
    expect(plan.remove).toEqual(tasks);
  });

  it('relaunches an OOM-killed PS pod with more memory, and its node-mates unchanged', () => {
    const cluster = rackOf(4);
    const psDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };
    const job = runningJob(psJob('p', 2, { replicas: 1, demand: psDemand }, 1000), cluster, [0, 1, 1]);
    const tasks = cluster.tasksOf('p')!;
    const cause: CrashCause = { fault: null, hardwareLost: false, lostNodeIndices: [], rankZeroNodeIndex: 0, faultNodeIndex: 1, oom: { role: 'ps', memMiB: 8192 } };
    const plan = expectKind(createDlrover().onCrash(job, cause, contextOf(cluster, cause)), 'in-place');
    expect(plan.remove).toEqual(tasks.filter((t) => t.nodeIndex === 1));
    const raised = oomRelaunchMemMiB('ps', 8192, 8192);
    expect(raised).toBeGreaterThan(8192);
    expect(plan.add.map((t) => [t.role, t.demand.memMiB]).sort()).toEqual([
      ['ps', raised],
      ['worker', 8192],
    ]);
  });

  it('finds a straggler with the node check: cordons it, replaces its pods elsewhere and marks the bad nodes for isolation', () => {
    const cluster = rackOf(5);
    const elastic = { minReplicas: 2, maxReplicas: 6, unit: 2 };
    const job = runningJob(allreduceJob('e', { workers: 6, gpus: 2, totalSteps: 1000, elastic, checkpoint: CHECKPOINT }), cluster, [0, 0, 1, 1, 3, 3]);
    const tasks = cluster.tasksOf('e')!;
    const cause: CrashCause = { fault: CRASH, hardwareLost: false, lostNodeIndices: [], rankZeroNodeIndex: 0, faultNodeIndex: 0, oom: null };
    const context = contextOf(cluster, cause, { testS: (nodeIndex) => (nodeIndex === 3 ? 40 : 10) });
    const plan = expectKind(createDlrover().onCrash(job, cause, context), 'in-place');
    expect(plan.cordon).toEqual([3]);
    expect(plan.foundBad).toEqual([3]);
    expect(plan.remove).toEqual(tasks.filter((t) => t.nodeIndex === 3));
    expect(plan.add).toHaveLength(2);
    expect(plan.add.every((t) => t.nodeIndex !== 3)).toBe(true);
    expect(plan.pause.map((s) => s.kind)).toEqual(['detecting', 'health-check', 'rescheduling', 'starting', 'loading']);
    expect(plan.pause[2]!.seconds).toBe(DLROVER.replaceS);
    expect(plan.pause[4]!.seconds).toBe(DLROVER.checkpointLoadS);

    // Torch Elastic has no node check: the same crash only restarts the processes.
    const restart = expectKind(createTorchElastic().onCrash(job, cause, context), 'in-place');
    expect([restart.cordon, restart.remove, restart.add, restart.foundBad, restart.detail]).toEqual([[], [], [], [], 'processes restarted']);
  });

  it('shrinks an elastic job to its node unit when no replacement fits, then grows it back as capacity returns', () => {
    const cluster = rackOf(4);
    const elastic = { minReplicas: 2, maxReplicas: 6, unit: 2 };
    const job = runningJob(allreduceJob('e', { workers: 6, gpus: 4, totalSteps: 1000, elastic, checkpoint: CHECKPOINT }), cluster, [0, 0, 1, 1, 2, 2]);
    const others = Array.from({ length: 8 }, (_, k) =>
      runningJob(allreduceJob(`r${k}`, { workers: 1, gpus: 1, totalSteps: 1000 }), cluster, [3]),
    );
    const jobIds = ['e', ...others.map((o) => o.spec.id)];
    const policy = createDlrover();
    cluster.setNodeHealth(2, 'down');
    const cause = lostNodeUnder(cluster.tasksOf('e')!, 2);
    const lost = cluster.tasksOf('e')!.filter((t) => t.nodeIndex === 2);
    const plan = expectKind(policy.onCrash(job, cause, contextOf(cluster, cause, { jobIds })), 'in-place');
    expect([plan.shrunk, plan.add, plan.remove, plan.detail]).toEqual([true, [], lost, 'scaled down to 4 workers']);
    applyPlan(cluster, job, plan);
    expect(job.workers).toBe(4);

    const growContext = contextOf(cluster, cause, { jobIds });
    expect(policy.growBack!(growContext)).toEqual([]);
    cluster.setNodeHealth(2, 'up');
    const [grow, ...more] = policy.growBack!(growContext);
    expect(more).toEqual([]);
    expect(grow!.jobId).toBe('e');
    expect(grow!.add).toHaveLength(2);
    expect(grow!.done).toBe(true);
    expect(grow!.pause).toEqual([
      { kind: 'rescheduling', seconds: DLROVER.scaleDownS },
      { kind: 'starting', seconds: 0 },
      { kind: 'loading', seconds: DLROVER.checkpointLoadS },
    ]);
    applyGrow(cluster, job, grow!);
    expect(job.workers).toBe(6);
    expect(policy.growBack!(growContext)).toEqual([]);
  });
});
