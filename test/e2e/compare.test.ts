import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dlsim } from '../cli-run.js';


describe('dlsim compare', () => {
  it('writes comparison.csv and comparison.json, and the result does not depend on the worker count', () => {
    const out = mkdtempSync(join(tmpdir(), 'dlsim-compare-'));
    const parallel = dlsim('compare', 'scenarios/default.yaml', '--policies', 'fifo', '--seeds', '3', '--workers', '2', '--out', out, '--json');
    expect(parallel.code).toBe(0);
    const serial = dlsim('compare', 'scenarios/default.yaml', '--policies', 'fifo', '--seeds', '3', '--workers', '1', '--json');
    expect(serial.stdout).toBe(parallel.stdout);
    expect(readdirSync(out).sort()).toEqual(['comparison.csv', 'comparison.json', 'report.html', 'runs']);
    expect(readdirSync(join(out, 'runs'))).toEqual(['fifo']);
    expect(JSON.parse(readFileSync(join(out, 'comparison.json'), 'utf8'))).toEqual(JSON.parse(parallel.stdout));
    const csv = readFileSync(join(out, 'comparison.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('policy,seed,metric,value');
    expect(csv.filter((l) => l.includes(',jctS.mean,'))).toHaveLength(3);
    const comparison = JSON.parse(parallel.stdout) as { seeds: number[]; metrics: Record<string, Record<string, { n: number }>> };
    expect(comparison.seeds).toEqual([1, 2, 3]);
    expect(comparison.metrics['jctS.mean']!.fifo!.n).toBe(3);
  });

  it('prints a table with mean and interval per metric', () => {
    const run = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo', '--seeds', '2');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/scenario quickstart\s+seeds 1, 2/);
    expect(run.stdout).toMatch(/JCT mean\s+\S+ ± \S+/);
  });

  it('exits 1 naming an unknown policy and the known ones', () => {
    const run = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo,nope');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--policies: unknown policy "nope"; known policies: fifo/);
  });

  it('adds up repeated --policies, as one comma-separated list', () => {
    const repeated = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo', '--policies', 'sjf', '--seeds', '1', '--json');
    expect(repeated.code).toBe(0);
    const listed = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo,sjf', '--seeds', '1', '--json');
    expect(repeated.stdout).toBe(listed.stdout);
  });
});
