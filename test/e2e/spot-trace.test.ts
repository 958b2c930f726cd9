import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dlsim } from '../cli-run.js';
import { sharedTrace } from '../shared-traces.js';

const SAMPLE_SCENARIO = 'scenarios/examples/alibaba-spot-2026-sample.yaml';

describe('the alibaba-spot-2026 sample, end to end', () => {
  const json = dlsim('run', SAMPLE_SCENARIO, '--json');

  it('replays every job on the sample node list, high-priority jobs preempting spot jobs', () => {
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout) as {
      jobs: { submitted: number; completed: number };
      priorityClasses: { high: { jobs: number }; spot: { jobs: number; preemptions: number; preemptionLostGpuHours: number } };
    };
    expect(summary.jobs.submitted).toBe(10);
    expect(summary.jobs.completed).toBe(10);
    expect(summary.priorityClasses.high.jobs + summary.priorityClasses.spot.jobs).toBe(10);
    expect(summary.priorityClasses.spot.preemptions).toBeGreaterThan(0);
    expect(summary.priorityClasses.spot.preemptionLostGpuHours).toBeGreaterThan(0);
  });

  it('prints the spot preemptions and the work they lost in the readable table', () => {
    const table = dlsim('run', SAMPLE_SCENARIO);
    expect(table.code).toBe(0);
    const summary = JSON.parse(json.stdout) as { priorityClasses: { spot: { preemptions: number } } };
    expect(table.stdout).toMatch(new RegExp(`spot preemptions\\s+${summary.priorityClasses.spot.preemptions}\\n`));
    expect(table.stdout).toMatch(/lost to spot preemptions \(GPU hours\)\s+\d/);
    expect(table.stdout).toMatch(/^JCT, high priority\s/m);
  });

  it('gives byte-identical summaries on a second run, apart from perf', () => {
    const again = dlsim('run', SAMPLE_SCENARIO, '--json');
    const strip = (text: string): unknown => ({ ...(JSON.parse(text) as object), perf: null });
    expect(strip(again.stdout)).toEqual(strip(json.stdout));
  });
});

describe('scenarios/alibaba-spot-2026.yaml', () => {
  const jobs = sharedTrace('alibaba-spot-2026/job_info_df.csv');
  it.runIf(jobs === null)('fails with a one-line error naming the absent trace file when ../shared lacks it', () => {
    expect(existsSync('../shared/traces/alibaba-spot-2026/node_info_df.csv')).toBe(false);
    const run = dlsim('run', 'scenarios/alibaba-spot-2026.yaml');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/alibaba-spot-2026\/node_info_df\.csv/);
  });
});
