/** Defects the input fuzzing found, each pinned by the smallest input that showed it. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../src/errors.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadCatalogFile } from '../../src/faults/catalog.js';
import { MAX_REPLICAS } from '../../src/model/limits.js';
import { loadScenario } from '../../src/scenario/load.js';
import { traceFormats } from '../../src/workload/formats.js';
import { nativeFormat } from '../../src/workload/formats/native.js';
import { importTrace } from '../../src/workload/import.js';
import { folderWith, rejection } from '../cli-run.js';

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

  it('a registry id that is a name every object inherits (constructor, toString) is unknown, not a crash', async () => {
    const trace = folderWith({ 's.yaml': `${QUICK.replace(/workload:[\s\S]*/, '')}workload:\n  trace: {format: constructor, files: x.csv}\n` });
    const traceError = await rejection(loadScenario(join(trace, 's.yaml'), { knownPolicies: presetNames() }));
    expect(traceError).toBeInstanceOf(ConfigError);
    expect((traceError as ConfigError).message).toMatch(/workload\.trace\.format: unknown trace format "constructor"/);
    const recovery = folderWith({ 's.yaml': `${QUICK}recovery: toString\n` });
    const recoveryError = await rejection(loadScenario(join(recovery, 's.yaml'), { knownPolicies: presetNames() }));
    expect(recoveryError).toBeInstanceOf(ConfigError);
    expect((recoveryError as ConfigError).message).toMatch(/recovery: unknown recovery policy "toString"/);
  });
});

describe('open files', () => {
  const SAMPLES = join(import.meta.dirname, '../../traces/samples');
  const inputs: readonly [string, readonly string[]][] = [
    ['native', ['native/philly.jsonl']],
    ['philly', ['philly/philly_jobs.csv']],
    ['philly', ['philly/cluster_job_log.json']],
    ['helios', ['helios/cluster_log.csv']],
    ['acme', ['acme/trace_kalos.csv']],
    ['alibaba-gpu-2023', ['alibaba-gpu-2023/openb_pod_list_sample.csv']],
    ['alibaba-pai-2020', ['alibaba-pai-2020/pai_job_table.csv', 'alibaba-pai-2020/pai_task_table.csv']],
  ];
  /** Open file descriptors of this process (Linux), or null where /proc is absent. */
  const openFiles = (): number | null => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : null);

  it.each(inputs)('an import of %s stopped early (--limit, or a bad row under --strict) leaves no file open', async (id, names) => {
    if (openFiles() === null) {
      console.warn('skipping the open-file check: /proc/self/fd is absent on this system');
      return;
    }
    const format = traceFormats[id]!;
    const files = names.map((name) => join(SAMPLES, name));
    const dir = folderWith({});
    const before = openFiles()!;
    for (let i = 0; i < 20; i++) {
      await importTrace(format, files, { limit: 1, strict: false }, join(dir, 'out.jsonl'));
    }
    // Let streams that are closing finish.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openFiles()! - before).toBeLessThan(5);
  });
});

describe('file names', () => {
  it.each(Object.keys(traceFormats))('%s: a file name holding a NUL byte is a ConfigError naming it', async (id) => {
    const dir = folderWith({});
    const file = join(dir, 'pai_job_table\u0000.csv');
    const files = id === 'alibaba-pai-2020' ? [file, join(dir, 'pai_task_table.csv')] : [file];
    const error = await rejection(importTrace(traceFormats[id]!, files, { limit: Infinity, strict: false }, join(dir, 'out.jsonl')));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(dir);
  });
});

describe('Philly GPU counts', () => {
  it('a row asking for more GPUs than the largest job could hold (8 per worker x MAX_REPLICAS) is bad at num_gpus, before any worker split', async () => {
    const dir = folderWith({
      'philly.csv': 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:00:00,60,1000003,60,a\n2017-10-01 00:00:00,60,2147483647,60,a\n',
    });
    const skipped: TraceError[] = [];
    const jobs = [];
    for await (const job of traceFormats['philly']!.readJobs([join(dir, 'philly.csv')], { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) })) jobs.push(job);
    expect(jobs).toHaveLength(1);
    expect(skipped.map((e) => [e.line, e.countKey])).toEqual([
      [3, `num_gpus: over ${8 * MAX_REPLICAS}`],
      [4, `num_gpus: over ${8 * MAX_REPLICAS}`],
    ]);
  });
});

describe('one-line messages', () => {
  it('a scenario value holding a line break is shown escaped, keeping the message on one line', async () => {
    const dir = folderWith({ 's.yaml': `${QUICK}faults:\n  catalog: "ant-2023\\n- false"\n` });
    const error = await rejection(loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() }));
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toMatch(/[\n\r]/);
    expect(message).toMatch(/s\.yaml:8: faults\.catalog: unknown fault catalog "ant-2023\\n- false"/);
  });

  it('a TraceError of a file whose name holds a line break stays on one line', () => {
    const error = new TraceError('a\nb.csv', 3, 'x', 'empty');
    expect(error.message).toBe('a\\nb.csv:3: x: empty');
  });
});

describe('fault catalog files', () => {
  it('an unknown YAML tag in a catalog file is a ConfigError at its line, as in a scenario (not silently dropped)', () => {
    const dir = folderWith({ 'c.yaml': 'name: c\ndescription: !foo No faults.\ntypes: []\n' });
    expect(() => loadCatalogFile(join(dir, 'c.yaml'))).toThrow(/c\.yaml:2: .*!foo/);
  });
});

describe('temporary files', () => {
  it('an import that fails at once (files that are not PAI tables) leaves no temporary file behind', async () => {
    const dir = folderWith({ 'file.txt': 'x\n' });
    for (let i = 0; i < 5; i++) {
      const error = await rejection(importTrace(traceFormats['alibaba-pai-2020']!, [join(dir, 'file.txt')], { limit: Infinity, strict: false }, join(dir, 'out')));
      expect(error).toBeInstanceOf(ConfigError);
    }
    // The file system settles what was started.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
