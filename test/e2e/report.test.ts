import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dlsim, folderWith } from '../cli-run.js';

/** Expects exit 1 with one line on stderr matching `message`, and no stack. */
function expectOneLineError(run: ReturnType<typeof dlsim>, message: RegExp): void {
  expect(run.code).toBe(1);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\bat .*\.js:\d+/);
}

describe('dlsim report', () => {
  it('refuses a folder that is missing, or holds no run or comparison, or a broken jobs.csv, in one line', () => {
    expectOneLineError(dlsim('report', join(tmpdir(), 'dlsim-no-such-folder-xyz')), /no such folder/);
    expectOneLineError(dlsim('report', folderWith({ 'notes.txt': 'hi' })), /neither a run folder .*, a compare folder .* nor a sweep folder/);
    const broken = folderWith({ 'jobs.csv': 'id,state,jctS\na,completed,soon\n' });
    expectOneLineError(dlsim('report', broken), /jobs\.csv: the header lacks/);
    const badJson = folderWith({ 'comparison.json': '{"policies": [' });
    expectOneLineError(dlsim('report', badJson), /comparison\.json: not JSON/);
  });

  it('run --out draws the same report.html every time, and dlsim report rebuilds it byte for byte', () => {
    const base = mkdtempSync(join(tmpdir(), 'dlsim-report-'));
    const a = join(base, 'a');
    const b = join(base, 'b');
    for (const out of [a, b]) expect(dlsim('run', 'scenarios/default.yaml', '--set', 'workload.synthetic.jobs=40', '--policy', 'dlrover', '--out', out, '--json').code).toBe(0);
    const first = readFileSync(join(a, 'report.html'), 'utf8');
    expect(readFileSync(join(b, 'report.html'), 'utf8')).toBe(first);
    expect(first).toContain('scenario default · dlrover · seed 1');
    writeFileSync(join(a, 'report.html'), 'stale');
    const rebuilt = dlsim('report', a);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toBe(`${join(a, 'report.html')}\n`);
    expect(readFileSync(join(a, 'report.html'), 'utf8')).toBe(first);
    const usage = readFileSync(join(a, 'usage.csv'), 'utf8').trim().split('\n');
    expect(usage[0]).toBe('timeS,binS,allocatedGpus,busyGpus,totalGpus,allocatedCpuMilli,pendingJobs,runningJobs,dataWorkers');
    expect(usage.length - 1).toBeLessThanOrEqual(2000);
    expect(readFileSync(join(a, 'gantt.csv'), 'utf8').split('\n')[0]).toBe('jobId,state,fromS,toS');
    expect(readFileSync(join(a, 'autoscale.csv'), 'utf8').split('\n')[0]).toBe('jobId,timeS,workers,ps,stepsPerS');
  });

  it('compare --out writes runs/<policy>/ of the first seed and a report across policies that dlsim report rebuilds', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-report-')), 'cmp');
    const run = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo,drf', '--seeds', '2', '--workers', '2', '--out', out);
    expect(run.code).toBe(0);
    expect(readdirSync(join(out, 'runs')).sort()).toEqual(['drf', 'fifo']);
    for (const policy of ['fifo', 'drf']) {
      const summary = JSON.parse(readFileSync(join(out, 'runs', policy, 'summary.json'), 'utf8')) as { policy: string; seed: number };
      expect([summary.policy, summary.seed]).toEqual([policy, 1]);
    }
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<th>fifo<br><span class="ratio">baseline</span></th><th>drf</th>');
    expect(html).toContain('<path data-series="drf"');
    expect(dlsim('report', out).code).toBe(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toBe(html);
  });
});
