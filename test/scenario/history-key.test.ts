import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load.js';
import { rejection } from '../cli-run.js';

const OPTIONS = { knownPolicies: ['fifo'] };
const BODY = [
  'cluster:',
  '  nodes: [{count: 1, cpuCores: 32, memGiB: 128}]',
  'workload:',
  '  jobs:',
  '    - {id: p, kind: ps, user: alice, dataset: criteo, cpuCores: 2, ps: {cpuCores: 4}, steps: 1000}',
  '',
].join('\n');

/** A scenario file in a fresh folder with `extra` keys before its body; returns the file and its folder. */
function scenarioWith(extra: string): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-history-key-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `${extra}${BODY}`);
  return { file, dir };
}

describe('scenario key history', () => {
  it('takes a file name, resolved against the scenario folder', async () => {
    const { file, dir } = scenarioWith('history: data/history.sqlite\n');
    const scenario = await loadScenario(file, OPTIONS);
    expect(scenario.history).toEqual({ file: join(dir, 'data/history.sqlite') });
  });

  it('takes {file, startS}, startS in seconds or as a duration', async () => {
    expect((await loadScenario(scenarioWith('history: {file: h.sqlite, startS: 86400}\n').file, OPTIONS)).history?.startS).toBe(86_400);
    expect((await loadScenario(scenarioWith('history: {file: h.sqlite, startS: 3d}\n').file, OPTIONS)).history?.startS).toBe(3 * 86_400);
    expect((await loadScenario(scenarioWith('history: {file: h.sqlite}\n').file, OPTIONS)).history).not.toHaveProperty('startS');
  });

  it('is absent unless given, and --set gives it', async () => {
    const { file, dir } = scenarioWith('');
    expect((await loadScenario(file, OPTIONS)).history).toBeUndefined();
    expect((await loadScenario(file, { ...OPTIONS, sets: ['history=h.sqlite'] })).history).toEqual({ file: join(dir, 'h.sqlite') });
  });

  it('gives an inline job its dataset', async () => {
    const scenario = await loadScenario(scenarioWith('').file, OPTIONS);
    expect(scenario.jobs[0]!.dataset).toBe('criteo');
  });

  it.each([
    ['history: {file: h.sqlite, startS: -5}\n', /scenario\.yaml:1: history\.startS: expected a duration like 90s/],
    ['history: {fle: h.sqlite}\n', /scenario\.yaml: history\.file: required/],
    ['history: 12\n', /scenario\.yaml:1: history: expected a file name, or a mapping \{file, startS\}/],
    ['history: ""\n', /scenario\.yaml:1: history: expected a file name, or a mapping \{file, startS\}/],
    ['history: {file: h.sqlite, start: 1d}\n', /scenario\.yaml:1: history: unknown key "start"/],
    ['history: h.sqlite\nfill: {}\n', /scenario\.yaml:1: history: a fill run places jobs once, without time: no job finishes to record/],
  ])('refuses %j with one line naming the file, line and path', async (extra, message) => {
    const error = await rejection(loadScenario(scenarioWith(extra).file, OPTIONS));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('refuses a folder where the file should be', async () => {
    const { file, dir } = scenarioWith('history: h.sqlite\n');
    mkdirSync(join(dir, 'h.sqlite'));
    const error = await rejection(loadScenario(file, OPTIONS));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${file}:1: history: ${join(dir, 'h.sqlite')}: not a file`);
  });
});
