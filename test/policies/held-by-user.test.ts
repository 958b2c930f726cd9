import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobRequest } from '../../src/model/job-spec.js';
import { heldBy } from '../../src/policies/scheduling/drf-fill.js';
import { HeldByUser } from '../../src/policies/scheduling/held-by-user.js';
import type { JobPhase, JobView } from '../../src/policies/types.js';

interface FakeJob {
  request: JobRequest;
  phase: JobPhase;
  arrivalIndex: number;
}

/** What each user's running jobs hold, summed from scratch (non-zero users only). */
function summed(cluster: ClusterState, jobs: readonly FakeJob[]): Map<string, { gpuMilli: number; cpuMilli: number; memMiB: number }> {
  const byUser = new Map<string, { gpuMilli: number; cpuMilli: number; memMiB: number }>();
  for (const job of jobs) {
    if (job.phase !== 'running') continue;
    const held = heldBy(cluster.tasksOf(job.request.id) ?? []);
    const user = job.request.user;
    const total = byUser.get(user) ?? { gpuMilli: 0, cpuMilli: 0, memMiB: 0 };
    total.gpuMilli += held.gpuMilli;
    total.cpuMilli += held.cpuMilli;
    total.memMiB += held.memMiB;
    byUser.set(user, total);
  }
  for (const [user, t] of byUser) if (t.gpuMilli === 0 && t.cpuMilli === 0 && t.memMiB === 0) byUser.delete(user);
  return byUser;
}

function task(node: number, gpu: number, cpuMilli: number): TaskPlacement {
  return { role: 'worker', nodeIndex: node, gpuIndices: [gpu], demand: { gpus: 1, gpuMilli: 250, cpuMilli, memMiB: 100 } };
}

describe('HeldByUser', () => {
  it('holds what users\' running jobs hold after any starts, resizes and stops it is told of', () => {
    const step = fc.record({ kind: fc.constantFrom('start', 'grow', 'shrink', 'stop'), job: fc.integer({ min: 0, max: 7 }), cpu: fc.integer({ min: 0, max: 4 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const cluster = new ClusterState({ nodes: [{ name: 'n0', group: 'g', gpuType: 'A', gpus: 8, cpuMilli: 1_000_000, memMiB: 1_000_000, rack: 'r' }] });
        const jobs: FakeJob[] = Array.from({ length: 8 }, (_, k) => ({ request: { id: `j${k}`, user: `u${k % 3}` } as JobRequest, phase: 'queued', arrivalIndex: k }));
        const held = new HeldByUser();
        for (const { kind, job: k, cpu } of steps) {
          const job = jobs[k]!;
          const changes = { queued: [] as FakeJob[], started: [] as FakeJob[], stopped: [] as FakeJob[], resized: [] as FakeJob[] };
          if (kind === 'start' && job.phase !== 'running') {
            cluster.allocate(job.request.id, [task(0, k, cpu * 1000)]);
            job.phase = 'running';
            changes.started.push(job);
          } else if (kind === 'grow' && job.phase === 'running') {
            cluster.allocate(job.request.id, [task(0, k, cpu * 1000 + 1)]);
            changes.resized.push(job);
          } else if (kind === 'shrink' && job.phase === 'running') {
            const tasks = cluster.tasksOf(job.request.id)!;
            if (tasks.length > 1) {
              cluster.releaseTasks(job.request.id, [tasks[0]!]);
              changes.resized.push(job);
            }
          } else if (kind === 'stop' && job.phase === 'running') {
            cluster.release(job.request.id);
            job.phase = 'queued';
            changes.stopped.push(job);
            changes.queued.push(job);
          }
          held.sync(cluster, () => jobs.filter((j) => j.phase === 'running') as unknown as JobView[], changes as unknown as Parameters<HeldByUser['sync']>[2]);
          expect(held.snapshot()).toEqual(summed(cluster, jobs));
        }
      }),
      { numRuns: 200 },
    );
  });
});
