import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedTrace } from '../shared-traces.js';
import { ROOT, dlsim } from '../cli-run.js';

const pods = sharedTrace('alibaba-gpu-v2023/openb_pod_list_default.csv');
const nodeList = sharedTrace('alibaba-gpu-v2023/openb_node_list_gpu_node.csv');

/** A copy of the Philly sample with three bad rows: text in a number, a negative duration, a short row. */
function badPhillyCsv(): string {
  const lines = readFileSync(join(ROOT, 'traces/samples/philly/philly_jobs.csv'), 'utf8').trim().split('\n');
  lines.splice(3, 0, '2017-10-01 00:10:00,abc,1,1,vc1');
  lines.splice(6, 0, '2017-10-01 00:11:00,-5,1,1,vc1');
  lines.splice(9, 0, '2017-10-01 00:12:00,100');
  const file = join(mkdtempSync(join(tmpdir(), 'dlsim-trace-')), 'bad.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('dlsim trace', () => {
  it('import skips bad rows, counting them by reason, and keeps the good ones', () => {
    const file = badPhillyCsv();
    const good = readFileSync(join(ROOT, 'traces/samples/philly/philly_jobs.csv'), 'utf8').trim().split('\n').length - 1;
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-trace-')), 'x.jsonl');
    const run = dlsim('trace', 'import', '--format', 'philly', file, '--out', out, '--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { jobs: number; skipped: number; skippedByReason: Record<string, number> };
    expect(report.jobs).toBe(good);
    expect(report.skipped).toBe(3);
    expect(Object.values(report.skippedByReason).reduce((a, b) => a + b, 0)).toBe(3);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(good);
  });

  it('import --strict stops at the first bad row with its file and line, exit 1, keeping the jobs before it', () => {
    const file = badPhillyCsv();
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-trace-')), 'x.jsonl');
    const run = dlsim('trace', 'import', '--format', 'philly', file, '--out', out, '--strict');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`${file}:4: duration: not a number ("abc")`);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('import names an unknown format and the known ones', () => {
    const run = dlsim('trace', 'import', '--format', 'nope', 'x.csv', '--out', '/tmp/x.jsonl');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown trace format "nope"; known formats: native, alibaba-gpu-2023/);
  });

  it.each(['alibaba-pai', 'ant', 'philly'])('generate --style %s writes a trace that inspect reads back', (style) => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-gen-')), `${style}.jsonl`);
    const generated = dlsim('trace', 'generate', '--style', style, '--jobs', '300', '--seed', '2', '--out', out);
    expect(generated.code).toBe(0);
    const inspected = JSON.parse(dlsim('trace', 'inspect', out, '--json').stdout) as { stats: { jobs: number } };
    expect(inspected.stats.jobs).toBe(300);
  });
});

describe.skipIf(pods === null || nodeList === null)('the real Alibaba GPU 2023 trace', () => {
  it('imports all 8,152 pods with no bad row', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-ali-')), 'p.jsonl');
    const run = dlsim('trace', 'import', '--format', 'alibaba-gpu-2023', pods!, '--out', out);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`imported 8152 jobs from 1 file(s) into ${out}\nno bad rows\n`);
  });

  it('replays on its real node list through scenarios/alibaba-gpu-2023.yaml', () => {
    const run = dlsim('run', 'scenarios/alibaba-gpu-2023.yaml', '--json');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { jobs: { submitted: number; completed: number }; gpuAllocationRate: number };
    expect(summary.jobs).toMatchObject({ submitted: 8152, completed: 8152 });
    expect(summary.gpuAllocationRate).toBeGreaterThan(0);
  });
});
