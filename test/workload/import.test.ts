import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeFormat, nativeLine } from '../../src/workload/formats/native.js';
import { ImportStoppedError, importTrace } from '../../src/workload/import.js';
import { batchJob } from '../helpers.js';

function traceWithBadLines(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-import-'));
  const file = join(dir, 'in.jsonl');
  const lines = [
    nativeLine(batchJob('a', 0, 1, 10)),
    '{broken',
    nativeLine(batchJob('b', 1, 1, 10)),
    nativeLine(batchJob('c', 2, 1, 10)).replace('"durationS":10', '"durationS":-1'),
    '{also broken',
    nativeLine(batchJob('d', 3, 1, 10)),
  ];
  writeFileSync(file, lines.join('\n'));
  return { dir, file };
}

describe('importTrace', () => {
  it('writes the good jobs and counts skipped rows by reason', async () => {
    const { dir, file } = traceWithBadLines();
    const out = join(dir, 'out', 'jobs.jsonl');
    const report = await importTrace(nativeFormat, [file], { limit: Infinity, strict: false }, out);
    expect(report.jobs).toBe(3);
    expect(Object.fromEntries(report.skipped.byReason)).toEqual({ 'record: not valid JSON': 2, 'durationS: not positive': 1 });
  });

  it('in strict mode stops at the first bad row and keeps the jobs before it', async () => {
    const { dir, file } = traceWithBadLines();
    const out = join(dir, 'strict.jsonl');
    const error = await importTrace(nativeFormat, [file], { limit: Infinity, strict: true }, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportStoppedError);
    expect((error as Error).message).toBe(`${file}:2: record: not valid JSON (stopped by --strict; the 1 jobs before it are in ${out})`);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('honours the limit', async () => {
    const { dir, file } = traceWithBadLines();
    const out = join(dir, 'limited.jsonl');
    expect((await importTrace(nativeFormat, [file], { limit: 2, strict: false }, out)).jobs).toBe(2);
    expect(existsSync(out)).toBe(true);
  });
});

describe('importTrace when the reader fails', () => {
  it('rejects with the reader\'s error after jobs were written, leaving no temporary file and no stray stream error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlsim-import-'));
    const failing = {
      ...nativeFormat,
      async *readJobs() {
        for (let i = 0; i < 50; i++) yield batchJob(`j${i}`, i, 1, 10);
        throw new Error('reader broke');
      },
    };
    const out = join(dir, 'out.jsonl');
    const error = await importTrace(failing, ['in.jsonl'], { limit: Infinity, strict: false }, out).catch((e: unknown) => e);
    expect((error as Error).message).toBe('reader broke');
    // A write still pending when the stream is dropped would report itself after the rejection.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readdirSync(dir)).toEqual([]);
  });
});
