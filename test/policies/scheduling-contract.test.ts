import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { policyEntry, policyIds } from '../../src/policies/registry.js';
import { placementRequestOf, type JobView, type OracleJobView, type SchedulingContext, type SchedulingPolicy, type WaitExplainer } from '../../src/policies/types.js';
import { diagnoseUnplaced } from '../../src/policies/wait-diagnosis.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { batchJob, gpuCluster, TEST_HANDLE, NO_CHANGES, withoutViews } from '../helpers.js';

/** A busy little cluster and a queue of mixed jobs, as every scheduling policy must handle it. */
function contractCase(wrap: (job: JobRuntime) => OracleJobView = (job) => job): {
  cluster: ClusterState;
  queued: JobView[];
  running: JobView[];
  context: SchedulingContext<OracleJobView>;
} {
  const cluster = new ClusterState(gpuCluster(3, 8));
  const runningSpec = batchJob('r0', 0, 5, 1000);
  cluster.allocate('r0', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3, 4], demand: runningSpec.roles[0]!.demand }]);
  const r0 = new JobRuntime(runningSpec, 1, { nowS: 0 });
  r0.arrivalIndex = 0;
  r0.phase = 'running';
  r0.firstStartS = 0;
  r0.workers = 1;
  r0.gpus = 5;
  r0.progressSteps = 100;
  const running = [r0].map(wrap);
  const queued = [
    batchJob('q1', 1, 8, 100, 2),
    batchJob('q2', 2, 1, 50),
    batchJob('q3', 3, 4, 10, 2),
    batchJob('q4', 4, 2, 70),
    batchJob('q5', 5, 8, 20, 3),
  ].map((spec, index) => {
    const job = new JobRuntime(spec, 1, { nowS: 0 });
    job.arrivalIndex = index + 1;
    job.phase = 'queued';
    return wrap(job);
  });
  const context: SchedulingContext<OracleJobView> = {
    nowS: 10,
    cluster,
    queued,
    queuedInOrder: () => queued,
    running,
    placement: packPlacement,
    scratch: () => new CapacityScratch(cluster),
    changes: NO_CHANGES,
  };
  return { cluster, queued, running, context };
}

/** A deep snapshot of everything a policy could see, to detect mutation. */
function snapshot(cluster: ClusterState, jobs: readonly JobView[]): string {
  const nodes = cluster.nodes.map((_, i) => [
    cluster.nodeHealth(i),
    cluster.freeWholeGpus(i),
    cluster.freeCpuMilli(i),
    cluster.freeMemMiB(i),
  ]);
  return JSON.stringify({ nodes, jobs: jobs.map((j) => [j.request.id, j.phase, j.progressSteps, j.workers, j.gpus]) });
}

/** A job's view that throws when read for its spec, or for its truth unless `truthAllowed`. */
function guarded(truthAllowed: boolean): (job: JobRuntime) => OracleJobView {
  return (job) =>
    new Proxy(job, {
      get(target, key) {
        if (key === 'spec' || (key === 'truth' && !truthAllowed)) throw new Error(`read the job's ${String(key)}`);
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
}

describe.each(policyIds('scheduling'))('scheduling policy %s (contract)', (name) => {
  const create = (): SchedulingPolicy => policyEntry('scheduling', name)!.create(TEST_HANDLE, {});

  it('is deterministic', () => {
    const first = create().schedule(contractCase().context);
    const second = create().schedule(contractCase().context);
    expect(JSON.stringify(withoutViews(second))).toBe(JSON.stringify(withoutViews(first)));
  });

  it('returns only known job ids, each at most once: starts for queued jobs, resizes and preemptions for running ones', () => {
    const { context, queued, running } = contractCase();
    const actions = create().schedule(context);
    const queuedIds = new Set(queued.map((j) => j.request.id));
    const runningIds = new Set(running.map((j) => j.request.id));
    for (const action of actions) {
      expect(action.kind === 'start' ? queuedIds.has(action.jobId) : runningIds.has(action.jobId)).toBe(true);
      // A start that carries a view carries the one it was given of that job.
      if (action.kind === 'start' && action.job !== undefined) expect(queued.find((j) => j.request.id === action.jobId)).toBe(action.job);
    }
    expect(new Set(actions.map((a) => a.jobId)).size).toBe(actions.length);
  });

  it('reads the truth only when marked as an oracle, and never the spec', () => {
    const policy = create();
    const actions = policy.schedule(contractCase(guarded(policy.oracle === true)).context);
    expect(JSON.stringify(withoutViews(actions))).toBe(JSON.stringify(withoutViews(create().schedule(contractCase().context))));
    if (policy.oracle !== true) return;
    // An oracle does need the truth: hiding it breaks the policy.
    expect(() => create().schedule(contractCase(guarded(false)).context)).toThrow("read the job's truth");
  });

  it('gives wait reasons only for queued jobs it does not start, and decides the same with or without a place to give them', () => {
    const { context, queued } = contractCase();
    const queuedIds = new Set(queued.map((j) => j.request.id));
    const named: string[] = [];
    const why: WaitExplainer<OracleJobView> = {
      job: (job, reason) => void named.push(`${job.request.id}:${reason}`),
      unplaced: (job, scratch, request) => {
        const reason = diagnoseUnplaced(scratch, context.placement, request ?? placementRequestOf(job.request));
        named.push(`${job.request.id}:${reason}`);
        return reason;
      },
      diagnose: (scratch, request) => diagnoseUnplaced(scratch, context.placement, request),
      others: () => undefined,
      joinGroup: (job) => void named.push(`${job.request.id}:group`),
      group: () => undefined,
    };
    const actions = create().schedule({ ...context, why });
    expect(JSON.stringify(withoutViews(actions))).toBe(JSON.stringify(withoutViews(create().schedule(contractCase().context))));
    const started = new Set(actions.flatMap((a) => (a.kind === 'start' ? [a.jobId] : [])));
    for (const entry of named) {
      const [id, reason] = entry.split(':') as [string, string];
      expect(queuedIds.has(id), entry).toBe(true);
      // A job joins its group as it is taken in, before the policy knows whether it starts.
      if (reason !== 'group') expect(started.has(id), entry).toBe(false);
    }
    // The case does block fifo: after q1 and q2 start, 2 GPUs are left for q3's 8.
    if (name === 'fifo') expect(named).toEqual(['q3:no-gpus']);
  });

  it('never mutates its view', () => {
    const { context, cluster, queued, running } = contractCase();
    const before = snapshot(cluster, [...queued, ...running]);
    create().schedule(context);
    expect(snapshot(cluster, [...queued, ...running])).toBe(before);
  });

  it('never exceeds capacity: its decision applies to the real cluster without an invariant breach', () => {
    const { context, cluster } = contractCase();
    const actions = create().schedule(context);
    expect(actions.length).toBeGreaterThan(0);
    // The order the simulation applies them in: preemptions, resize removals, resize additions, starts.
    for (const a of actions) if (a.kind === 'preempt') cluster.release(a.jobId);
    for (const a of actions) if (a.kind === 'resize') cluster.releaseTasks(a.jobId, a.remove);
    for (const a of actions) if (a.kind === 'resize') cluster.allocate(a.jobId, a.add);
    for (const a of actions) if (a.kind === 'start') cluster.allocate(a.jobId, a.tasks);
    cluster.checkInvariants();
  });
});
