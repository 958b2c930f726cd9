import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedTrace } from '../shared-traces.js';
import { dlsim } from '../cli-run.js';

/** A folder with a time-less pod list and a scenario replaying it on two 2-GPU nodes; `fill` is the scenario's fill section (or ''). */
function fillFolder(fill: string): { dir: string; scenario: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-fill-cli-'));
  writeFileSync(join(dir, 'pods.csv'), 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq1,2000,1024,1,600\nq2,2000,1024,2,1000\nq3,2000,1024,2,1000\nq4,2000,1024,1,300\n');
  const scenario = join(dir, 'fill.yaml');
  writeFileSync(
    scenario,
    `cluster:\n  nodes: [{count: 2, gpus: 2, gpuType: T4, cpuCores: 16, memGiB: 256}]\nworkload:\n  trace: {format: alibaba-gpu-2023, files: pods.csv}\n${fill}`,
  );
  return { dir, scenario };
}

interface FillJson {
  mode: string;
  placement: string;
  jobs: { submitted: number; placed: number; failed: number };
  firstFailure: { position: number; jobId: string } | null;
  atFirstFailure: { gpuAllocationRate: number; fragmentationGpus: number; idleGpus: number };
  final: { gpuAllocationRate: number; fragmentationGpus: number; idleGpus: number; fragmentationShareOfIdle: number };
  perf: { wallS: number };
}

describe('dlsim run on a fill scenario', () => {
  it('prints the fill summary as JSON, and --out writes the same summary.json', () => {
    const { dir, scenario } = fillFolder('fill: {}\n');
    const out = join(dir, 'out');
    const run = dlsim('run', scenario, '--json', '--out', out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as FillJson;
    // pack: q1 on a node, q2 fills the other; q3 (two whole GPUs) finds none; q4 shares q1's GPU.
    expect(summary).toMatchObject({ mode: 'fill', placement: 'pack', jobs: { submitted: 4, placed: 3, failed: 1 }, firstFailure: { position: 3, jobId: 'q3' } });
    expect(summary.atFirstFailure.gpuAllocationRate).toBeCloseTo(2.6 / 4, 12);
    expect(summary.final.gpuAllocationRate).toBeCloseTo(2.9 / 4, 12);
    const written = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as FillJson;
    expect({ ...written, perf: null }).toEqual({ ...summary, perf: null });
  });

  it('prints a table with the state at the first failure and after every job; --policy picks the placement', () => {
    const { scenario } = fillFolder('fill: {}\n');
    const run = dlsim('run', scenario, '--policy', 'fifo-spread');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fill \(placement only\) {2}policy fifo-spread {2}placement spread/);
    expect(run.stdout).toMatch(/first failure: job q\d, #\d in order/);
    expect(run.stdout).toMatch(/^GPU allocation +\d+\.\d% +\d+\.\d%$/m);
    expect(run.stdout).toMatch(/^fragmentation \/ idle +\d+\.\d% +\d+\.\d%$/m);
  });

  it('refuses a time-less list in a timed run with one line, exit 1', () => {
    const { scenario } = fillFolder('');
    const run = dlsim('run', scenario);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^dlsim: .*fill\.yaml:4: workload\.trace: .*pods\.csv:2: a job list without times replays only in a fill run \(add a fill section\)\n$/);
  });
});

const pods = sharedTrace('alibaba-gpu-v2023/openb_pod_list_default.csv');
const nodeList = sharedTrace('alibaba-gpu-v2023/openb_node_list_gpu_node.csv');

describe.skipIf(pods === null || nodeList === null)('scenarios/alibaba-gpu-2023-fill.yaml', () => {
  it('tries all 8,152 pods on the 6,212 GPUs and reports the first failure below the final allocation', () => {
    const run = dlsim('run', 'scenarios/alibaba-gpu-2023-fill.yaml', '--json');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as FillJson & { gpus: number };
    expect(summary.gpus).toBe(6212);
    expect(summary.jobs.submitted).toBe(8152);
    expect(summary.jobs.placed + summary.jobs.failed).toBe(8152);
    expect(summary.firstFailure).not.toBeNull();
    expect(summary.atFirstFailure.gpuAllocationRate).toBeGreaterThan(0);
    expect(summary.atFirstFailure.gpuAllocationRate).toBeLessThanOrEqual(summary.final.gpuAllocationRate);
    expect(summary.final.fragmentationGpus).toBeLessThanOrEqual(summary.final.idleGpus);
    expect(summary.final.idleGpus).toBeCloseTo(6212 * (1 - summary.final.gpuAllocationRate), 6);
  });
});

interface FillComparisonJson {
  mode: string;
  policies: string[];
  seeds: number[];
  metrics: Record<string, Record<string, { n: number; mean: number; ci95: number | null; ratioToFirst: number | null }>>;
}

describe('dlsim compare on a fill scenario', () => {
  it('runs every preset on every seed and compares the fill figures, the same in JSON and comparison.json', () => {
    const { dir, scenario } = fillFolder('fill: {order: shuffle}\n');
    const out = join(dir, 'cmp');
    const run = dlsim('compare', scenario, '--policies', 'fifo,fifo-spread', '--seeds', '4', '--json', '--out', out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const comparison = JSON.parse(run.stdout) as FillComparisonJson;
    expect(comparison).toMatchObject({ mode: 'fill', policies: ['fifo', 'fifo-spread'], seeds: [1, 2, 3, 4] });
    const rate = comparison.metrics['atFirstFailure.gpuAllocationRate']!;
    expect(rate['fifo']!.n).toBe(4);
    expect(rate['fifo-spread']!.n).toBe(4);
    // Each seed's figure is the one `dlsim run` gives for it.
    const means: number[] = [];
    for (const seed of [1, 2, 3, 4]) {
      const single = JSON.parse(dlsim('run', scenario, '--policy', 'fifo', '--seed', String(seed), '--json').stdout) as FillJson;
      means.push(single.atFirstFailure.gpuAllocationRate);
    }
    expect(rate['fifo']!.mean).toBeCloseTo(means.reduce((a, b) => a + b, 0) / 4, 6);
    expect(JSON.parse(readFileSync(join(out, 'comparison.json'), 'utf8'))).toEqual(comparison);
    const csv = readFileSync(join(out, 'comparison.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('policy,seed,metric,value');
    expect(csv).toContain(`fifo,1,atFirstFailure.gpuAllocationRate,${means[0]}`);
  });

  it('prints the table of means ± 95% CI with the ratio to the first preset', () => {
    const { scenario } = fillFolder('fill: {}\n');
    const run = dlsim('compare', scenario, '--policies', 'fifo,fifo-spread', '--seeds', '2');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^scenario fill {2}fill \(placement only\) {2}seeds 1, 2/);
    expect(run.stdout).toMatch(/^GPU allocation at first failure +\d+\.\d% ± 0\.0% +\d+\.\d% ± 0\.0% \(\d\.\d\dx\)$/m);
    expect(run.stdout).toMatch(/^fragmentation \/ idle, after every job /m);
  });
});
