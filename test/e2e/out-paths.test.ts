import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, dlsim, interrupt } from '../cli-run.js';

const PHILLY_SAMPLE = join(ROOT, 'traces/samples/philly/philly_jobs.csv');

/** Runs the built CLI and returns exit code, stdout and stderr. */
/** Asserts a user error: exit 1 and exactly one stderr line containing `text`. */
function expectOneLineError(result: ReturnType<typeof dlsim>, text: string | RegExp): void {
  expect(result.code).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
}

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'dlsim-out-'));
}

const importTo = (out: string, input = PHILLY_SAMPLE) => dlsim('trace', 'import', '--format', 'philly', input, '--out', out);

describe('--out is checked before anything is written', () => {
  it('trace import --out DIR: a folder is refused', () => {
    const dir = freshDir();
    expectOneLineError(importTo(dir), `--out: ${dir}: is a folder, expected a file`);
  });

  it("trace import --out '': an empty path is refused", () => {
    expectOneLineError(importTo(''), '--out: expected a path, got ""');
  });

  it('trace import --out under a file is refused', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'plain'), 'x');
    expectOneLineError(importTo(join(dir, 'plain', 'x.jsonl')), /is a file, not a folder/);
  });

  it('trace import --out equal to the input leaves the input untouched', () => {
    const dir = freshDir();
    const input = join(dir, 'philly.csv');
    copyFileSync(PHILLY_SAMPLE, input);
    const before = readFileSync(input, 'utf8');
    expectOneLineError(importTo(input, input), /is also an input file/);
    expect(readFileSync(input, 'utf8')).toBe(before);
  });

  it('trace import --out naming a special file (a FIFO) does not replace it', () => {
    const dir = freshDir();
    const fifo = join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expectOneLineError(importTo(fifo), /not a regular file/);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('trace import --out in a folder it cannot write to is refused (skipped as root, who may write anywhere)', () => {
    if (process.getuid?.() === 0) {
      console.warn('skipping the unwritable-folder case: running as root, which ignores folder permissions');
      return;
    }
    const dir = freshDir();
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    expectOneLineError(importTo(join(locked, 'x.jsonl')), /cannot write into/);
  });

  it('trace generate --out DIR and under a file are refused', () => {
    const dir = freshDir();
    expectOneLineError(dlsim('trace', 'generate', '--style', 'philly', '--jobs', '3', '--out', dir), /is a folder, expected a file/);
    writeFileSync(join(dir, 'plain'), 'x');
    expectOneLineError(dlsim('trace', 'generate', '--style', 'philly', '--jobs', '3', '--out', join(dir, 'plain', 'y.jsonl')), /is a file, not a folder/);
  });

  it('run --out naming a file, or empty, is refused before the run', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'plain'), 'x');
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--out', join(dir, 'plain')), /is not a folder/);
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--out', ''), '--out: expected a path, got ""');
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--out', join(dir, 'plain', 'sub')), /is a file, not a folder/);
  });

  it('compare --out under a file is refused before any run', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'plain'), 'x');
    const result = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo', '--seeds', '1', '--out', join(dir, 'plain', 'cmp'));
    expectOneLineError(result, /is a file, not a folder/);
    expect(result.stdout).toBe('');
  });

  it('compare --out writes its files and no temporary file', () => {
    const out = join(freshDir(), 'cmp');
    const result = dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo', '--seeds', '1', '--workers', '1', '--out', out);
    expect(result.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['comparison.csv', 'comparison.json', 'report.html', 'runs']);
    expect(readdirSync(join(out, 'runs', 'fifo')).sort()).toEqual(['autoscale.csv', 'gantt.csv', 'jobs.csv', 'summary.json', 'timeline.csv', 'usage.csv']);
  });
});

describe('an interrupted command leaves no temporary file', () => {
  it('trace import stopped by SIGTERM while reading removes its temporary output', async () => {
    const { spawn } = await import('node:child_process');
    const dir = freshDir();
    const input = join(dir, 'in.jsonl');
    // A FIFO nobody writes to: the import waits on it with its temporary output open.
    expect(spawnSync('mkfifo', [input]).status).toBe(0);
    const child = spawn(process.execPath, [CLI, 'trace', 'import', '--format', 'native', input, '--out', join(dir, 'out.jsonl')], { cwd: ROOT });
    const exited = new Promise<string | null>((done) => child.on('exit', (code, signal) => done(signal ?? String(code))));
    let sawTemporary = false;
    for (let i = 0; i < 200 && !sawTemporary; i++) {
      await new Promise((done) => setTimeout(done, 25));
      sawTemporary = readdirSync(dir).some((name) => name.endsWith('.tmp'));
    }
    expect(sawTemporary).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    expect(readdirSync(dir)).toEqual(['in.jsonl']);
  });

  it('run stopped by SIGINT while it makes and simulates its jobs ends at once, writing nothing', async () => {
    const { spawn } = await import('node:child_process');
    const dir = freshDir();
    const scenario = join(dir, 'long.yaml');
    // Seconds of work held in one thread (generating, then simulating 200,000 jobs), with no file pending.
    writeFileSync(
      scenario,
      'name: long\nseed: 1\npolicy: fifo\ncluster:\n  nodes:\n    - {group: a, count: 64, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}\n' +
        'workload:\n  synthetic: {jobs: 200000, arrivalsPerHour: 3600, duration: {median: 1h}, gpus: {1: 1}}\n',
    );
    const out = join(dir, 'out');
    const child = spawn(process.execPath, [CLI, 'run', scenario, '--out', out, '--quiet'], { cwd: ROOT });
    const { endedBy, afterMs } = await interrupt(child, 1500, 'SIGINT');
    expect(endedBy).toBe('SIGINT');
    // A handler would have run only once the thread was free (the whole run, several seconds).
    expect(afterMs).toBeLessThan(1000);
    expect(readdirSync(dir)).toEqual(['long.yaml']);
  });
});
