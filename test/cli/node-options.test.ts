import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restartOptions, SEMI_SPACE_MIB } from '../../src/cli/node-options.js';
import { CLI, folderWith, ROOT } from '../cli-run.js';

const FLAG = `--max-semi-space-size=${SEMI_SPACE_MIB}`;

/** A module node preloads (`--import`) that appends its process's pid and node options to `log`, one JSON line each. */
function recorder(log: string): string {
  const dir = folderWith({
    'record.mjs': `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n');\n`,
  });
  return join(dir, 'record.mjs');
}

/** Waits until the recorder saw the program and its child start (at most 10 s); returns them. */
async function childStarted(log: string): Promise<{ pid: number; execArgv: string[] }[]> {
  let started: { pid: number; execArgv: string[] }[] = [];
  for (let tries = 0; started.length < 2 && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      started = recorded(log);
    } catch {
      // Not written yet.
    }
  }
  expect(started).toHaveLength(2);
  return started;
}

/** The processes the recorder saw start, in order. */
function recorded(log: string): { pid: number; execArgv: string[] }[] {
  return readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; execArgv: string[] });
}

describe('node options of the dlsim program', () => {
  it('start node again with the semi-space size, keeping the options node was given, unless one is given', () => {
    expect(restartOptions([], undefined)).toEqual([FLAG]);
    expect(restartOptions(['--cpu-prof', '--heap-growing-percent=30'], '--max-old-space-size=4096')).toEqual(['--cpu-prof', '--heap-growing-percent=30', FLAG]);
    expect(restartOptions(['--max-semi-space-size=8'], undefined)).toBeNull();
    expect(restartOptions(['--max_semi_space_size=8'], undefined)).toBeNull();
    expect(restartOptions([], '--max-old-space-size=4096 --max-semi-space-size=32')).toBeNull();
    expect(restartOptions(['--max-semi-space'], undefined)).toEqual(['--max-semi-space', FLAG]);
  });

  it('runs the command in a child started with the size, passing its output and exit code through', () => {
    const dir = folderWith({});
    const log = join(dir, 'started.jsonl');
    const preload = recorder(log);
    const ok = spawnSync(process.execPath, ['--import', preload, CLI, '--version'], { encoding: 'utf8', cwd: ROOT });
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const [parent, child] = recorded(log);
    expect(parent!.execArgv).not.toContain(FLAG);
    expect(child!.execArgv).toEqual(['--import', preload, FLAG]);
    rmSync(log);
    const bad = spawnSync(process.execPath, ['--import', preload, CLI, 'run', join(dir, 'missing.yaml')], { encoding: 'utf8', cwd: ROOT });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([`dlsim: ${join(dir, 'missing.yaml')}: no such file`]);
    // Started with a size of its own, node runs the command itself.
    rmSync(log);
    const own = spawnSync(process.execPath, ['--import', preload, '--max-semi-space-size=8', CLI, '--version'], { encoding: 'utf8', cwd: ROOT });
    expect(own.status).toBe(0);
    expect(recorded(log).map((p) => p.execArgv)).toEqual([['--import', preload, '--max-semi-space-size=8']]);
  });

  /** Starts a sweep of 400 cells through the program, and waits for its child to write the first cell; returns both processes' pids and the run. */
  async function sweepStarted(): Promise<{ run: ReturnType<typeof spawn>; childPid: number; cells: () => number }> {
    const dir = folderWith({
      's.yaml': `scenario: ${join(ROOT, 'scenarios/sweeps/tiny.yaml')}\npolicies: [fifo, drf]\nseeds: 200\n`,
    });
    const log = join(dir, 'started.jsonl');
    const out = join(dir, 'out');
    const run = spawn(process.execPath, ['--import', recorder(log), CLI, 'sweep', join(dir, 's.yaml'), '--out', out, '--workers', '1', '--quiet'], { cwd: ROOT, stdio: 'ignore' });
    const started = await childStarted(log);
    const cells = (): number => (existsSync(join(out, 'cells')) ? readdirSync(join(out, 'cells')).length : 0);
    for (let tries = 0; cells() === 0 && tries < 400; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cells()).toBeGreaterThan(0);
    return { run, childPid: started[1]!.pid, cells };
  }

  /** Waits up to 10 s for a process to end; true when it did. */
  async function gone(pid: number): Promise<boolean> {
    for (let tries = 0; tries < 200; tries++) {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }

  it('passes a signal on to the child and ends by it', async () => {
    const { run, childPid, cells } = await sweepStarted();
    const ended = new Promise<NodeJS.Signals | null>((resolve) => run.on('exit', (_code, signal) => resolve(signal)));
    run.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    expect(await gone(childPid)).toBe(true);
    expect(cells()).toBeLessThan(400);
  });

  it('ends the child, between two cells of a sweep, when the program is killed outright', async () => {
    const { run, childPid, cells } = await sweepStarted();
    const ended = new Promise<void>((resolve) => run.on('exit', () => resolve()));
    run.kill('SIGKILL');
    await ended;
    expect(await gone(childPid)).toBe(true);
    expect(cells()).toBeLessThan(400);
  });
});
