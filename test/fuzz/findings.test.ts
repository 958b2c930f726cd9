/** Defects the input fuzzing found, each pinned by the smallest input that showed it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../src/errors.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { nativeFormat } from '../../src/workload/formats/native.js';
import { importTrace } from '../../src/workload/import.js';

/** A fresh folder with the given files; returns its path. */
function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-findings-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const QUICK = `cluster:
  nodes:
    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}
workload:
  jobs:
    - {id: a, gpus: 1, duration: 1h}
`;

describe('native traces', () => {
  it('a repeated id in a native file is reported at the line of that file, not at the job\'s recorded source', async () => {
    const line = (id: string): string =>
      JSON.stringify({ id, submitS: 0, roles: [{ role: 'worker', replicas: 1, gpus: 1, cpuMilli: 1000, memMiB: 1024 }], durationS: 60, source: 'generate philly seed 1 #2' });
    const dir = folderWith({ 'jobs.jsonl': `${line('a')}\n${line('b')}\n${line('a')}\n` });
    const file = join(dir, 'jobs.jsonl');
    const error = await rejection(importTrace(nativeFormat, [file], { limit: Infinity, strict: true }, join(dir, 'out.jsonl')));
    expect(error).toBeInstanceOf(Error);
    const traceError = (error as { traceError?: unknown }).traceError;
    expect(traceError).toBeInstanceOf(TraceError);
    expect((traceError as TraceError).file).toBe(file);
    expect((traceError as TraceError).line).toBe(3);
    expect((traceError as TraceError).message).toMatch(/^.*jobs\.jsonl:3: id: duplicate id/);
  });
});

describe('scenario files', () => {
  it('a recursive alias (an anchor used inside itself) is a ConfigError at its line, not a stack overflow', async () => {
    const dir = folderWith({ 's.yaml': `${QUICK}x: &a [1, *a]\n` });
    const error = await rejection(loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/s\.yaml:7: x\[1\]: a recursive alias/);
  });

  it('a recursive alias in a --set value is a ConfigError naming the --set', async () => {
    const dir = folderWith({ 's.yaml': QUICK });
    const error = await rejection(loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames(), sets: ['name=&a [*a]'] }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/^--set name=&a \[\*a\]: .*recursive alias/);
  });

  it('a --set whose text holds a line break is named on one line', async () => {
    const dir = folderWith({ 's.yaml': QUICK });
    const error = await rejection(loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames(), sets: ['cluster=a\nb'] }));
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toMatch(/[\n\r]/);
    expect(message).toMatch(/^--set "cluster=a\\nb": cluster: expected a mapping/);
  });
});
