import type { FaultCatalog } from '../faults/catalog.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import type { ClusterSpec } from '../model/cluster-spec.js';
import type { JobSpec } from '../model/job-spec.js';

/** Constants of the simulated world that every policy faces alike (scenario `sim`). */
export interface SimParams {
  /** Training pause when a running job changes its replicas or restarts after preemption, in seconds. */
  readonly resizePauseS: number;
  /** Step-time multiplier of an all-reduce job whose workers span more than one rack (>= 1). */
  readonly crossRackSlowdown: number;
  /** Seconds of training after which a pod with less memory than its role uses is OOM-killed. */
  readonly oomAfterS: number;
}

/** Defaults of SimParams (the scenario `sim` section's defaults). */
export const DEFAULT_SIM_PARAMS: SimParams = { resizePauseS: 30, crossRackSlowdown: 1.25, oomAfterS: 600 };

/** The faults a run injects: a rate catalog (already scaled and overridden) and replayed trace faults. */
export interface FaultSetup {
  readonly catalog: FaultCatalog;
  /** Faults replayed from a fault trace, sorted by time (empty without `faults.trace`). */
  readonly replay: readonly FaultOccurrence[];
  /** Seconds a hung job stalls before its watchdog or heartbeat timeout turns the hang into a crash. */
  readonly hangTimeoutS: number;
}

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
  /** Recovery policy replacing the preset's, when the scenario names one. */
  readonly recovery?: string;
  /** Recovery times replacing the policy's defaults, by name (seconds; e.g. replaceS). */
  readonly recoveryTimesS?: Readonly<Record<string, number>>;
  /** Simulated time limit in seconds; Infinity runs until every job has ended. */
  readonly horizonS: number;
  /** Physical constants of the simulated cluster and its jobs. */
  readonly params: SimParams;
  readonly cluster: ClusterSpec;
  /** Jobs sorted by submission time (ties keep workload order). */
  readonly jobs: readonly JobSpec[];
  /** Weights of users for fair-share scheduling (the scenario's `users`), by user name; absent or unlisted: 1. */
  readonly userWeights?: Readonly<Record<string, number>>;
  /** Faults to inject, or null for a fault-free run. */
  readonly faults: FaultSetup | null;
  /** Things the user should know that did not stop the load (bad trace rows skipped, …), one line each. */
  readonly warnings: readonly string[];
}
