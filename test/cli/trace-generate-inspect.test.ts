import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yargs from 'yargs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { traceGenerateCommand, generateTrace } from '../../src/cli/trace-generate.js';
import { inspectTrace, traceInspectCommand } from '../../src/cli/trace-inspect.js';
import { RandomStreams } from '../../src/engine/random.js';
import { ConfigError } from '../../src/errors.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { traceFormats } from '../../src/workload/formats.js';
import { nativeFormat, nativeLine } from '../../src/workload/formats/native.js';
import { generatorStyles } from '../../src/workload/generators/styles.js';
import type { TraceFormat } from '../../src/workload/trace-format.js';
import { strictReadOptions } from '../../src/workload/trace-format.js';

let dir: string;
let stdout: string;
let stderr: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlsim-trace-'));
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the two commands as the `trace` parent would mount them, failing loudly like main.ts. */
async function cli(...argv: string[]): Promise<void> {
  await yargs(argv)
    .command(traceGenerateCommand)
    .command(traceInspectCommand)
    .strict()
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new ConfigError('', message);
    })
    .parseAsync();
}

async function readAll(file: string): Promise<JobSpec[]> {
  const jobs: JobSpec[] = [];
  for await (const job of nativeFormat.readJobs([file], strictReadOptions())) jobs.push(job);
  return jobs;
}

