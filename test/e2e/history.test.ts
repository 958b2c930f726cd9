import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ArgumentsCamelCase } from 'yargs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { HistoryDb } from '../../src/io/history-db.js';
import { SIMILAR_JOBS_WITHIN_S, type HistoryView } from '../../src/policies/autoscale/history-view.js';
import { registerPolicy } from '../../src/policies/registry.js';
import { dlsim, folderWith } from '../cli-run.js';

/** A small PS scenario: alice's DeepFM on criteo, bob's job without a dataset, a batch job; its history in hist.sqlite. */
function psScenario(extra = ''): string {
  return [
    'name: ps-history',
    'seed: 1',
    'policy: fifo',
    'history: hist.sqlite',
    extra,
    'cluster:',
    '  nodes: [{group: cpu, count: 2, cpuCores: 64, memGiB: 256}]',
    'workload:',
    '  jobs:',
    '    - {id: deepfm, kind: ps, user: alice, dataset: criteo, replicas: 2, cpuCores: 4, memGiB: 8, ps: {replicas: 1, cpuCores: 8, memGiB: 8}, steps: 20000}',
    '    - {id: wide, kind: ps, user: bob, submit: 10m, cpuCores: 4, memGiB: 8, ps: {cpuCores: 4, memGiB: 8}, duration: 1h}',
    '    - {id: sort, kind: batch, duration: 30m, cpuCores: 2}',
    '',
  ].join('\n');
}

async function recordsIn(file: string) {
  const db = await HistoryDb.open(file);
  try {
    return db.all();
  } finally {
    db.close();
  }
}

describe('dlsim run and compare with a history', () => {
  it('run creates the file and adds each completed PS job; the next run starts the next day', async () => {
    const dir = folderWith({ 'ps.yaml': psScenario() });
    const file = join(dir, 'hist.sqlite');
    const first = dlsim('run', join(dir, 'ps.yaml'), '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ scenario: 'ps-history', jobs: { completed: 3 } });
    const afterFirst = await recordsIn(file);
    expect(afterFirst.map((r) => [r.jobId, r.user, r.dataset, r.runLabel])).toEqual([
      ['deepfm', 'alice', 'criteo', 'ps-history seed 1'],
      ['wide', 'bob', '', 'ps-history seed 1'],
    ]);
    expect(afterFirst.every((r) => r.finishedAtS > 0 && r.finishedAtS < 86_400)).toBe(true);
    expect(afterFirst[0]!.shape.worker).toEqual({ replicas: 2, cpuMilli: 4000, memMiB: 8192 });

    const second = dlsim('run', join(dir, 'ps.yaml'), '--seed', '2');
    expect(second.code).toBe(0);
    const afterSecond = await recordsIn(file);
    expect(afterSecond).toHaveLength(4);
    expect(afterSecond.slice(0, 2)).toEqual(afterFirst);
    expect(afterSecond.slice(2).map((r) => [r.jobId, r.runLabel])).toEqual([
      ['deepfm', 'ps-history seed 2'],
      ['wide', 'ps-history seed 2'],
    ]);
    // Day 2: the first run's jobs finished on day 0, so the second starts at 86,400 s.
    expect(afterSecond[2]!.finishedAtS).toBeCloseTo(86_400 + afterFirst[0]!.finishedAtS, 6);
  });

  it('compare reads the history, never writes it, says so once, and gives the same result for any worker count', () => {
    const dir = folderWith({ 'ps.yaml': psScenario() });
    const file = join(dir, 'hist.sqlite');
    expect(dlsim('run', join(dir, 'ps.yaml')).code).toBe(0);
    const bytes = readFileSync(file);
    const mtimeMs = statSync(file).mtimeMs;
    const parallel = dlsim('compare', join(dir, 'ps.yaml'), '--policies', 'fifo,drf', '--seeds', '2', '--workers', '2', '--json');
    expect(parallel.code).toBe(0);
    expect(parallel.stderr).toBe(`dlsim: note: compare reads the history ${file} (2 records) and does not add to it: every run sees it as it is now\n`);
    const serial = dlsim('compare', join(dir, 'ps.yaml'), '--policies', 'fifo,drf', '--seeds', '2', '--workers', '1', '--json');
    expect(serial.stdout).toBe(parallel.stdout);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
  });

  it('compare creates no history file when there is none', () => {
    const dir = folderWith({ 'ps.yaml': psScenario() });
    const run = dlsim('compare', join(dir, 'ps.yaml'), '--policies', 'fifo', '--seeds', '1', '--workers', '1');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\(0 records\) and does not add to it/);
    expect(existsSync(join(dir, 'hist.sqlite'))).toBe(false);
  });

  it('a history file that is not one stops run and compare with one line naming it, and is left alone', () => {
    const dir = folderWith({ 'ps.yaml': psScenario(), 'hist.sqlite': 'id,user\n1,alice\n' });
    const file = join(dir, 'hist.sqlite');
    for (const args of [['run', join(dir, 'ps.yaml')], ['compare', join(dir, 'ps.yaml'), '--policies', 'fifo', '--seeds', '1']]) {
      const run = dlsim(...args);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`dlsim: ${file}: not a dlsim history database, or a corrupt one (file is not a database)\n`);
    }
    expect(readFileSync(file, 'utf8')).toBe('id,user\n1,alice\n');
  });
});

