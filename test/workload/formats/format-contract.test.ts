/**
 * The contract every trace format of the registry (src/workload/formats.ts) must meet, checked on
 * its own samples in traces/samples/: `limit`, strict and lenient handling of a bad row, jobs a
 * native trace can hold, write → read round trips, the machine list, and its help texts. A new
 * format must list its samples in CONTRACTS below, or this suite fails.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { PAI_JOB_COLUMNS, PAI_MACHINE_COLUMNS } from '../../../src/workload/formats/alibaba-pai-2020.js';
import { nativeFormat, nativeLine, readLocation } from '../../../src/workload/formats/native.js';
import { traceFormats } from '../../../src/workload/formats.js';
import type { TraceFormat } from '../../../src/workload/trace-format.js';
import { rejection } from '../../cli-run.js';
import { readAllJobs, SAMPLES, withoutSource } from './format-helpers.js';

/** How to spoil one row of a sample file: a cell made non-numeric (CSV), or the line made invalid JSON. */
type Corruption =
  | { readonly kind: 'csv-cell'; readonly column: string; readonly headerless?: readonly string[] }
  | { readonly kind: 'json-line' };

/** One layout of a format's sample: the files read together, and which of them holds the row to spoil. */
interface JobSample {
  readonly name: string;
  /** Paths under traces/samples/. */
  readonly files: readonly string[];
  /** Index in `files` of the file whose row is spoiled. */
  readonly corruptFile: number;
  readonly corruption: Corruption;
}

/** A written file set read back, with what of a job survives it. */
interface ReadBack {
  readonly name: string;
  /** Base names among the files the writer wrote, read together. */
  readonly files: readonly string[];
  /** The part of a job this layout carries (without `source`, which names the file read). */
  readonly carried: (job: JobSpec) => unknown;
  /** The jobs one written job reads back as, when not itself. */
  readonly readsBackAs?: (job: JobSpec) => JobSpec[];
}

/** What the suite needs of a format: its job samples, its machine list sample, its written layouts. */
interface FormatContract {
  readonly jobs: readonly JobSample[];
  /** Present exactly when the format has readCluster: a machine list under traces/samples/ and the cell to spoil. */
  readonly cluster?: { readonly file: string; readonly corruption: Corruption & { readonly kind: 'csv-cell' } };
  /** Present exactly when the format has writeJobs. */
  readonly readBack?: readonly ReadBack[];
  /** With a writer: the generator style (native sample) whose jobs are written and read back too. */
  readonly generatedStyle?: string;
}

/** A job without `source` and without the named top-level fields and per-replica demand fields. */
function carriedFields(job: JobSpec, drops: readonly string[], demandDrops: readonly string[] = []): unknown {
  const record: Record<string, unknown> = { ...withoutSource(job) };
  for (const field of drops) delete record[field];
  record['roles'] = job.roles.map((role) => {
    const demand: Record<string, unknown> = { ...role.demand };
    for (const field of demandDrops) delete demand[field];
    return { ...role, demand };
  });
  return record;
}

/** A native sample (one generator style): broken JSON on one line. */
function nativeSample(style: string): JobSample {
  return { name: `native/${style}.jsonl`, files: [`native/${style}.jsonl`], corruptFile: 0, corruption: { kind: 'json-line' } };
}

