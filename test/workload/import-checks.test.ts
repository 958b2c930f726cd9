import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../src/errors.js';
import { nativeFormat, nativeLine } from '../../src/workload/formats/native.js';
import { phillyFormat as philly } from '../../src/workload/formats/philly.js';
import { ImportStoppedError, importTrace } from '../../src/workload/import.js';
import { batchJob } from '../helpers.js';
import { readAllJobs } from './formats/format-helpers.js';

const HEADER = 'timestamp,duration,num_gpus,gpu_time,cluster';

/** A fresh folder holding one file of the given lines. */
function fileOf(name: string, lines: readonly string[]): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-import-checks-'));
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { dir, file };
}

/** The names in a folder that are temporary files. */
function temporaries(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'));
}

const lenient = { limit: Infinity, strict: false } as const;

describe('import enforces what the native reader accepts', () => {
  it('skips a Philly row of 6214e9 GPUs and a duration of 1e308 s, and the file it writes reads back whole', async () => {
    const { dir, file } = fileOf('philly.csv', [
      HEADER,
      '2017-10-01 00:00:00,3600,1,3600,c1',
      '2017-10-01 00:01:00,3600,6214e9,3600,c1',
      '2017-10-01 00:02:00,1e308,1,1e308,c1',
      '2017-10-01 00:03:00,60,8,480,c1',
    ]);
    const out = join(dir, 'out.jsonl');
    const report = await importTrace(philly, [file], lenient, out);
    expect(report.jobs).toBe(2);
    expect(report.skipped.total).toBe(2);
    expect(report.skipped.examples.map((e) => e.line)).toEqual([3, 4]);
    const back = await readAllJobs(nativeFormat, [out], { strict: true });
    expect(back.jobs).toHaveLength(2);
  });

  it('stops a strict import at a repeated id, as a scenario would reject it', async () => {
    const { dir, file } = fileOf('in.jsonl', [nativeLine(batchJob('a', 0, 1, 10)), nativeLine(batchJob('b', 1, 1, 10)), nativeLine(batchJob('a', 2, 1, 10))]);
    const error = await importTrace(nativeFormat, [file], { limit: Infinity, strict: true }, join(dir, 'out.jsonl')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportStoppedError);
    expect((error as ImportStoppedError).traceError.countKey).toBe('id: duplicate id');
    expect((error as ImportStoppedError).jobsKept).toBe(2);
  });

  it('rejects a job with the same role twice, which no policy could run', async () => {
    const twoWorkers = nativeLine(batchJob('a', 0, 1, 10)).replace(
      '"roles":[',
      '"roles":[{"role":"worker","replicas":1,"gpus":1,"gpuMilli":1000,"cpuMilli":1000,"memMiB":1024},',
    );
    const { file } = fileOf('in.jsonl', [twoWorkers, nativeLine(batchJob('b', 0, 1, 10))]);
    const read = await readAllJobs(nativeFormat, [file]);
    expect(read.jobs.map((j) => j.id)).toEqual(['b']);
    expect(read.skipped.map((e) => e.countKey)).toEqual(['roles: a role is given twice']);
  });

  it('reads numeric ids in native JSON Lines as strings', async () => {
    const { file } = fileOf('in.jsonl', [nativeLine(batchJob('x', 0, 1, 10)).replace('"id":"x"', '"id":17')]);
    const read = await readAllJobs(nativeFormat, [file], { strict: true });
    expect(read.jobs.map((j) => j.id)).toEqual(['17']);
  });
});

describe('a failed import leaves nothing behind', () => {
  it('is an error naming the first skipped row when every row is skipped, without an output or temporary file', async () => {
    const { dir, file } = fileOf('semicolons.csv', ['timestamp;duration;num_gpus;gpu_time;cluster', '2017-10-01 00:00:00;60;1;60;c1']);
    const out = join(dir, 'out.jsonl');
    const error = await importTrace(philly, [file], lenient, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceError);
    expect((error as Error).message).toContain(`${file}:1:`);
    expect((error as Error).message).not.toContain('--strict');
    expect(existsSync(out)).toBe(false);
    expect(temporaries(dir)).toEqual([]);
  });

  it('is an error for a native trace whose every line is bad', async () => {
    const { dir, file } = fileOf('in.jsonl', ['{"id":"a"}', '{"id":"b"}']);
    const error = await importTrace(nativeFormat, [file], lenient, join(dir, 'out.jsonl')).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no job read; the first of 2 bad rows: .*in\.jsonl:1: /);
  });

  it('removes its temporary file when a later input is missing', async () => {
    const { dir, file } = fileOf('in.jsonl', [nativeLine(batchJob('a', 0, 1, 10))]);
    const out = join(dir, 'out.jsonl');
    const error = await importTrace(nativeFormat, [file, join(dir, 'absent.jsonl')], lenient, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(existsSync(out)).toBe(false);
    expect(temporaries(dir)).toEqual([]);
  });

  it('does not speak of --strict when a lenient import fails on a file-level problem', async () => {
    const { dir, file } = fileOf('philly.csv', ['timestamp,duration,cluster', '2017-10-01 00:00:00,60,c1']);
    const error = await importTrace(philly, [file], lenient, join(dir, 'out.jsonl')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceError);
    expect((error as Error).message).toBe(`${file}:1: num_gpus: missing column`);
    expect(readFileSync(file, 'utf8')).toContain('timestamp');
    expect(temporaries(dir)).toEqual([]);
  });
});

describe('machine lists are bounded like scenario node groups', () => {
  it('skips a machine row of 1e9 GPUs, cores or memory in both machine-list formats', async () => {
    const { alibabaGpu2023Format } = await import('../../src/workload/formats/alibaba-gpu-2023.js');
    const { alibabaPai2020Format } = await import('../../src/workload/formats/alibaba-pai-2020.js');
    const openb = fileOf('openb_node_list_x.csv', [
      'sn,cpu_milli,memory_mib,gpu,model',
      'n1,96000,786432,8,V100M32',
      'n2,96000,786432,1000000000,V100M32',
      'n3,1e12,786432,8,V100M32',
      'n4,96000,1e15,8,V100M32',
    ]);
    const pai = fileOf('pai_machine_spec.csv', ['m1,V100,96,512,8', 'm2,V100,96,512,1000000000', 'm3,V100,1e9,512,8']);
    for (const [format, file, kept] of [[alibabaGpu2023Format, openb.file, 1], [alibabaPai2020Format, pai.file, 1]] as const) {
      const skipped: TraceError[] = [];
      const cluster = await format.readCluster!(file, { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) });
      expect(cluster.nodes).toHaveLength(kept);
      expect(skipped.length).toBeGreaterThanOrEqual(2);
      for (const error of skipped) expect(error.reason).toMatch(/^over /);
    }
  });
});
