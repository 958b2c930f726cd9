import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { placementRequestOf, type PlainSchedulingPolicy } from '../../src/policies/types.js';
import { WAIT_REASONS, type WaitReason } from '../../src/policies/wait-reason.js';
import { jobsCsv, waitColumn } from '../../src/report/jobs-csv.js';
import { loadScenario } from '../../src/scenario/load.js';
import { presetNames } from '../../src/policies/presets.js';
import { simulate, type SimResult } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** Seconds per reason of one job, zero reasons left out. */
function waitsOf(result: SimResult, id: string): Partial<Record<WaitReason, number>> {
  const job = result.jobs.find((j) => j.spec.id === id)!;
  const out: Partial<Record<WaitReason, number>> = {};
  result.waits.secondsOf(job).forEach((seconds, r) => {
    if (seconds > 0) out[WAIT_REASONS[r]!] = seconds;
  });
  return out;
}

/** One 8-GPU node: A takes it all for 100 s, B asks for all of it at 1 s, C and D for one GPU at 2 and 3 s. */
function blockedRun(policy: string): SimResult {
  const jobs = [batchJob('A', 0, 8, 100), batchJob('B', 1, 8, 100), batchJob('C', 2, 1, 100), batchJob('D', 3, 1, 100)];
  return simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy }), { checkInvariants: true });
}

describe('why jobs waited', () => {
  it('fifo: the head waits for GPUs, the jobs behind it for the head', () => {
    const result = blockedRun('fifo');
    expect(waitsOf(result, 'A')).toEqual({});
    expect(waitsOf(result, 'B')).toEqual({ 'no-gpus': 99 });
    // Behind B until B starts at 100 s, then at the head itself until B ends at 200 s.
    expect(waitsOf(result, 'C')).toEqual({ 'head-of-line': 98, 'no-gpus': 100 });
    // D waits behind B, then behind C, and leaves the queue behind C.
    expect(waitsOf(result, 'D')).toEqual({ 'head-of-line': 197 });
    const blockerOf = (id: string) => result.jobs[result.waits.blockerOfJob(result.jobs.find((j) => j.spec.id === id)!)]?.spec.id;
    expect(blockerOf('D')).toBe('C');
    expect(blockerOf('C')).toBeUndefined();
    expect(result.summary.waitByReason['head-of-line']!.totalS).toBe(98 + 197);
    expect(result.summary.waitByReason['no-gpus']!.totalS).toBe(99 + 100);
  });

  it('fifo-backfill: each kind of request waits for what its last try found', () => {
    const result = blockedRun('fifo-backfill');
    expect(waitsOf(result, 'B')).toEqual({ 'no-gpus': 99 });
    // B goes first when A ends (it is first in order and fits), so C waits until B ends too.
    expect(waitsOf(result, 'C')).toEqual({ 'no-gpus': 198 });
    expect(waitsOf(result, 'D')).toEqual({ 'no-gpus': 197 });
  });

  it('a policy that says nothing leaves its jobs not-chosen', () => {
    const result = blockedRun('edl');
    for (const id of ['B', 'C', 'D']) {
      const waits = waitsOf(result, id);
      expect(Object.keys(waits)).toEqual(['not-chosen']);
    }
  });

  it('splits every job\'s queued time exactly, on a real scenario under every scheduling preset that queues', async () => {
    for (const policy of ['fifo', 'fifo-backfill', 'sjf', 'drf', 'tiresias', 'tetris']) {
      const scenario = await loadScenario('scenarios/default.yaml', { policy, knownPolicies: presetNames() });
      const result = simulate(scenario);
      const rows = parse(jobsCsv(result.jobs, result.endS, result.waits), { columns: true }) as Record<string, string>[];
      const ids = new Set(rows.map((row) => row.id));
      let named = 0;
      for (const row of rows) {
        const sum = WAIT_REASONS.reduce((total, reason) => total + Number(row[waitColumn(reason)]), 0);
        expect(sum, `${policy} ${row.id}`).toBeCloseTo(Number(row.queuedS), 1);
        if (row.waitBlockedBy !== '') expect(ids.has(row.waitBlockedBy!)).toBe(true);
        named += Number(row.queuedS) - Number(row.waitNotChosenS);
      }
      const shares = Object.values(result.summary.waitByReason).reduce((sum, r) => sum + r.share, 0);
      expect(shares).toBeCloseTo(1, 4);
      // The policies that give reasons give them for most of the waiting.
      if (policy !== 'tetris') expect(named, policy).toBeGreaterThan(0);
    }
  });

  it('a preempted job waits preempted, for the job started in its place, until its policy names it', () => {
    // A policy that names nothing: it starts what is queued when nothing runs, and preempts A for B.
    const policy: PlainSchedulingPolicy = {
      name: 'preempt-for-b',
      schedule(context) {
        const running = context.running.map((j) => j.request.id);
        const queued = context.queued;
        const b = queued.find((j) => j.request.id === 'B');
        if (b !== undefined && running.includes('A')) {
          const tasks = context.placement.place(context.scratch(), placementRequestOf(b.request))!;
          return [{ kind: 'preempt', jobId: 'A' }, { kind: 'start', jobId: 'B', tasks }];
        }
        if (running.length > 0 || queued.length === 0) return [];
        return [{ kind: 'start', jobId: queued[0]!.request.id, tasks: context.placement.place(context.scratch(), placementRequestOf(queued[0]!.request))! }];
      },
    };
    const jobs = [batchJob('A', 0, 4, 100), batchJob('B', 10, 4, 50)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs), { schedulingPolicy: policy, checkInvariants: true });
    const a = result.jobs.find((j) => j.spec.id === 'A')!;
    expect(a.preemptions).toBe(1);
    expect(waitsOf(result, 'A')).toEqual({ preempted: 50 });
    expect(result.jobs[result.waits.blockerOfJob(a)]?.spec.id).toBe('B');
  });

  it('tiresias: a preempted job waits preempted until tiresias tries it again', () => {
    const jobs = [batchJob('long', 0, 8, 20_000), batchJob('new', 5000, 8, 100)];
    const result = simulate(scenarioOf(gpuCluster(1, 8), jobs, { policy: 'tiresias' }), { checkInvariants: true });
    const long = result.jobs.find((j) => j.spec.id === 'long')!;
    expect(long.preemptions).toBe(1);
    const waits = waitsOf(result, 'long');
    // Preempted from the preemption to tiresias's next pass, then short of GPUs while `new` holds them.
    expect(Object.keys(waits).sort()).toEqual(['no-gpus', 'preempted']);
    expect(waits.preempted! + waits['no-gpus']!).toBeCloseTo(long.queuedS, 6);
    expect(long.queuedS).toBeCloseTo(100, 6);
  });
});
