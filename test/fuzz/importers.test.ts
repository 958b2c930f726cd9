import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTrace } from '../../src/cli/trace-generate.js';
import { traceFormats } from '../../src/workload/formats.js';
import { casesRun, fuzzSeed, Scratch } from './harness.js';
import { fuzzImporter, type ImporterTarget, type SeedTrace } from './importer-fuzz.js';

const SAMPLES = join(import.meta.dirname, '../../traces/samples');
/** Cases per importer target; 11 targets. */
const RUNS = 450;
/** Lines of a native sample kept as a seed (the samples hold 200 jobs; a few dozen lines cover every field). */
const NATIVE_SEED_LINES = 25;

/** A seed made of sample files, each cut to its first `maxLines` lines. */
function sampleSeed(folder: string, names: readonly string[], maxLines = Infinity): SeedTrace {
  return {
    files: names.map((name) => {
      const text = readFileSync(join(SAMPLES, folder, name), 'utf8');
      const lines = text.replace(/\n$/, '').split('\n');
      if (lines.length <= maxLines) return { name, text };
      const kept = lines.slice(0, maxLines);
      // A JSON array written one element per line stays an array: its last element loses the comma, "]" closes it.
      if (kept[0] === '[') return { name, text: `${kept.join('\n').replace(/,$/, '')}\n]\n` };
      return { name, text: `${kept.join('\n')}\n` };
    }),
  };
}

/** A seed written by a format's own writer from generated jobs (the files of `dir` whose names match). */
function writerSeed(dir: string, names: readonly string[]): SeedTrace {
  return { files: names.map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') })) };
}

const scratch = new Scratch();
let targets: ImporterTarget[] = [];

beforeAll(async () => {
  fuzzSeed();
  const written = join(scratch.root, 'writers');
  mkdirSync(written);
  /** Writer output of `count` generated jobs of `style` in `format`. */
  const write = async (format: string, style: string, count = 12): Promise<string> => {
    const dir = join(written, `${format}-${style}`);
    await generateTrace(style, count, 7, dir, format);
    return dir;
  };
  const gpu2023 = await write('alibaba-gpu-2023', 'alibaba-pai');
  const pai = await write('alibaba-pai-2020', 'alibaba-pai');
  const philly = await write('philly', 'philly');
  const helios = await write('helios', 'philly');
  const acme = await write('acme', 'philly');
  const f = traceFormats;
  targets = [
    {
      name: 'native',
      format: f['native']!,
      kind: 'json',
      reader: 'jobs',
      seeds: readdirSync(join(SAMPLES, 'native')).map((name) => sampleSeed('native', [name], NATIVE_SEED_LINES)),
    },
    {
      name: 'alibaba-gpu-2023 pods',
      format: f['alibaba-gpu-2023']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [sampleSeed('alibaba-gpu-2023', ['openb_pod_list_sample.csv']), writerSeed(gpu2023, readdirSync(gpu2023))],
    },
    {
      name: 'alibaba-gpu-2023 nodes',
      format: f['alibaba-gpu-2023']!,
      kind: 'csv',
      reader: 'cluster',
      seeds: [sampleSeed('alibaba-gpu-2023', ['openb_node_list_sample.csv'])],
    },
    {
      name: 'alibaba-pai-2020 tables',
      format: f['alibaba-pai-2020']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [
        sampleSeed('alibaba-pai-2020', ['pai_job_table.csv', 'pai_task_table.csv', 'pai_instance_table.csv'], 60),
        sampleSeed('alibaba-pai-2020', ['pai_job_table.csv', 'pai_task_table.csv']),
        writerSeed(pai, ['pai_job_table.csv', 'pai_task_table.csv', 'pai_instance_table.csv']),
      ],
    },
    {
      name: 'alibaba-pai-2020 machines',
      format: f['alibaba-pai-2020']!,
      kind: 'csv',
      reader: 'cluster',
      seeds: [sampleSeed('alibaba-pai-2020', ['pai_machine_spec_sample.csv'])],
    },
    {
      name: 'philly csv',
      format: f['philly']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [sampleSeed('philly', ['philly_jobs.csv']), writerSeed(philly, ['philly_jobs.csv'])],
    },
    {
      name: 'philly json log',
      format: f['philly']!,
      kind: 'json',
      reader: 'jobs',
      seeds: [sampleSeed('philly', ['cluster_job_log.json'], 16), writerSeed(philly, ['cluster_job_log.json'])],
    },
    {
      name: 'helios',
      format: f['helios']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [sampleSeed('helios', ['cluster_log.csv']), writerSeed(helios, ['cluster_log.csv'])],
    },
    {
      name: 'acme seren',
      format: f['acme']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [sampleSeed('acme', ['trace_seren.csv']), writerSeed(acme, ['trace_seren.csv'])],
    },
    {
      name: 'acme kalos',
      format: f['acme']!,
      kind: 'csv',
      reader: 'jobs',
      seeds: [sampleSeed('acme', ['trace_kalos.csv']), writerSeed(acme, ['trace_kalos.csv'])],
    },
  ];
  for (const target of targets) {
    for (const seed of target.seeds) expect(seed.files.length, `${target.name}: ${seed.files.map((file) => basename(file.name)).join(' ')}`).toBeGreaterThan(0);
  }
});

afterAll(() => {
  scratch.dispose();
  console.info('fuzz cases (importers):', [...casesRun].map(([name, count]) => `${name} ${count}`).join(', '));
});

describe('fuzzing the trace importers', () => {
  const names = [
    'native',
    'alibaba-gpu-2023 pods',
    'alibaba-gpu-2023 nodes',
    'alibaba-pai-2020 tables',
    'alibaba-pai-2020 machines',
    'philly csv',
    'philly json log',
    'helios',
    'acme seren',
    'acme kalos',
  ];
  names.forEach((name, index) => {
    it(`${name}: mutated files import, or fail with a located ConfigError/TraceError and no temporary file`, async () => {
      const target = targets.find((t) => t.name === name)!;
      await fuzzImporter(target, scratch, RUNS, index * 1000);
      expect(casesRun.get(name)).toBe(RUNS);
    });
  });
});
