import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError, SimError, TraceError } from '../errors.js';
import { releaseTemporary, trackTemporary } from '../io/temporaries.js';
import { readCheckedJobs } from './checked-jobs.js';
import { nativeLine } from './formats/native.js';
import { SkipCounter } from './skip-counter.js';
import type { TraceFormat } from './trace-format.js';
import { makeFolder } from '../io/make-folder.js';

/** What an import did. */
export interface ImportReport {
  readonly jobs: number;
  readonly skipped: SkipCounter;
  readonly outFile: string;
}

/** A strict import stopped at a bad row; the jobs before it were kept in the output file. */
export class ImportStoppedError extends SimError {
  override name = 'ImportStoppedError';
  constructor(
    readonly traceError: TraceError,
    readonly jobsKept: number,
    readonly outFile: string,
  ) {
    super(`${traceError.message} (stopped by --strict; the ${jobsKept} jobs before it are in ${outFile})`);
  }
}

/**
 * Streams the jobs of `files` in `format` into a native JSON Lines file, each checked as the native
 * reader checks it (ids unique). The output is written to a temporary name and renamed at the end,
 * also when a strict import stops at a bad row, so nothing imported is lost and a half-written file
 * never carries the final name. Any other failure, and an import that yields no job (an error
 * naming the first skipped row), removes the temporary file and leaves the target untouched.
 */
export async function importTrace(
  format: TraceFormat,
  files: readonly string[],
  options: { readonly limit: number; readonly strict: boolean },
  outFile: string,
): Promise<ImportReport> {
  try {
    makeFolder(dirname(outFile));
  } catch (error) {
    throw new ConfigError(outFile, `cannot write the output (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const temporary = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  trackTemporary(temporary);
  const out = createWriteStream(temporary);
  const skipped = new SkipCounter();
  let jobs = 0;
  let stop: TraceError | null = null;
  try {
    try {
      // Open it before reading: a read that fails at once would otherwise remove the file before it exists.
      await once(out, 'open');
    } catch (error) {
      throw new ConfigError(outFile, `cannot write the output (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    try {
      const read = readCheckedJobs(format, files, { ...options, uniqueIds: true, onSkip: (e) => skipped.add(e) });
      for await (const job of read) {
        if (!out.write(`${nativeLine(job)}\n`)) await once(out, 'drain');
        jobs++;
      }
    } catch (error) {
      // Only a strict import stops at a bad row and keeps what came before; anything else fails the import.
      if (!(error instanceof TraceError && options.strict)) throw error;
      stop = error;
    }
    if (jobs === 0) throw noJobError(files, skipped, stop);
    out.end();
    await once(out, 'finish');
    renameSync(temporary, outFile);
  } catch (error) {
    await discard(out);
    rmSync(temporary, { force: true });
    throw error;
  } finally {
    releaseTemporary(temporary);
  }
  if (stop) throw new ImportStoppedError(stop, jobs, outFile);
  return { jobs, skipped, outFile };
}

/** Drops a failed import's output stream: a write still pending reports nothing, the file is closed. */
async function discard(out: WriteStream): Promise<void> {
  out.on('error', () => undefined);
  if (out.closed) return;
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  out.destroy();
  await closed;
}

/** The error of a read that gave no job: its first bad row, or an empty input. */
export function noJobError(files: readonly string[], skipped: SkipCounter, stop: TraceError | null = null): SimError {
  const first = stop ?? skipped.examples[0];
  if (first !== undefined) {
    const rows = skipped.total + (stop ? 1 : 0);
    return new ConfigError('', `no job read; the first of ${rows} bad row${rows === 1 ? '' : 's'}: ${first.message}`);
  }
  return new ConfigError(files.join(', '), 'no job read: no rows');
}
