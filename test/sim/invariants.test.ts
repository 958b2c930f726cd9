import { describe, expect, it } from 'vitest';
import { InvariantError } from '../../src/errors.js';
import type { RunSummary } from '../../src/metrics/summary.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { createFifo } from '../../src/policies/scheduling/fifo.js';
import { placementRequestOf, type SchedulingContext, type SchedulingPolicy } from '../../src/policies/types.js';
import { checkJob, checkSummary, InvariantChecker, invariantChecksByDefault } from '../../src/sim/invariants.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation, simulate } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** FIFO that, at its call number `atCall`, breaks something on purpose through the context it gets. */
function corrupting(atCall: number, corrupt: (context: SchedulingContext) => void): SchedulingPolicy {
  const fifo = createFifo();
  let calls = 0;
  return {
    name: 'corrupting',
    schedule: (context) => {
      const actions = fifo.schedule(context);
      if (++calls === atCall) corrupt(context);
      return actions;
    },
  };
}

/** Private fields of the cluster state, to corrupt them on purpose. */
type ClusterInternals = { cpuUsedMilli: number[]; allocatedGpuMilliTotal: number };

/** Four 8-GPU jobs arriving one after another on a 2-node cluster: several scheduling passes. */
const jobs = [batchJob('a', 0, 8, 100), batchJob('b', 10, 8, 100), batchJob('c', 20, 8, 100), batchJob('d', 30, 8, 100)];

function runWith(policy: SchedulingPolicy): () => void {
  return () => new Simulation(scenarioOf(gpuCluster(2, 8), jobs), { schedulingPolicy: policy }).run();
}

describe('invariant mode', () => {
  it('is on by default in every test run', () => {
    expect(invariantChecksByDefault()).toBe(true);
  });

  it('passes an honest run', () => {
    const result = new Simulation(scenarioOf(gpuCluster(2, 8), jobs), { schedulingPolicy: corrupting(-1, () => {}) }).run();
    expect(result.summary.jobs.completed).toBe(4);
  });

  it("stops a run with a node's CPU accounting corrupted (found when the node next changes)", () => {
    const policy = corrupting(2, (c) => {
      (c.cluster as unknown as ClusterInternals).cpuUsedMilli[0]! += 1;
    });
    expect(runWith(policy)).toThrow(/node n0: CPU accounting/);
  });

  it('stops a run whose cluster-wide GPU total is out of step with its nodes', () => {
    const policy = corrupting(2, (c) => {
      (c.cluster as unknown as ClusterInternals).allocatedGpuMilliTotal += 1000;
    });
    expect(runWith(policy)).toThrow(/allocated GPU/);
  });

  it('stops a run with a job queued twice', () => {
    // Third pass (c arrives, the cluster is full): c waits; a second entry of it joins the queue.
    const policy = corrupting(3, (c) => {
      const queue = c.queued as JobRuntime[];
      queue.push(queue[queue.length - 1]!);
    });
    expect(runWith(policy)).toThrow(/queue/);
  });

  it('stops a run with a job marked completed while it still holds resources', () => {
    const policy = corrupting(2, (c) => {
      (c.running[0] as JobRuntime).phase = 'completed';
    });
    expect(runWith(policy)).toThrow(InvariantError);
  });

  it('stops a run with a job that ran longer than it lived (runtime ratio above 1)', () => {
    const policy = corrupting(2, (c) => {
      (c.running[0] as JobRuntime).runningS += 1000;
    });
    expect(runWith(policy)).toThrow(/runtime/);
  });

  it('stops a run with a job past its total steps', () => {
    const policy = corrupting(2, (c) => {
      (c.running[0] as JobRuntime).progressSteps += 1000;
    });
    expect(runWith(policy)).toThrow(/steps/);
  });

  it('rejects time going back between instants', () => {
    const checker = new InvariantChecker([], new ClusterState(gpuCluster(1, 8)));
    const at = (nowS: number) => checker.afterInstant({ nowS, queued: [], running: [], endedJobs: 0 });
    at(10);
    at(10);
    expect(() => at(5)).toThrow(/time went back/);
  });

  it('rejects a summary whose ETTR exceeds its runtime ratio, a ratio above 1, or job counts that do not add up', () => {
    const summary = simulate(scenarioOf(gpuCluster(2, 8), jobs)).summary;
    expect(() => checkSummary(summary, 4)).not.toThrow();
    const broken = (change: Partial<RunSummary>) => () => checkSummary({ ...summary, ...change }, 4);
    expect(broken({ ettr: summary.runtimeRatio + 0.01 })).toThrow(/ETTR/);
    expect(broken({ ettr: -0.01 })).toThrow(/ETTR/);
    expect(broken({ runtimeRatio: 1.01, ettr: 1 })).toThrow(/runtime ratio/);
    expect(broken({ jobs: { submitted: 4, completed: 3, failed: 0, unfinished: 0 } })).toThrow(/submitted/);
    expect(broken({ gpuAllocationRate: 1.5 })).toThrow(/allocation/);
  });
});

describe('effective training time', () => {
  it('never exceeds the time a job trained, even when it runs on more workers than it asked for', () => {
    const job = allreduceJob('e', { workers: 2, totalSteps: 1000, elastic: { minReplicas: 1, maxReplicas: 4, unit: 1 } });
    // Starts the job at its maximum, four workers: twice its requested speed.
    const atMaximum: SchedulingPolicy = {
      name: 'at-maximum',
      schedule: (c) =>
        c.queued.map((queued) => {
          const request = placementRequestOf(queued.request, 4);
          return { kind: 'start' as const, jobId: queued.request.id, tasks: packPlacement.place(c.scratch(), request)! };
        }),
    };
    const result = new Simulation(scenarioOf(gpuCluster(4, 8), [job]), { schedulingPolicy: atMaximum }).run();
    const e = result.jobs[0]!;
    expect(e.runningS).toBeCloseTo(500, 6);
    expect(e.effectiveS()).toBeLessThanOrEqual(e.runningS);
    expect(result.summary.ettr).toBeLessThanOrEqual(result.summary.runtimeRatio);
  });
});

describe('auxiliary tasks are owned', () => {
  it('a job that is not running may not hold auxiliary tasks', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    const job = new JobRuntime(batchJob('g', 0, 1, 100), 1, { nowS: 0 });
    job.phase = 'queued';
    expect(() => checkJob(job, cluster, 0)).not.toThrow();
    cluster.attachAux('g', [{ nodeIndex: 1, cpuMilli: 1000, memMiB: 1024 }]);
    expect(() => checkJob(job, cluster, 0)).toThrow(/job g \(queued\) holds auxiliary tasks but is not running/);
  });
});