/** Every registered format's samples; a format missing here fails the suite. */
const CONTRACTS: Readonly<Record<string, FormatContract>> = {
  // No writer: native lines are written by nativeLine (checked below for every format's jobs).
  native: { jobs: ['philly', 'alibaba-pai', 'ant'].map(nativeSample) },
  'alibaba-gpu-2023': {
    jobs: [
      {
        name: 'pod list',
        files: ['alibaba-gpu-2023/openb_pod_list_sample.csv'],
        corruptFile: 0,
        corruption: { kind: 'csv-cell', column: 'cpu_milli' },
      },
    ],
    cluster: { file: 'alibaba-gpu-2023/openb_node_list_sample.csv', corruption: { kind: 'csv-cell', column: 'memory_mib' } },
    // Drops the user: the pod list has none (qos is a service class) and reads back "". A job
    // without a status reads back "Succeeded". The list has no jobs: a job of several replicas
    // reads back as one one-worker pod per replica, `<id>-<role>-<k>`.
    readBack: [
      {
        name: 'pod list',
        files: ['openb_pod_list_sample.csv'],
        carried: (job) => ({ ...(carriedFields(job, ['user']) as object), traceStatus: job.traceStatus ?? 'Succeeded' }),
        readsBackAs: (job) =>
          job.roles.length === 1 && job.roles[0]!.replicas === 1
            ? [job]
            : job.roles.flatMap((role) =>
                Array.from({ length: role.replicas }, (_, k) => ({
                  ...job,
                  id: `${job.id}-${role.role}-${k}`,
                  roles: [{ role: 'worker' as const, replicas: 1, demand: role.demand }],
                })),
              ),
      },
    ],
    generatedStyle: 'alibaba-pai',
  },
  'alibaba-pai-2020': {
    jobs: [
      {
        name: 'job, task and instance tables',
        files: ['alibaba-pai-2020/pai_job_table.csv', 'alibaba-pai-2020/pai_task_table.csv', 'alibaba-pai-2020/pai_instance_table.csv'],
        corruptFile: 0,
        corruption: { kind: 'csv-cell', column: 'end_time', headerless: PAI_JOB_COLUMNS },
      },
    ],
    cluster: {
      file: 'alibaba-pai-2020/pai_machine_spec_sample.csv',
      corruption: { kind: 'csv-cell', column: 'cap_cpu', headerless: PAI_MACHINE_COLUMNS },
    },
    // Drops elastic bounds (PAI jobs are rigid and read back null); a job without a status reads
    // back "Terminated", one of unknown retries 0 (the instance table records every attempt).
    readBack: [
      {
        name: 'job, task and instance tables',
        files: ['pai_job_table.csv', 'pai_task_table.csv', 'pai_instance_table.csv'],
        carried: (job) => ({
          ...(carriedFields(job, ['elastic']) as object),
          traceStatus: job.traceStatus ?? 'Terminated',
          traceRetries: job.traceRetries ?? 0,
        }),
      },
    ],
    generatedStyle: 'alibaba-pai',
  },
  'alibaba-spot-2026': {
    jobs: [
      {
        name: 'job_info_df.csv',
        files: ['alibaba-spot-2026/job_info_df.csv'],
        corruptFile: 0,
        corruption: { kind: 'csv-cell', column: 'cpu_request' },
      },
    ],
    cluster: { file: 'alibaba-spot-2026/node_info_df.csv', corruption: { kind: 'csv-cell', column: 'cpu_num' } },
    // Drops memory (the trace has none: it reads back 0), the status and retries (not recorded); a
    // job without a priority class reads back high (HP).
    readBack: [
      {
        name: 'job_info_df.csv',
        files: ['job_info_df.csv'],
        carried: (job) => ({ ...(carriedFields(job, ['traceStatus', 'traceRetries'], ['memMiB']) as object), priority: job.priority ?? 'high' }),
      },
    ],
    generatedStyle: 'philly',
  },
  'alibaba-pai-sim': {
    jobs: [
      {
        name: 'job CSV',
        files: ['alibaba-pai-sim/pai_sim_jobs.csv'],
        corruptFile: 0,
        corruption: { kind: 'csv-cell', column: 'num_cpu' },
      },
    ],
    // Carries GPUs and CPUs per instance in whole percent of a device (the simulator's unit), no
    // memory (reads back 0), no status, retries or elastic bounds. A job of several roles is written
    // as one row per role, `<id>-<role>`, each a job of its own.
    readBack: [
      {
        name: 'job CSV',
        files: ['pai_sim_jobs.csv'],
        carried: (job) => ({
          ...(carriedFields(job, ['elastic', 'traceStatus', 'traceRetries']) as object),
          roles: job.roles.map((role) => ({
            ...role,
            demand: { ...role.demand, cpuMilli: Math.round(role.demand.cpuMilli / 10) * 10, gpuMilli: Math.round(role.demand.gpuMilli / 10) * 10, memMiB: 0 },
          })),
        }),
        readsBackAs: (job) =>
          job.roles.length === 1 ? [job] : job.roles.map((role) => ({ ...job, id: `${job.id}-${role.role}`, roles: [{ ...role, role: 'worker' as const }] })),
      },
    ],
    generatedStyle: 'alibaba-pai',
  },
  philly: {
    jobs: [
      { name: 'Pollux CSV', files: ['philly/philly_jobs.csv'], corruptFile: 0, corruption: { kind: 'csv-cell', column: 'duration' } },
      { name: 'raw cluster_job_log', files: ['philly/cluster_job_log.json'], corruptFile: 0, corruption: { kind: 'json-line' } },
    ],
    readBack: [
      // The CSV drops the id (it reads back as philly-<line>), status and retries, and keeps of the
      // user only its virtual cluster (read back as "vc:<cluster>").
      {
        name: 'philly_jobs.csv',
        files: ['philly_jobs.csv'],
        carried: (job) => ({ ...(carriedFields(job, ['id', 'traceStatus', 'traceRetries']) as object), user: job.user.replace(/^vc:/, '') }),
      },
      // The raw log carries every field of a Philly job (CPU and memory follow from the GPUs either
      // way); it always records attempts, so a job of unknown retries (read from the CSV) reads back 0.
      {
        name: 'cluster_job_log.json',
        files: ['cluster_job_log.json'],
        carried: (job) => ({ ...(carriedFields(job, []) as object), traceRetries: job.traceRetries ?? 0 }),
      },
    ],
    generatedStyle: 'philly',
  },
  helios: {
    jobs: [{ name: 'cluster_log.csv', files: ['helios/cluster_log.csv'], corruptFile: 0, corruption: { kind: 'csv-cell', column: 'gpu_num' } }],
    // Drops memory: cluster_log.csv has no memory column, so it reads back as the per-GPU default.
    readBack: [{ name: 'cluster_log.csv', files: ['cluster_log.csv'], carried: (job) => carriedFields(job, [], ['memMiB']) }],
    generatedStyle: 'philly',
  },
  acme: {
    // Not the duration cell: Acme takes the run time from start/end times when both are present (by design).
    jobs: [
      { name: 'trace_seren.csv', files: ['acme/trace_seren.csv'], corruptFile: 0, corruption: { kind: 'csv-cell', column: 'gpu_num' } },
      { name: 'trace_kalos.csv', files: ['acme/trace_kalos.csv'], corruptFile: 0, corruption: { kind: 'csv-cell', column: 'gpu_num' } },
    ],
    readBack: [
      // Seren drops memory (no memory column: the per-GPU default reads back).
      { name: 'trace_seren.csv', files: ['trace_seren.csv'], carried: (job) => carriedFields(job, [], ['memMiB']) },
      { name: 'trace_kalos.csv', files: ['trace_kalos.csv'], carried: (job) => carriedFields(job, []) },
    ],
    generatedStyle: 'philly',
  },
};

