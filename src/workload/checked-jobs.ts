import { TraceError } from '../errors.js';
import type { JobSpec } from '../model/job-spec.js';
import { nativeIssue, readLocation } from './formats/native.js';
import type { TraceFormat, TraceReadOptions } from './trace-format.js';

/** Options of readCheckedJobs beyond the bad-row policy. */
export interface CheckedReadOptions extends TraceReadOptions {
  /** True: a job id seen before is a bad row ("id: duplicate id"), as a native trace must not repeat one. */
  readonly uniqueIds?: boolean;
}

/**
 * Streams the jobs of `files` in `format`, each checked against what the native reader accepts
 * (bounds on counts, sizes and times; one entry per role), so that nothing read from any format
 * goes further than a native trace could. A failing job is a bad row at its source line: skipped
 * and reported, or thrown under `strict`.
 */
export async function* readCheckedJobs(format: TraceFormat, files: readonly string[], options: CheckedReadOptions): AsyncGenerator<JobSpec> {
  const seen = options.uniqueIds ? new Set<string>() : null;
  const reject = (job: JobSpec, field: string, reason: string, value?: string): void => {
    const error = traceErrorAt(readLocation(job), field, reason, value);
    if (options.strict) throw error;
    options.onSkip(error);
  };
  for await (const job of format.readJobs(files, options)) {
    // Native lines were checked by the reader itself.
    const issue = format.id === 'native' ? null : nativeIssue(job);
    if (issue !== null) {
      reject(job, issue.field, issue.reason);
      continue;
    }
    if (seen !== null) {
      if (seen.has(job.id)) {
        reject(job, 'id', 'duplicate id', job.id);
        continue;
      }
      seen.add(job.id);
    }
    yield job;
  }
}

/** A TraceError at where a job was read ("file:line"; a source without a line is reported at line 0). */
function traceErrorAt(source: string, field: string, reason: string, value?: string): TraceError {
  const match = /^(.*):(\d+)$/.exec(source);
  return match ? new TraceError(match[1]!, Number(match[2]), field, reason, value) : new TraceError(source, 0, field, reason, value);
}
