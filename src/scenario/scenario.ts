import type { ClusterSpec } from '../model/cluster-spec.js';
import type { JobSpec } from '../model/job-spec.js';

/** A scenario after parsing, validation, overrides and workload generation: ready to simulate. */
export interface Scenario {
  /** Scenario name (the YAML `name`, else the file's base name). */
  readonly name: string;
  /** File it was read from, for messages. */
  readonly file: string;
  /** Seed every random stream derives from. */
  readonly seed: number;
  /** Policy preset name, e.g. "fifo". */
  readonly policy: string;
  /** Simulated time limit in seconds; Infinity runs until every job has ended. */
  readonly horizonS: number;
  readonly cluster: ClusterSpec;
  /** Jobs sorted by submission time (ties keep workload order). */
  readonly jobs: readonly JobSpec[];
  /** Things the user should know that did not stop the load (bad trace rows skipped, …), one line each. */
  readonly warnings: readonly string[];
}