/** What a spoiled cell holds. */
const NOT_A_NUMBER = 'twelve';

/** "file:line" split into its parts. */
function splitLocation(location: string): { file: string; line: number } {
  const match = /^(.*):(\d+)$/.exec(location);
  if (match === null) throw new Error(`not a file:line location: ${location}`);
  return { file: match[1]!, line: Number(match[2]) };
}

/** The text of `file` with line `line` (1-based) spoiled as `corruption` says. */
async function spoiledText(file: string, line: number, corruption: Corruption): Promise<string> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const text = lines[line - 1];
  if (text === undefined) throw new Error(`${file} has no line ${line}`);
  if (corruption.kind === 'json-line') {
    // A colon made a semicolon: brackets stay balanced, the element is no longer JSON.
    expect(text).toContain(':');
    lines[line - 1] = text.replace(':', ';');
  } else {
    const columns = corruption.headerless ?? (parse(lines[0]!) as string[][])[0]!.map((name) => name.trim());
    const index = columns.indexOf(corruption.column);
    expect(index, `${corruption.column} in ${columns.join(',')}`).toBeGreaterThanOrEqual(0);
    const cells = (parse(text) as string[][])[0]!;
    expect(cells.length).toBeGreaterThan(index);
    cells[index] = NOT_A_NUMBER;
    lines[line - 1] = stringify([cells]).replace(/\n$/, '');
  }
  return lines.join('\n');
}

/** Copies `files` (same base names) into a fresh folder under `root`; returns the copies' paths. */
async function copiesOf(root: string, files: readonly string[]): Promise<string[]> {
  const dir = await mkdtemp(join(root, 'copy-'));
  return Promise.all(
    files.map(async (file) => {
      const copy = join(dir, basename(file));
      await copyFile(file, copy);
      return copy;
    }),
  );
}

/** The TraceError a rejection must be, located at `file:line` (message included). */
function expectLocated(error: unknown, file: string, line: number, column: string): void {
  expect(error).toBeInstanceOf(TraceError);
  const trace = error as TraceError;
  expect(trace.message.startsWith(`${file}:${line}: `), trace.message).toBe(true);
  expect({ file: trace.file, line: trace.line, column: trace.column }).toEqual({ file, line, column });
}

/** The column a spoiled row is reported at. */
function spoiledColumn(corruption: Corruption): string {
  return corruption.kind === 'json-line' ? 'record' : corruption.column;
}

