/** Contract of the auto-scaling and data-worker kinds: every registered policy of each kind must pass it. */
import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { Decision } from '../../src/policies/decision.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { policyEntry, policyIds } from '../../src/policies/registry.js';
import type { JobView, ObservingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { batchJob, gpuCluster, psJob, TEST_HANDLE } from '../helpers.js';

/** A small busy cluster with a running batch job and a running PS job, and samples of the PS job. */
function contractCase(): { cluster: ClusterState; running: JobView[]; context: ObservingContext } {
  const cluster = new ClusterState(gpuCluster(2, 8));
  const batch = batchJob('b', 0, 4, 1000);
  const ps = psJob('p', 2, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 } }, 10_000);
  cluster.allocate('b', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3], demand: batch.roles[0]!.demand }]);
  cluster.allocate('p', [
    { role: 'worker', nodeIndex: 1, gpuIndices: [], demand: ps.roles[0]!.demand },
    { role: 'worker', nodeIndex: 1, gpuIndices: [], demand: ps.roles[0]!.demand },
    { role: 'ps', nodeIndex: 1, gpuIndices: [], demand: ps.roles[1]!.demand },
  ]);
  const running = [batch, ps].map((spec) => {
    const job = new JobRuntime(spec, 1, { nowS: 600 });
    job.phase = 'running';
    job.firstStartS = 0;
    return job;
  });
  const listened = new Set<string>();
  const context: ObservingContext = {
    nowS: 600,
    cluster,
    running,
    placement: packPlacement,
    scratch: () => new CapacityScratch(cluster),
    job: (jobId) => running.find((j) => j.request.id === jobId),
    samples: (jobId) => (listened.has(jobId) ? [{ atS: 570, stepsPerS: 10, roles: [{ role: 'ps', replicas: 1, cpuUsedCores: 3.9, memUsedMiB: 4000 }] }] : []),
    listen: (jobId) => void listened.add(jobId),
    unlisten: (jobId) => void listened.delete(jobId),
    listenInput: (jobId) => void listened.add(jobId),
  };
  return { cluster, running, context };
}

/** What a policy could see, to detect mutation. */
function snapshot(cluster: ClusterState, jobs: readonly JobView[]): string {
  const nodes = cluster.nodes.map((_, i) => [cluster.freeCpuMilli(i), cluster.idleCpuMilli(i), cluster.freeWholeGpus(i)]);
  return JSON.stringify({ nodes, jobs: jobs.map((j) => [j.request.id, j.phase, j.workers, j.ps, cluster.tasksOf(j.request.id)]) });
}

const kinds = [
  { kind: 'autoscale' as const, allowed: ['resize', 'reshape-role'], run: (id: string, c: ObservingContext) => policyEntry('autoscale', id)!.create(TEST_HANDLE, {}).autoscale(c) },
  { kind: 'data' as const, allowed: ['attach', 'detach'], run: (id: string, c: ObservingContext) => policyEntry('data', id)!.create(TEST_HANDLE, {}).data(c) },
];

describe.each(kinds)('$kind policies (contract)', ({ kind, allowed, run }) => {
  describe.each(policyIds(kind))('%s', (id) => {
    it('is deterministic', () => {
      expect(JSON.stringify(run(id, contractCase().context))).toBe(JSON.stringify(run(id, contractCase().context)));
    });

    it(`decides only ${allowed.join(' or ')}, for running jobs, each at most once`, () => {
      const { context, running } = contractCase();
      const decisions = run(id, context);
      const ids = new Set(running.map((j) => j.request.id));
      for (const decision of decisions) {
        expect(allowed).toContain(decision.kind);
        expect(ids.has(decision.jobId)).toBe(true);
      }
      expect(new Set(decisions.map((d) => d.jobId)).size).toBe(decisions.length);
    });

    it('never mutates what it is given', () => {
      const { context, cluster, running } = contractCase();
      const before = snapshot(cluster, running);
      run(id, context);
      expect(snapshot(cluster, running)).toBe(before);
    });
  });
});

/** Data policies over two rounds (the first may only listen), the second seeing an empty input queue. */
describe.each(policyIds('data'))('data policy %s (contract, two rounds)', (id) => {
  function twoRounds(): { decisions: Decision[]; cluster: ClusterState } {
    const { context, cluster, running } = contractCase();
    // The batch job holds its 4 GPUs (as the simulation's start would set them).
    (running[0] as JobRuntime).gpus = 4;
    const policy = policyEntry('data', id)!.create(TEST_HANDLE, {});
    let nowS = 600;
    const later: ObservingContext = {
      ...context,
      get nowS() {
        return nowS;
      },
      samples: () => [{ atS: nowS - 1, stepsPerS: 10, roles: [], inputQueueLevel: 0 }],
    };
    policy.data(later);
    nowS += 3600;
    return { decisions: policy.data(later), cluster };
  }

  it('attaches only CPU/memory tasks that fit the idle capacity of schedulable nodes, node by node', () => {
    const { decisions, cluster } = twoRounds();
    const cpu = new Map<number, number>();
    const mem = new Map<number, number>();
    for (const decision of decisions) {
      if (decision.kind !== 'attach') continue;
      for (const task of decision.tasks) {
        expect(cluster.schedulable(task.nodeIndex)).toBe(true);
        expect(task.cpuMilli + task.memMiB).toBeGreaterThan(0);
        cpu.set(task.nodeIndex, (cpu.get(task.nodeIndex) ?? 0) + task.cpuMilli);
        mem.set(task.nodeIndex, (mem.get(task.nodeIndex) ?? 0) + task.memMiB);
      }
    }
    for (const [i, milli] of cpu) expect(milli).toBeLessThanOrEqual(cluster.idleCpuMilli(i));
    for (const [i, mib] of mem) expect(mib).toBeLessThanOrEqual(cluster.idleMemMiB(i));
  });

  it('is deterministic over two rounds', () => {
    expect(JSON.stringify(twoRounds().decisions)).toBe(JSON.stringify(twoRounds().decisions));
  });

  it('gives data workers, if any, only to a job whose input queue runs empty (here: the GPU job)', () => {
    for (const decision of twoRounds().decisions) if (decision.kind === 'attach') expect(decision.jobId).toBe('b');
    if (id === 'goldminer') expect(twoRounds().decisions.some((d) => d.kind === 'attach')).toBe(true);
  });
});
