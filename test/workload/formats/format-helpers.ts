import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import type { TraceFormat, TraceReadOptions } from '../../../src/workload/trace-format.js';

/** The project's own sample traces. */
export const SAMPLES = join(import.meta.dirname, '../../../traces/samples');

/** Writes a text file of the given lines (newline-terminated) into `dir`; returns its path. */
export async function writeLines(dir: string, name: string, lines: readonly string[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** Reads all jobs of the files in a format, collecting the skipped rows (lenient unless told otherwise). */
export async function readAllJobs(
  format: TraceFormat,
  files: string[],
  options: Partial<TraceReadOptions> = {},
): Promise<{ jobs: JobSpec[]; skipped: TraceError[] }> {
  const jobs: JobSpec[] = [];
  const skipped: TraceError[] = [];
  const full: TraceReadOptions = { limit: Infinity, strict: false, onSkip: (error) => skipped.push(error), ...options };
  for await (const job of format.readJobs(files, full)) jobs.push(job);
  return { jobs, skipped };
}

/** A job without its `source` (which names the file and line it was read from). */
export function withoutSource(job: JobSpec): Omit<JobSpec, 'source'> {
  const { source: _source, ...rest } = job;
  return rest;
}