/** What the probe auto-scaler read of the history: per consultation, the job and the ids of its similar jobs. */
const seen: string[] = [];
let probedView: HistoryView | undefined;

// An auto-scaler that changes nothing: it listens to every running job and reads the history for each.
registerPolicy('autoscale', 'history-probe', {
  create: (handle) => {
    probedView = handle.history;
    return {
      name: 'history-probe',
      autoscale(context) {
        for (const job of context.running) {
          context.listen(job.request.id);
          const similar = handle.history?.similar(job.request.user, job.request.dataset ?? '', SIMILAR_JOBS_WITHIN_S, context.nowS) ?? [];
          seen.push(`${job.request.id}@${context.nowS}: ${similar.map((r) => `${r.jobId}/${r.runLabel}`).join(',')}`);
        }
        return [];
      },
    };
  },
});

describe('dlsim run hands the history to the policies', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function run(file: string, seed: number): Promise<void> {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const args = { scenario: file, seed, json: true, _: [], $0: 'dlsim' } as ArgumentsCamelCase<{ scenario: string; seed: number; json: boolean }>;
    await runCommand.handler(args);
    vi.restoreAllMocks();
  }

  it('the second run sees the first run’s jobs of the same user and dataset, with their sampled usage', async () => {
    const dir = folderWith({ 'ps.yaml': psScenario('policies: {autoscale: history-probe}') });
    const scenario = join(dir, 'ps.yaml');
    seen.length = 0;
    await run(scenario, 1);
    expect(probedView).toBeDefined();
    const firstLines = seen.filter((line) => line.startsWith('deepfm@'));
    expect(firstLines.length).toBeGreaterThan(0);
    expect(firstLines.every((line) => line.endsWith(': '))).toBe(true);

    const recorded = await recordsIn(join(dir, 'hist.sqlite'));
    const deepfm = recorded.find((r) => r.jobId === 'deepfm')!;
    // The probe listened, so the record carries the sampled usage.
    expect(deepfm.samples.length).toBeGreaterThan(0);
    expect(deepfm.usage.ps!.maxCpuCores).toBeGreaterThan(0);
    expect(deepfm.psTotals!.maxCpuCores).toBeGreaterThanOrEqual(deepfm.psTotals!.meanCpuCores);

    seen.length = 0;
    await run(scenario, 2);
    const deepfmLines = seen.filter((line) => line.startsWith('deepfm@'));
    expect(deepfmLines.length).toBeGreaterThan(0);
    // Alice's job on criteo sees the first run's deepfm only (bob's job is another user's; the batch job is no PS job).
    expect(deepfmLines.every((line) => line.endsWith(': deepfm/ps-history seed 1'))).toBe(true);
    expect(seen.filter((line) => line.startsWith('wide@')).every((line) => line.endsWith(': wide/ps-history seed 1'))).toBe(true);
    expect((await recordsIn(join(dir, 'hist.sqlite'))).map((r) => r.runLabel)).toEqual(['ps-history seed 1', 'ps-history seed 1', 'ps-history seed 2', 'ps-history seed 2']);
  });

  it('a scenario without history gives the policies none', async () => {
    const dir = folderWith({ 'ps.yaml': psScenario('policies: {autoscale: history-probe}').replace('history: hist.sqlite\n', '') });
    probedView = undefined;
    await run(join(dir, 'ps.yaml'), 1);
    expect(probedView).toBeUndefined();
    expect(existsSync(join(dir, 'hist.sqlite'))).toBe(false);
  });
});
