import { once } from 'node:events';
import { createWriteStream, mkdirSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SimError, TraceError } from '../errors.js';
import { nativeLine } from './formats/native.js';
import { SkipCounter } from './skip-counter.js';
import type { TraceFormat } from './trace-format.js';

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
 * Streams the jobs of `files` in `format` into a native JSON Lines file. The output is written
 * to a temporary name and renamed at the end, also when a strict import stops at a bad row, so
 * nothing imported is lost and a half-written file never carries the final name.
 */
export async function importTrace(
  format: TraceFormat,
  files: readonly string[],
  options: { readonly limit: number; readonly strict: boolean },
  outFile: string,
): Promise<ImportReport> {
  mkdirSync(dirname(outFile), { recursive: true });
  const temporary = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  const out = createWriteStream(temporary);
  const skipped = new SkipCounter();
  let jobs = 0;
  let stop: TraceError | null = null;
  try {
    for await (const job of format.readJobs(files, { ...options, onSkip: (e) => skipped.add(e) })) {
      if (!out.write(`${nativeLine(job)}\n`)) await once(out, 'drain');
      jobs++;
    }
  } catch (error) {
    if (!(error instanceof TraceError)) {
      out.destroy();
      throw error;
    }
    stop = error;
  }
  out.end();
  await once(out, 'finish');
  renameSync(temporary, outFile);
  if (stop) throw new ImportStoppedError(stop, jobs, outFile);
  return { jobs, skipped, outFile };
}