/** Writes `jobs` with the format's writer and reads `layout` back strictly; both as the layout carries them. */
async function roundTrip(format: TraceFormat, layout: ReadBack, jobs: readonly JobSpec[]): Promise<{ written: unknown[]; read: unknown[] }> {
  const dir = await mkdtemp(join(scratch, 'written-'));
  const written = await format.writeJobs!(jobs, dir);
  const back = layout.files.map((name) => {
    const file = written.find((path) => basename(path) === name);
    expect(file, `${name} among ${written.map((path) => basename(path)).join(' ')}`).toBeDefined();
    return file!;
  });
  const read = await readAllJobs(format, back, { strict: true });
  const expected = layout.readsBackAs === undefined ? jobs : jobs.flatMap(layout.readsBackAs);
  return { written: expected.map(layout.carried), read: read.jobs.map(layout.carried) };
}

/**
 * The jobs of a generator's native sample in whole seconds, the earliest submitted at 0: what a
 * trace of whole-second times holds (Philly, Helios and Acme timestamps have that resolution, and
 * every reader counts submissions from the earliest).
 */
async function generatedJobs(style: string): Promise<JobSpec[]> {
  const { jobs, skipped } = await readAllJobs(nativeFormat, [join(SAMPLES, 'native', `${style}.jsonl`)], { strict: true });
  expect(skipped).toEqual([]);
  const earliestS = Math.min(...jobs.map((job) => Math.round(job.submitS)));
  return jobs.map((job) => ({ ...job, submitS: Math.round(job.submitS) - earliestS, totalSteps: Math.round(job.totalSteps) }));
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'dlsim-format-contract-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('trace format contract: the registry', () => {
  it('lists samples here only for registered formats', () => {
    for (const id of Object.keys(CONTRACTS)) expect(traceFormats, id).toHaveProperty([id]);
  });
});

