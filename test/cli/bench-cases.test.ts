import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseNames, schedulingPresets, targetOf } from '../../src/bench/cases.js';
import { CLI, ROOT, dlsim, interrupt, waitUntil, type CliRun } from '../cli-run.js';

/** Runs `dlsim` with these arguments once for the file: tests that read the same run share it. */
function sharedRun(...args: string[]): () => CliRun {
  let run: CliRun | null = null;
  return () => (run ??= dlsim(...args));
}

describe('dlsim bench cases', () => {
  const engineAndRound = sharedRun('bench', '--quick', '--json', '--only', 'engine,optimus-round');
  const scalingFifo = sharedRun('bench', '--quick', '--json', '--only', 'scaling/fifo');

  it('names a replay, a scaling and a philly case for one preset of every scheduling policy', () => {
    const presets = schedulingPresets();
    expect(presets).toEqual(expect.arrayContaining(['fifo', 'fifo-backfill', 'sjf', 'drf', 'tetris', 'tiresias', 'optimus', 'edl']));
    for (const preset of presets) {
      for (const kind of ['replay', 'scaling', 'philly']) expect(caseNames()).toContain(`${kind}/${preset}`);
    }
  });

  it('holds each case to its target: fast presets 10 s, others 60 s, 2 GiB; doubling ratio 2.2; engine ratio 0.5', () => {
    expect(targetOf('replay/fifo').holds(9.9, 100, null)).toBe(true);
    expect(targetOf('replay/fifo').holds(10.1, 100, null)).toBe(false);
    expect(targetOf('replay/drf').holds(59, 100, null)).toBe(true);
    expect(targetOf('replay/drf').holds(59, 2049, null)).toBe(false);
    expect(targetOf('scaling/sjf').holds(100, 100, 2.3)).toBe(false);
    expect(targetOf('engine').holds(0, 100, 0.6)).toBe(true);
    expect(targetOf('faults-16k').holds(1, 1, null)).toBeNull();
  });

  it('prints every case it ran as {name, wallS, eventsPerS, maxRssMiB, ratio, target, pass}, each run in its own process', () => {
    const run = engineAndRound();
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: Record<string, unknown>[] };
    expect(cases.map((c) => c.name)).toEqual(['engine', 'optimus-round']);
    for (const c of cases) {
      expect(Object.keys(c).sort()).toEqual(['eventsPerS', 'maxRssMiB', 'name', 'note', 'pass', 'ratio', 'target', 'wallS']);
      expect(c.maxRssMiB).toBeGreaterThan(10);
      expect(typeof c.pass).toBe('boolean');
    }
    expect(cases[0]!.ratio).toBeGreaterThan(0);
  });

  it('runs a timed case in two rounds by default and keeps its least time; the engine ratio once', () => {
    const run = engineAndRound();
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: { note: string; wallS: number }[] };
    const [engine, round] = cases;
    expect(engine!.note).not.toMatch(/least of/);
    const times = /^least of 2 runs \(([^)]*) s\); one allocation round/.exec(round!.note)?.[1]?.split(' / ').map(Number);
    expect(times).toHaveLength(2);
    expect(round!.wallS).toBe(Math.min(...times!));
    const once = dlsim('bench', '--quick', '--json', '--only', 'optimus-round', '--rounds', '1');
    expect(once.code).toBe(0);
    expect((JSON.parse(once.stdout) as { cases: { note: string }[] }).cases[0]!.note).toMatch(/^one allocation round/);
  });

  it('says a case whose input is absent was not run, with no time and no verdict', () => {
    // A working folder with no ../shared beside it: the Philly trace is absent.
    const cwd = mkdtempSync(join(tmpdir(), 'dlsim-bench-absent-'));
    try {
      const run = spawnSync(process.execPath, [CLI, 'bench', '--quick', '--json', '--only', 'philly/fifo'], { cwd, encoding: 'utf8' });
      expect(run.status).toBe(0);
      const { cases } = JSON.parse(run.stdout) as { cases: Record<string, unknown>[] };
      expect(cases).toEqual([expect.objectContaining({ name: 'philly/fifo', wallS: null, pass: null, note: 'not run: ../shared/traces/philly-pollux/philly.csv is absent' })]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('says how congested each replay ran: its mean queue delay, one per size of a scaling case', () => {
    const run = scalingFifo();
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: { note: string }[] };
    const delays = /mean queue delay ([^;)]*)[;)]/.exec(cases[0]!.note)?.[1]?.split(' / ');
    expect(delays).toHaveLength(4);
    for (const delay of delays!) expect(delay).toMatch(/^[\d,]+ s$/);
    // The replay's own note is not repeated after the sizes' delays.
    expect(cases[0]!.note.match(/mean queue delay/g)).toHaveLength(1);
  });

  it('runs a scaling case in rounds (two by default) and keeps each size\'s least time, its ratios taken from those', () => {
    const run = scalingFifo();
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: { note: string; wallS: number; ratio: number }[] };
    const { note, wallS, ratio } = cases[0]!;
    const least = /least of 2 rounds ([^(]*) \(/.exec(note)?.[1]?.split(' / ').map((t) => Number.parseFloat(t));
    const rounds = /; rounds ([^)]*) s\)/.exec(note)?.[1]?.split(', ').map((r) => r.split(' / ').map(Number));
    expect(least).toHaveLength(4);
    expect(rounds).toHaveLength(2);
    for (const [k, time] of least!.entries()) expect(time).toBe(Math.min(...rounds!.map((r) => r[k]!)));
    expect(wallS).toBe(least![3]);
    const ratios = least!.slice(1).map((t, k) => t / least![k]!);
    expect(ratio).toBe(Math.round(Math.max(...ratios) * 100) / 100);
  });

  it('rejects a number of rounds out of bounds in one line', () => {
    for (const rounds of ['0', '11', 'two']) {
      const run = dlsim('bench', '--quick', '--only', 'scaling/fifo', '--rounds', rounds);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/--rounds: expected/);
    }
  });

  it('replays at another rate with --arrivals-per-minute, offering less load, and judges a replay\'s target at the default rate only', () => {
    const run = dlsim('bench', '--quick', '--json', '--rounds', '1', '--only', 'replay/fifo,optimus-round', '--arrivals-per-minute', '30');
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: { name: string; pass: boolean | null; note: string; wallS: number | null }[] };
    const [replay, round] = cases;
    expect(replay!.note).toMatch(/^target judged at 60\/min only; 20000 alibaba-pai jobs, 30\/min \(offered GPU load ([\d.]+);/);
    expect(replay!.pass).toBeNull();
    expect(replay!.wallS).toBeGreaterThan(0);
    // Half the default rate offers half the default's load (the same jobs over twice the time, give or take the last minute).
    const load = Number(/offered GPU load ([\d.]+)/.exec(replay!.note)![1]);
    const atDefault = JSON.parse(dlsim('bench', '--quick', '--json', '--rounds', '1', '--only', 'replay/fifo').stdout) as { cases: { pass: boolean | null; note: string }[] };
    const defaultLoad = Number(/60\/min \(offered GPU load ([\d.]+)/.exec(atDefault.cases[0]!.note)![1]);
    expect(load).toBeCloseTo(defaultLoad / 2, 1);
    expect(atDefault.cases[0]!.pass).not.toBeNull();
    // A case without a replay keeps its verdict.
    expect(round!.pass).not.toBeNull();
    for (const rate of ['0', '60001', 'fast']) {
      const bad = dlsim('bench', '--quick', '--only', 'replay/fifo', '--arrivals-per-minute', rate);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/--arrivals-per-minute: expected/);
    }
  });

  it('stops a case that runs past --case-timeout and reports it as missing its target', () => {
    const run = dlsim('bench', '--quick', '--json', '--only', 'replay/tetris', '--case-timeout', '1');
    expect(run.code).toBe(0);
    const { cases } = JSON.parse(run.stdout) as { cases: { name: string; pass: boolean | null; note: string; wallS: number | null }[] };
    expect(cases).toEqual([expect.objectContaining({ name: 'replay/tetris', pass: false, wallS: null, note: 'stopped after 1 s' })]);
  });

  it('passes SIGTERM on to the case running and ends by it at once, leaving no process behind', async () => {
    // A full-size replay: tens of seconds in its own process.
    const child = spawn(process.execPath, [CLI, 'bench', '--json', '--only', 'replay/fifo'], { cwd: ROOT });
    const caseRunning = (): boolean => spawnSync('pgrep', ['-f', 'bench --case replay/fifo']).status === 0;
    expect(await waitUntil(caseRunning, 10_000)).toBe(true);
    // Into the case's work (generating its jobs, then simulating them).
    const { endedBy, afterMs } = await interrupt(child, 1500, 'SIGTERM');
    expect(endedBy).toBe('SIGTERM');
    expect(afterMs).toBeLessThan(1000);
    await new Promise((done) => setTimeout(done, 200));
    expect(caseRunning()).toBe(false);
  });

  it('passes SIGTERM on to the trace import the import-memory figure runs, and ends by it once the import and its files are gone', async () => {
    // Temporary files go to a folder of this test's own, to see that none is left.
    const tmp = mkdtempSync(join(tmpdir(), 'dlsim-bench-test-'));
    try {
      const child = spawn(process.execPath, [CLI, 'bench', '--json', '--only', 'import-memory', '--rows', '400000'], { cwd: ROOT, env: { ...process.env, TMPDIR: tmp } });
      const importRunning = (): boolean => spawnSync('pgrep', ['-f', `${tmp}.*philly-large.csv`]).status === 0;
      expect(await waitUntil(importRunning, 30_000)).toBe(true);
      const { endedBy, afterMs } = await interrupt(child, 500, 'SIGTERM');
      expect(endedBy).toBe('SIGTERM');
      expect(afterMs).toBeLessThan(2000);
      expect(importRunning()).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('refuses an unknown case in one line', () => {
    const run = dlsim('bench', '--only', 'replay/nope');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--only: unknown case "replay\/nope"/);
  });
});
