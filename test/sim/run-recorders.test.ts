import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { presetNames } from '../../src/policies/presets.js';
import { GANTT_STATES, ganttSample, MAX_GANTT_JOBS, type GanttRow, type GanttState } from '../../src/sim/gantt-recorder.js';
import { simulate } from '../../src/sim/simulation.js';
import type { JobRuntime } from '../../src/sim/job-runtime.js';

async function scenario(policy: string, jobs: number) {
  return loadScenario('scenarios/default.yaml', { policy, sets: [`workload.synthetic.jobs=${jobs}`], knownPolicies: presetNames() });
}

/** What jobs.csv says of a job's time in each Gantt state. */
function accountedS(job: JobRuntime): Record<GanttState, number> {
  const paused = job.pausedByKindS;
  return {
    queued: job.queuedS,
    running: job.runningS,
    'scaled-down': 0,
    checkpointing: job.checkpointingS,
    detecting: job.detectingS,
    rescheduling: paused.rescheduling,
    'health-check': paused['health-check'],
    starting: paused.starting,
    loading: paused.loading,
    resizing: paused.resizing,
  };
}

describe('run recorders', () => {
  it('leave the run as it is: the same summary with and without recording', async () => {
    for (const policy of ['fifo', 'dlrover']) {
      const s = await scenario(policy, 60);
      const plain = simulate(s);
      const recorded = simulate(s, { record: true });
      expect(recorded.summary).toEqual(plain.summary);
      expect(plain.recorded).toBeUndefined();
      expect(recorded.recorded!.usage.length).toBeGreaterThan(0);
    }
  });

  it('follow a hash sample of jobs whose intervals add up to the time jobs.csv accounts per state', async () => {
    const s = await scenario('dlrover', 250);
    const result = simulate(s, { record: true });
    const rows = result.recorded!.gantt;
    const byJob = new Map<string, GanttRow[]>();
    for (const row of rows) {
      expect(GANTT_STATES).toContain(row.state);
      expect(row.toS).toBeGreaterThan(row.fromS);
      byJob.set(row.jobId, [...(byJob.get(row.jobId) ?? []), row]);
    }
    expect(byJob.size).toBeLessThanOrEqual(MAX_GANTT_JOBS);
    expect(byJob.size).toBeGreaterThan(150);
    const states = new Set(rows.map((r) => r.state));
    expect(states.has('detecting') || states.has('rescheduling')).toBe(true);
    for (const [id, intervals] of byJob) {
      for (let i = 1; i < intervals.length; i++) expect(intervals[i]!.fromS).toBeGreaterThanOrEqual(intervals[i - 1]!.toS);
      const job = result.jobs.find((j) => j.spec.id === id)!;
      const want = accountedS(job);
      const got = Object.fromEntries(GANTT_STATES.map((state) => [state, 0])) as Record<GanttState, number>;
      for (const r of intervals) got[r.state] += r.toS - r.fromS;
      got.running += got['scaled-down'];
      got['scaled-down'] = 0;
      for (const state of GANTT_STATES) expect(got[state], `${id} ${state}`).toBeCloseTo(want[state], 3);
    }
  });

  it('follow the same jobs whatever the policy', async () => {
    const ids = async (policy: string) => new Set(simulate(await scenario(policy, 250), { record: true }).recorded!.gantt.map((r) => r.jobId));
    const fifo = await ids('fifo');
    const drf = await ids('drf');
    // Every sampled job that arrived shows up (jobs rejected as unschedulable have no interval).
    expect([...fifo].filter((id) => !drf.has(id))).toEqual([]);
  });

  it('record the workers, parameter servers and speed of the jobs the auto-scaler plans for', async () => {
    const result = simulate(await scenario('dlrover', 80), { record: true });
    const rows = result.recorded!.autoscale;
    const planned = new Set(result.scalePlans.map((p) => p.ownerJob));
    expect(planned.size).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(planned.has(row.jobId)).toBe(true);
      expect(row.workers).toBeGreaterThanOrEqual(0);
      expect(row.stepsPerS).toBeGreaterThanOrEqual(0);
    }
    expect(rows.some((r) => r.stepsPerS > 0 && r.workers > 0)).toBe(true);
  });
});

describe('ganttSample', () => {
  it('chooses at most the asked number of jobs by id alone, in job order', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `job-${i}`);
    const sample = ganttSample(ids, 200);
    expect(sample).toHaveLength(200);
    expect([...sample].sort((a, b) => a - b)).toEqual(sample);
    // Another order of the same ids picks the same ids.
    const reversed = [...ids].reverse();
    expect(new Set(ganttSample(reversed, 200).map((i) => reversed[i]))).toEqual(new Set(sample.map((i) => ids[i])));
    expect(ganttSample(ids.slice(0, 50), 200)).toHaveLength(50);
  });
});