describe.each(Object.keys(traceFormats))('trace format %s (contract)', (id) => {
  const format: TraceFormat = traceFormats[id]!;
  const contract = CONTRACTS[id];
  const samples = contract?.jobs ?? [];

  it('has its samples listed, and they exist in traces/samples/', () => {
    expect(contract, `no samples listed for format ${id}`).toBeDefined();
    expect(samples.length).toBeGreaterThan(0);
    const files = [...samples.flatMap((sample) => sample.files), ...(contract?.cluster ? [contract.cluster.file] : [])];
    for (const file of files) expect(existsSync(join(SAMPLES, file)), `traces/samples/${file}`).toBe(true);
  });

  it('is registered under its id, with a one-line description and files help', () => {
    expect(format.id).toBe(id);
    for (const text of [format.description, format.filesHelp]) {
      expect(text.trim()).not.toBe('');
      expect(text).not.toMatch(/[\r\n]/);
    }
  });

  it('has a machine-list sample exactly when it reads clusters, and written layouts exactly when it writes', () => {
    expect(contract?.cluster !== undefined, 'cluster sample').toBe(format.readCluster !== undefined);
    expect(contract?.readBack !== undefined, 'read-back layouts').toBe(format.writeJobs !== undefined);
  });

  describe.each(samples.map((sample) => [sample.name, sample] as const))('sample %s', (_name, sample) => {
    const files = sample.files.map((file) => join(SAMPLES, file));

    /** All jobs of the sample, read leniently; the sample must have no bad row. */
    async function sampleJobs(): Promise<JobSpec[]> {
      const { jobs, skipped } = await readAllJobs(format, files);
      expect(skipped.map((error) => error.message)).toEqual([]);
      expect(jobs.length).toBeGreaterThan(3);
      return jobs;
    }

    it('yields at most `limit` jobs, exactly `limit` when the sample holds more: the first ones of a full read', async () => {
      const all = await sampleJobs();
      const limits = [...new Set([0, 1, 2, Math.floor(all.length / 2), all.length - 1, all.length, all.length + 3])];
      for (const limit of limits) {
        const { jobs } = await readAllJobs(format, files, { limit, strict: true });
        expect(jobs.length, `limit ${limit}`).toBe(Math.min(limit, all.length));
        expect(jobs.map(withoutSource), `limit ${limit}`).toEqual(all.slice(0, limit).map(withoutSource));
      }
    });

    it('reads jobs a native trace holds: ids unique, and each nativeLine reads back strictly as the same job', async () => {
      const jobs = await sampleJobs();
      expect(new Set(jobs.map((job) => job.id)).size).toBe(jobs.length);
      const file = join(await mkdtemp(join(scratch, 'native-')), 'jobs.jsonl');
      await writeFile(file, jobs.map((job) => `${nativeLine(job)}\n`).join(''));
      const back = await readAllJobs(nativeFormat, [file], { strict: true });
      expect(back.jobs).toEqual(jobs);
    });

    it('strict: a spoiled row rejects with a TraceError at its file:line; lenient: only that row is skipped and reported', async () => {
      const all = await sampleJobs();
      const target = files[sample.corruptFile]!;
      // A row of the spoiled file that is not the earliest submission, so skipping it moves no submit time.
      const earliestS = Math.min(...all.map((job) => job.submitS));
      const candidates = all.filter((job) => splitLocation(readLocation(job)).file === target && job.submitS > earliestS);
      expect(candidates.length).toBeGreaterThan(0);
      const victim = candidates[Math.floor(candidates.length / 2)]!;
      const { line } = splitLocation(readLocation(victim));

      const copies = await copiesOf(scratch, files);
      const copy = copies[sample.corruptFile]!;
      await writeFile(copy, await spoiledText(target, line, sample.corruption));
      const column = spoiledColumn(sample.corruption);

      const error = await rejection(readAllJobs(format, copies, { strict: true }));
      expectLocated(error, copy, line, column);

      const lenient = await readAllJobs(format, copies, { strict: false });
      expect(lenient.skipped).toHaveLength(1);
      expectLocated(lenient.skipped[0], copy, line, column);
      expect(lenient.jobs.map(withoutSource)).toEqual(all.filter((job) => job !== victim).map(withoutSource));
    });

    if (contract?.readBack !== undefined) {
      it.each(contract.readBack.map((layout) => [layout.name, layout] as const))(
        'round trip: jobs written and read back from %s are the same jobs (in what the layout carries)',
        async (_layout, layout) => {
          const { written, read } = await roundTrip(format, layout, await sampleJobs());
          expect(read).toEqual(written);
        },
      );
    }
  });

  const style = contract?.generatedStyle;
  if (contract?.readBack !== undefined) {
    it('names a generator style whose jobs its writer round-trips', () => {
      expect(style).toBeDefined();
    });
  }
  if (contract?.readBack !== undefined && style !== undefined) {
    it.each(contract.readBack.map((layout) => [layout.name, layout] as const))(
      `round trip: the ${style} generator's jobs written and read back from %s are the same jobs (in what the layout carries)`,
      async (_layout, layout) => {
        const jobs = await generatedJobs(style);
        expect(jobs.length).toBeGreaterThan(100);
        const { written, read } = await roundTrip(format, layout, jobs);
        expect(read).toEqual(written);
      },
    );
  }

  const cluster = contract?.cluster;
  if (cluster !== undefined) {
    describe(`machine list ${cluster.file}`, () => {
      const file = join(SAMPLES, cluster.file);

      it('reads at least one node, each with non-negative resources', async () => {
        const spec = await format.readCluster!(file, { limit: Infinity, strict: true, onSkip: () => undefined });
        expect(spec.nodes.length).toBeGreaterThan(0);
        for (const node of spec.nodes) {
          for (const amount of [node.gpus, node.cpuMilli, node.memMiB]) {
            expect(Number.isFinite(amount) && amount >= 0, `${node.name}: ${node.gpus} GPUs, ${node.cpuMilli} mCPU, ${node.memMiB} MiB`).toBe(true);
          }
        }
      });

      it('strict: a spoiled row rejects with a TraceError at its file:line; lenient: that node alone is skipped', async () => {
        const full = await format.readCluster!(file, { limit: Infinity, strict: true, onSkip: () => undefined });
        // The middle data row (a headerless list starts at line 1, one with a header at line 2).
        const firstLine = cluster.corruption.headerless === undefined ? 2 : 1;
        const line = firstLine + Math.floor(full.nodes.length / 2);
        const [copy] = await copiesOf(scratch, [file]);
        await writeFile(copy!, await spoiledText(file, line, cluster.corruption));

        const error = await rejection(format.readCluster!(copy!, { limit: Infinity, strict: true, onSkip: () => undefined }));
        expectLocated(error, copy!, line, cluster.corruption.column);

        const skipped: TraceError[] = [];
        const lenient = await format.readCluster!(copy!, { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) });
        expect(skipped).toHaveLength(1);
        expectLocated(skipped[0], copy!, line, cluster.corruption.column);
        expect(lenient.nodes.map((node) => node.name)).toEqual(full.nodes.filter((_, i) => i !== line - firstLine).map((node) => node.name));
      });
    });
  }
});
