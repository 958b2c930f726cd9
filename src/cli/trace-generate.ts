import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { RandomStreams } from '../engine/random.js';
import { ConfigError } from '../errors.js';
import { checkOutDir, checkOutFile } from '../io/destination.js';
import { releaseTemporary, trackTemporary } from '../io/temporaries.js';
import type { JobSpec } from '../model/job-spec.js';
import { MAX_JOBS } from '../model/limits.js';
import { traceFormatById, traceFormatIds, traceFormats } from '../workload/formats.js';
import { nativeLine } from '../workload/formats/native.js';
import { oneValueOption, wholeNumberOption } from './options.js';
import { generatorStyleIds, generatorStyles } from '../workload/generators/styles.js';
import { makeFolder } from '../io/make-folder.js';

interface GenerateArgs {
  style: string;
  jobs: number;
  seed: number;
  out: string;
  format?: string;
}

/** What `trace generate` wrote. */
export interface GenerateResult {
  readonly jobs: number;
  readonly files: readonly string[];
}

/**
 * Writes jobs as native JSON Lines to `path` atomically: streamed to a temporary file in the same
 * folder (memory stays flat for large traces), then renamed over the target.
 */
export async function writeNativeJobsAtomic(jobs: Iterable<JobSpec>, path: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let out: WriteStream | undefined;
  try {
    makeFolder(dirname(path));
    trackTemporary(temporary);
    out = createWriteStream(temporary);
    for (const job of jobs) {
      if (!out.write(`${nativeLine(job)}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    renameSync(temporary, path);
  } catch (error) {
    out?.destroy();
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The folder itself is unusable: there is no temporary file to remove.
    }
    const code = (error as NodeJS.ErrnoException).code;
    // A file-system refusal is the user's to fix; anything else is a bug and keeps its stack.
    if (code === undefined) throw error;
    throw new ConfigError(path, `cannot write the trace (${code})`);
  } finally {
    releaseTemporary(temporary);
  }
}

/**
 * Generates `count` jobs of a style from `seed` and writes them: native JSON Lines to the file `out`
 * by default, or with `formatId` (a registered format with a writer) that format into the folder
 * `out`. Unknown styles and formats are ConfigErrors listing the known ones.
 */
export async function generateTrace(style: string, count: number, seed: number, out: string, formatId = 'native'): Promise<GenerateResult> {
  const generator = generatorStyles[style];
  if (!generator) throw new ConfigError('--style', `unknown generator style "${style}" (known: ${generatorStyleIds().join(', ')})`);
  if (!Number.isInteger(count) || count < 1 || count > MAX_JOBS) {
    throw new ConfigError('--jobs', `must be a whole number of jobs from 1 to ${MAX_JOBS}, got ${count}`);
  }
  if (!Number.isInteger(seed)) throw new ConfigError('--seed', `must be a whole number, got ${seed}`);
  const format = traceFormatById(formatId);
  if (!format) throw new ConfigError('--format', `unknown trace format "${formatId}" (known: ${traceFormatIds().join(', ')})`);
  const writable = traceFormatIds().filter((id) => id === 'native' || traceFormats[id]!.writeJobs !== undefined);
  if (formatId !== 'native' && !format.writeJobs) {
    throw new ConfigError('--format', `format "${formatId}" has no writer (writable: ${writable.join(', ')})`);
  }
  if (formatId === 'native') checkOutFile(out, '--out');
  else checkOutDir(out, '--out');
  const jobs = generator.generate(count, new RandomStreams(seed));
  if (formatId === 'native') {
    await writeNativeJobsAtomic(jobs, out);
    return { jobs: jobs.length, files: [out] };
  }
  const files = await format.writeJobs!(jobs, out);
  return { jobs: jobs.length, files };
}

/** `dlsim trace generate --style S --jobs N --seed S --out FILE [--format F]`: a synthetic trace in a real cluster's image. */
export const traceGenerateCommand: CommandModule<object, GenerateArgs> = {
  command: 'generate',
  describe: 'Generate a workload in the style of a real cluster and write it as a trace',
  builder: (yargs: Argv<object>) =>
    yargs
      .option('style', { type: 'string', demandOption: true, describe: `generator style (${generatorStyleIds().join(', ')})` })
      .option('jobs', { type: 'string', demandOption: true, coerce: wholeNumberOption('--jobs', 1), describe: 'number of jobs' })
      .option('seed', { type: 'string', default: '1', coerce: wholeNumberOption('--seed', 0), describe: 'random seed (same seed, same jobs)' })
      .option('out', {
        type: 'string',
        coerce: oneValueOption('--out'),
        demandOption: true,
        describe: 'file to write (native JSON Lines); with --format, the folder to write that format into',
      })
      .option('format', { type: 'string', describe: 'write this trace format instead of native JSON Lines' }) as unknown as Argv<GenerateArgs>,
  handler: async (args: ArgumentsCamelCase<GenerateArgs>) => {
    const result = await generateTrace(args.style, args.jobs, args.seed, args.out, args.format ?? 'native');
    process.stdout.write(`generated ${result.jobs} ${args.style} jobs (seed ${args.seed}) -> ${result.files.join(', ')}\n`);
  },
};