describe('trace generate', () => {
  it('writes the generated jobs as native JSON Lines and says how many and where', async () => {
    const out = join(dir, 'sub', 'philly.jsonl');
    await cli('generate', '--style', 'philly', '--jobs', '300', '--seed', '7', '--out', out);
    expect(stdout).toBe(`generated 300 philly jobs (seed 7) -> ${out}\n`);
    const jobs = await readAll(out);
    expect(jobs).toEqual(generatorStyles.philly!.generate(300, new RandomStreams(7)));
    expect(readdirSync(join(dir, 'sub'))).toEqual(['philly.jsonl']); // no temporary file left behind
  });

  it('writes byte-identical files for the same seed and different ones for another', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const c = join(dir, 'c.jsonl');
    await generateTrace('ant', 200, 3, a);
    await generateTrace('ant', 200, 3, b);
    await generateTrace('ant', 200, 4, c);
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
    expect(readFileSync(a, 'utf8')).not.toBe(readFileSync(c, 'utf8'));
    expect(readFileSync(a, 'utf8').trimEnd().split('\n')).toHaveLength(200);
  });

  it('rejects an unknown style or format with the known ones', async () => {
    const out = join(dir, 'x.jsonl');
    await expect(cli('generate', '--style', 'nope', '--jobs', '5', '--out', out)).rejects.toThrow(
      /unknown generator style "nope" \(known: philly, alibaba-pai, ant\)/,
    );
    await expect(cli('generate', '--style', 'ant', '--jobs', '5', '--out', out, '--format', 'nope')).rejects.toThrow(
      /unknown trace format "nope" \(known: .*native/,
    );
    await expect(generateTrace('ant', 0, 1, out)).rejects.toBeInstanceOf(ConfigError);
    await expect(generateTrace('ant', 2.5, 1, out)).rejects.toThrow(/--jobs/);
  });

  it('reports an unwritable destination as a user error and leaves no temporary file', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    await expect(generateTrace('philly', 5, 1, join(dir, 'a-file', 'x.jsonl'))).rejects.toBeInstanceOf(ConfigError);
    const target = join(dir, 'is-a-dir');
    await generateTrace('philly', 5, 1, join(target, 'inner.jsonl'));
    await expect(generateTrace('philly', 5, 1, target)).rejects.toThrow(/is a folder, expected a file/);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('with --format, writes that format into the folder --out through its writer', async () => {
    const written: { jobs: number; outDir: string }[] = [];
    const fake: TraceFormat = {
      id: 'fake-writer',
      description: 'a format with a writer, for this test',
      filesHelp: 'jobs.fake',
      readJobs: nativeFormat.readJobs,
      writeJobs: async (jobs, outDir) => {
        written.push({ jobs: jobs.length, outDir });
        const file = join(outDir, 'jobs.fake');
        writeFileSync(file, jobs.map(nativeLine).join('\n'));
        return [file];
      },
    };
    const registry = traceFormats as Record<string, TraceFormat>;
    registry['fake-writer'] = fake;
    try {
      await cli('generate', '--style', 'alibaba-pai', '--jobs', '20', '--out', dir, '--format', 'fake-writer');
    } finally {
      delete registry['fake-writer'];
    }
    expect(written).toEqual([{ jobs: 20, outDir: dir }]);
    expect(stdout).toBe(`generated 20 alibaba-pai jobs (seed 1) -> ${join(dir, 'jobs.fake')}\n`);
  });

  it('refuses a format without a writer', async () => {
    const readOnly: TraceFormat = { ...nativeFormat, id: 'read-only' };
    const registry = traceFormats as Record<string, TraceFormat>;
    registry['read-only'] = readOnly;
    try {
      await expect(generateTrace('ant', 5, 1, dir, 'read-only')).rejects.toThrow(/"read-only" has no writer \(writable: native/);
    } finally {
      delete registry['read-only'];
    }
  });
});

describe('trace inspect', () => {
  it('prints exactly one JSON object with --json, agreeing with the generator', async () => {
    const out = join(dir, 'pai.jsonl');
    await generateTrace('alibaba-pai', 500, 2, out);
    stdout = '';
    await cli('inspect', out, '--json');
    const report = JSON.parse(stdout) as Awaited<ReturnType<typeof inspectTrace>>;
    expect(report.format).toBe('native');
    expect(report.files).toEqual([out]);
    expect(report.skippedRows).toEqual({ total: 0, byReason: {} });
    expect(report.stats.jobs).toBe(500);
    expect(report.stats.kinds.batch).toBe(500);
    expect(report.stats.arrivals.byHourOfDay.reduce((a, b) => a + b, 0)).toBe(500);
    expect(report.stats.gpuDemand.some((b) => b.bucket === '<1')).toBe(true);
    expect(stderr).toBe('');
  });

  it('prints aligned tables by default', async () => {
    const out = join(dir, 'ant.jsonl');
    await generateTrace('ant', 300, 1, out);
    stdout = '';
    await cli('inspect', out);
    expect(stdout).toMatch(/^trace .*ant\.jsonl {2}format native\n/);
    expect(stdout).toMatch(/\njobs +300\n/);
    expect(stdout).toMatch(/\nduration +p10 +p50 +p90 +p99 +mean\n/);
    expect(stdout).toMatch(/\nGPUs per job +jobs +share\n0 +\d+ +\d+\.\d%/);
    expect(stdout).toMatch(/\nps +\d+ +\d+\.\d%/);
    expect(stdout).toMatch(/\nhour +00 +01/);
  });

  it('skips bad rows but counts them by reason on stderr, never silently', async () => {
    const good = generatorStyles.philly!.generate(3, new RandomStreams(1)).map(nativeLine);
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, [good[0], '{not json', good[1], '{"id":"x","submitS":1,"roles":[],"durationS":5}', '{broken', good[2]].join('\n'));
    await cli('inspect', file, '--json');
    const report = JSON.parse(stdout) as Awaited<ReturnType<typeof inspectTrace>>;
    expect(report.stats.jobs).toBe(3);
    expect(report.skippedRows.total).toBe(3);
    expect(report.skippedRows.byReason['record: not valid JSON']).toBe(2);
    expect(stderr).toMatch(/^dlsim: skipped 3 bad rows: record: not valid JSON 2; roles: .+ 1\n$/);
  });

  it('stops after --limit jobs', async () => {
    const out = join(dir, 'philly.jsonl');
    await generateTrace('philly', 50, 1, out);
    stdout = '';
    await cli('inspect', out, '--json', '--limit', '10');
    expect((JSON.parse(stdout) as { stats: { jobs: number } }).stats.jobs).toBe(10);
    await expect(cli('inspect', out, '--limit', '0')).rejects.toThrow(/--limit: expected a positive integer, got "0"/);
  });

  it('rejects an unknown format and a missing file as user errors', async () => {
    await expect(cli('inspect', join(dir, 'x.jsonl'), '--format', 'nope')).rejects.toThrow(/unknown trace format "nope" \(known: .*native/);
    await expect(cli('inspect', join(dir, 'missing.jsonl'))).rejects.toBeInstanceOf(ConfigError);
  });
});
