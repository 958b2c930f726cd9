import type { TraceError } from '../errors.js';
import type { ClusterSpec } from '../model/cluster-spec.js';
import type { JobSpec } from '../model/job-spec.js';

/** How an importer treats bad rows and how much it reads. */
export interface TraceReadOptions {
  /** Stop after this many jobs (Infinity for all). */
  readonly limit: number;
  /** True: the first bad row throws its TraceError. False: it is skipped and passed to `onSkip`. */
  readonly strict: boolean;
  /** Receives every skipped bad row (non-strict mode); never called in strict mode. */
  readonly onSkip: (error: TraceError) => void;
}

/** A trace format dlsim reads (and, for samples, writes). One file per format in src/workload/formats/. */
export interface TraceFormat {
  /** Format id, as in `--format` and a scenario's `workload.trace.format`. */
  readonly id: string;
  /** One line: what the format is and where it is published. */
  readonly description: string;
  /** The files `trace import` expects, for help and errors, e.g. "pai_job_table.csv pai_task_table.csv [pai_instance_table.csv]". */
  readonly filesHelp: string;
  /** Streams the jobs of the given files, in file order (not necessarily by submission time). */
  readJobs(files: readonly string[], options: TraceReadOptions): AsyncIterable<JobSpec>;
  /** Reads the format's machine list as a cluster, for formats that publish one. */
  readCluster?(file: string, options: TraceReadOptions): Promise<ClusterSpec>;
  /** Writes jobs in this format (used to make the small samples in traces/); returns the files written. */
  writeJobs?(jobs: readonly JobSpec[], outDir: string): Promise<string[]>;
}

/** Reads options that skip nothing silently: strict unless told otherwise, no limit. */
export function strictReadOptions(): TraceReadOptions {
  return { limit: Infinity, strict: true, onSkip: () => undefined };
}
