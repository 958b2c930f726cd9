import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dlsim } from '../cli-run.js';
import { recoveryScenario } from '../bench/recovery-scenario.js';

const DIR = mkdtempSync(join(tmpdir(), 'dlsim-bench-cli-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const SCENARIO = recoveryScenario('recovery-days', '2d');

describe('dlsim bench --check / --update', () => {
  const scenario = join(DIR, 'recovery-days.yaml');
  writeFileSync(scenario, SCENARIO);

  it('writes the same bytes on any worker count, passes unchanged, and fails naming what a changed policy constant moved', () => {
    const serial = join(DIR, 'serial.json');
    const parallel = join(DIR, 'parallel.json');
    const update = dlsim('bench', '--update', serial, '--scenarios', scenario, '--workers', '1');
    expect(update.code).toBe(0);
    expect(update.stdout).toMatch(/recovery-days\.yaml {2}dlrover {2}seed 1 {2}new run, no baseline/);
    expect(dlsim('bench', '--update', parallel, '--scenarios', scenario, '--workers', '2').code).toBe(0);
    expect(readFileSync(parallel, 'utf8')).toBe(readFileSync(serial, 'utf8'));

    const clean = dlsim('bench', '--check', serial, '--scenarios', scenario, '--no-perf');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/baselines: 4 runs of 1 scenarios match/);

    const before = readFileSync(serial, 'utf8');
    const moved = dlsim('bench', '--check', serial, '--scenarios', scenario, '--no-perf', '--set', 'recoveryTimes.dlrover.replace=1h');
    expect(moved.code).toBe(1);
    const lines = moved.stdout.split('\n').filter((line) => line.startsWith('  ') && line.includes(' → '));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/recovery-days\.yaml {2}dlrover {2}seed [12] {2}\S+ {2}\S+ → \S+$/);
    expect(lines.some((line) => / {2}ettr {2}/.test(line))).toBe(true);
    expect(moved.stderr.trim().split('\n')).toHaveLength(1);
    expect(moved.stderr).toMatch(/^dlsim: bench --check failed: \d+ baseline metrics? moved; if intended, run dlsim bench --update/);
    expect(readFileSync(serial, 'utf8')).toBe(before);

    // --update prints the same diff and records it; the check then passes with the override.
    const updated = dlsim('bench', '--update', serial, '--scenarios', scenario, '--set', 'recoveryTimes.dlrover.replace=1h');
    expect(updated.code).toBe(0);
    expect(updated.stdout.split('\n').filter((line) => line.startsWith('  ') && line.includes(' → '))).toEqual(lines);
    expect(dlsim('bench', '--check', serial, '--scenarios', scenario, '--no-perf', '--set', 'recoveryTimes.dlrover.replace=1h').code).toBe(0);
    expect(readdirSync(DIR).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('fails on a published figure it misses, printing target, mean, interval and source', () => {
    const file = join(DIR, 'gated.yaml');
    writeFileSync(
      file,
      SCENARIO.replace('name: recovery-days', 'name: gated') +
        'expect:\n  - {metric: runtimeRatio, policy: fifo, target: 0.2, tolerance: 0.05, seeds: 3, source: "a made-up figure"}\n',
    );
    const baselines = join(DIR, 'gated.json');
    const run = dlsim('bench', '--update', baselines, '--scenarios', file);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/TARGET MISSED {2}gated {2}fifo {2}runtimeRatio: mean \S+ \(95% CI \S+ to \S+\) over 3 seeds; target 0\.2 ± 0\.05 \(a made-up figure\)/);
    expect(run.stderr).toMatch(/^dlsim: bench --update failed: 1 published figure failed\n$/);
    expect(existsSync(baselines)).toBe(true);
  }, 60_000);

  it('skips a scenario whose trace is absent, says why, and keeps its baselines', () => {
    const file = join(DIR, 'absent-trace.yaml');
    writeFileSync(
      file,
      'name: absent\ncluster:\n  nodes:\n    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}\nworkload:\n  trace: {format: philly, files: no-such-trace.csv}\n',
    );
    const baselines = join(DIR, 'absent.json');
    const recorded = '{\n  "version": 1,\n  "scenarios": {}\n}\n';
    writeFileSync(baselines, recorded);
    const run = dlsim('bench', '--check', baselines, '--scenarios', file, '--no-perf');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^skipped {2}\S*absent-trace\.yaml: \S*no-such-trace\.csv absent \(its baselines are kept, not checked\)$/m);
  });

  it('reports a missing baselines file and a bad option in one line', () => {
    const missing = dlsim('bench', '--check', join(DIR, 'none.json'), '--scenarios', scenario, '--no-perf');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^dlsim: \S+none\.json: no such file \(write it with dlsim bench --update\)\n$/);
    const both = dlsim('bench', '--check', 'a.json', '--update', 'b.json');
    expect(both.code).toBe(1);
    expect(both.stderr.trim().split('\n')).toHaveLength(1);
    const folder = dlsim('bench', '--check', 'a.json', '--scenarios', join(DIR, 'nope'));
    expect(folder.stderr).toMatch(/^dlsim: --scenarios: \S+nope: no such file or folder\n$/);
  });
});
