import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { schedulingPolicies } from '../../src/policies/registry.js';
import type { JobView, SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { batchJob, gpuCluster } from '../helpers.js';

/** A busy little cluster and a queue of mixed jobs, as every scheduling policy must handle it. */
function contractCase(): { cluster: ClusterState; queued: JobView[]; context: SchedulingContext } {
  const cluster = new ClusterState(gpuCluster(3, 8));
  cluster.allocate('running-0', [
    { role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3, 4], demand: { gpus: 5, gpuMilli: 1000, cpuMilli: 4000, memMiB: 1024 } },
  ]);
  const queued = [
    batchJob('q1', 1, 8, 100, 2),
    batchJob('q2', 2, 1, 50),
    batchJob('q3', 3, 4, 10, 2),
    batchJob('q4', 4, 2, 70),
    batchJob('q5', 5, 8, 20, 3),
  ].map((spec) => {
    const job = new JobRuntime(spec);
    job.phase = 'queued';
    return job;
  });
  const context: SchedulingContext = {
    nowS: 10,
    cluster,
    queued,
    running: [],
    placement: packPlacement,
    scratch: () => new CapacityScratch(cluster),
  };
  return { cluster, queued, context };
}

/** A deep snapshot of everything a policy could see, to detect mutation. */
function snapshot(cluster: ClusterState, queued: readonly JobView[]): string {
  const nodes = cluster.nodes.map((_, i) => [
    cluster.nodeHealth(i),
    cluster.freeWholeGpus(i),
    cluster.freeCpuMilli(i),
    cluster.freeMemMiB(i),
  ]);
  return JSON.stringify({ nodes, jobs: queued.map((j) => [j.spec.id, j.phase, j.progressSteps, j.workers]) });
}

describe.each(Object.keys(schedulingPolicies))('scheduling policy %s (contract)', (name) => {
  const create = schedulingPolicies[name]!;

  it('is deterministic', () => {
    const first = create().schedule(contractCase().context);
    const second = create().schedule(contractCase().context);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('returns only known queued job ids, each at most once', () => {
    const { context, queued } = contractCase();
    const ids = create().schedule(context).map((a) => a.jobId);
    const known = new Set(queued.map((j) => j.spec.id));
    for (const id of ids) expect(known.has(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never mutates its view', () => {
    const { context, cluster, queued } = contractCase();
    const before = snapshot(cluster, queued);
    create().schedule(context);
    expect(snapshot(cluster, queued)).toBe(before);
  });

  it('never exceeds capacity: its decision applies to the real cluster without an invariant breach', () => {
    const { context, cluster } = contractCase();
    const actions = create().schedule(context);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) cluster.allocate(action.jobId, action.tasks);
    cluster.checkInvariants();
  });
});
