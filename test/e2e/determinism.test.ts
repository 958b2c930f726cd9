import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dlsim } from '../cli-run.js';

const work = mkdtempSync(join(tmpdir(), 'dlsim-determinism-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the built CLI (npm test builds it first) in a process of its own. */
/** The default scenario cut to 60 jobs, with faults at 20 times the ant-2023 rates, under DLRover recovery, seed 3. */
const SCENARIO = ['scenarios/default.yaml', '--set', 'workload.synthetic.jobs=60', '--set', 'faults.scale=20'];
const SEED = 3;

/** summary.json's bytes without its perf block (the only part that varies between identical runs). */
function withoutPerf(summaryJson: string): string {
  const stripped = summaryJson.replace(/\n {2}"perf": \{[^}]*\}/, '');
  expect(stripped).not.toBe(summaryJson);
  return stripped;
}

/** A summary's numbers as dotted metric names (as comparison.csv names them), perf, perUser and provenance left out. */
function metricsOf(value: unknown, prefix = ''): Map<string, string> {
  const metrics = new Map<string, string>();
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const name = `${prefix}${key}`;
    if (name === 'perf' || name === 'perUser' || name === 'provenance') continue;
    if (typeof inner === 'number') metrics.set(name, String(inner));
    else if (inner !== null && typeof inner === 'object') for (const [k, v] of metricsOf(inner, `${name}.`)) metrics.set(k, v);
  }
  return metrics;
}

describe('determinism across processes', () => {
  it('two runs in separate processes, one checking invariants, and compare --workers 2 give the same bytes', () => {
    const outA = join(work, 'a');
    const outB = join(work, 'b');
    const outC = join(work, 'c');
    const a = dlsim('run', ...SCENARIO, '--policy', 'dlrover', '--seed', String(SEED), '--out', outA);
    const b = dlsim('run', ...SCENARIO, '--policy', 'dlrover', '--seed', String(SEED), '--out', outB, '--check-invariants');
    const c = dlsim('compare', ...SCENARIO, '--policies', 'dlrover', '--seed', String(SEED), '--seeds', '2', '--workers', '2', '--check-invariants', '--out', outC);
    for (const run of [a, b, c]) expect(run.stderr).toBe('');
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0]);

    const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
    expect(withoutPerf(read(outB, 'summary.json'))).toBe(withoutPerf(read(outA, 'summary.json')));
    expect(read(outB, 'jobs.csv')).toBe(read(outA, 'jobs.csv'));
    expect(read(outB, 'timeline.csv')).toBe(read(outA, 'timeline.csv'));

    // Faults struck and jobs recovered: the timeline has rows beyond its header.
    const summary = JSON.parse(read(outA, 'summary.json')) as { faults: { total: number }; restarts: number };
    expect(summary.faults.total).toBeGreaterThan(0);
    expect(summary.restarts).toBeGreaterThan(0);
    expect(read(outA, 'timeline.csv').trim().split('\n').length).toBeGreaterThan(1 + summary.faults.total);

    // The same run inside compare, on a worker thread: every metric of its comparison.csv rows is
    // the run's summary value, printed the same; a fault type only the other seed met reads 0.
    const rows = read(outC, 'comparison.csv').trim().split('\n').slice(1).map((line) => line.split(','));
    const fromCompare = new Map(rows.filter(([policy, seed]) => policy === 'dlrover' && seed === String(SEED)).map(([, , metric, value]) => [metric!, value!]));
    const fromRun = metricsOf(JSON.parse(read(outA, 'summary.json')));
    fromRun.delete('seed');
    for (const [metric, value] of fromRun) expect([metric, fromCompare.get(metric)]).toEqual([metric, value]);
    for (const [metric, value] of fromCompare) if (!fromRun.has(metric)) expect([metric, value]).toEqual([metric, '0']);
  });
});
