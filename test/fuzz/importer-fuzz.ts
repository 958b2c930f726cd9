/**
 * Fuzzing of one trace importer: each case writes mutated copies of a seed trace into a fresh
 * folder and runs the import `dlsim trace import` runs (importTrace, in-process), or the format's
 * machine-list reader. Accepted: success, whose output the native reader reads back strictly, or
 * a located ConfigError / TraceError; after every case no temporary file is left.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { nativeFormat } from '../../src/workload/formats/native.js';
import { ImportStoppedError, importTrace } from '../../src/workload/import.js';
import type { TraceFormat } from '../../src/workload/trace-format.js';
import { expectAcceptedError, fuzz, type Scratch } from './harness.js';
import { applyFileMutation, fileMutation, type FileMutation } from './mutate.js';

/** One seed input of a format: the files `trace import` is given, by name and text. */
export interface SeedTrace {
  readonly files: readonly { readonly name: string; readonly text: string }[];
}

/** What to fuzz: a format, its seed traces, how its files are edited, and which reader to run. */
export interface ImporterTarget {
  readonly name: string;
  readonly format: TraceFormat;
  readonly seeds: readonly SeedTrace[];
  /** "csv": line and cell edits; "json": value edits inside JSON lines. */
  readonly kind: 'csv' | 'json';
  /** "jobs": importTrace; "cluster": the format's readCluster on the first file. */
  readonly reader: 'jobs' | 'cluster';
}

/** One case: which seed, which of its files get which edits, and the import options. */
interface ImportCase {
  readonly seed: number;
  readonly edits: readonly { readonly file: number; readonly mutation: FileMutation }[];
  readonly strict: boolean;
  readonly limit: number;
  /** True: the input files are also given once more (a repeated file, duplicate ids). */
  readonly repeatFiles: boolean;
}

function importCase(kind: 'csv' | 'json'): fc.Arbitrary<ImportCase> {
  return fc.record({
    seed: fc.nat(),
    edits: fc.array(fc.record({ file: fc.nat(), mutation: fileMutation(kind) }), { minLength: 1, maxLength: 2 }),
    strict: fc.boolean(),
    limit: fc.oneof({ arbitrary: fc.constant(Infinity), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 }),
    repeatFiles: fc.nat({ max: 4 }).map((n) => n === 0),
  });
}

/** Writes the case's files into `dir`; returns their paths in the seed's order. */
function writeCase(target: ImporterTarget, value: ImportCase, dir: string): string[] {
  const seed = target.seeds[value.seed % target.seeds.length]!;
  const texts: Buffer[] = seed.files.map((file) => Buffer.from(file.text, 'utf8'));
  for (const edit of value.edits) {
    const index = edit.file % seed.files.length;
    texts[index] = applyFileMutation(texts[index]!.toString('utf8'), edit.mutation);
  }
  return seed.files.map((file, index) => {
    const path = join(dir, file.name);
    writeFileSync(path, texts[index]!);
    return path;
  });
}

/** Reads a native file strictly: what an import wrote must read back without a bad row. */
async function readBackStrictly(file: string): Promise<number> {
  let jobs = 0;
  for await (const job of nativeFormat.readJobs([file], { limit: Infinity, strict: true, onSkip: () => undefined })) {
    if (job.id === '') throw new Error(`empty id read back from ${file}`);
    jobs++;
  }
  return jobs;
}

/** Runs `numRuns` cases against the target; see the file header for what is accepted. */
export async function fuzzImporter(target: ImporterTarget, scratch: Scratch, numRuns: number, salt: number): Promise<void> {
  await fuzz(target.name, salt, numRuns, importCase(target.kind), async (value) => {
    const dir = scratch.caseDir();
    const files = writeCase(target, value, dir);
    const options = { limit: value.limit, strict: value.strict };
    const where = { paths: [dir] };
    try {
      if (target.reader === 'cluster') {
        try {
          const cluster = await target.format.readCluster!(files[0]!, { ...options, onSkip: () => undefined });
          if (!Array.isArray(cluster.nodes)) throw new Error('readCluster gave no node list');
        } catch (error) {
          expectAcceptedError(error, where);
        }
        return;
      }
      const outFile = join(dir, 'out', 'jobs.jsonl');
      const inputs = value.repeatFiles && target.format.id !== 'alibaba-pai-2020' ? [...files, ...files] : files;
      try {
        const report = await importTrace(target.format, inputs, options, outFile);
        const readBack = await readBackStrictly(outFile);
        if (readBack !== report.jobs) throw new Error(`import reported ${report.jobs} jobs, the file holds ${readBack}`);
      } catch (error) {
        expectAcceptedError(error, where);
        if (error instanceof ImportStoppedError) await readBackStrictly(error.outFile);
      }
    } finally {
      scratch.finish(dir);
    }
  });
}
