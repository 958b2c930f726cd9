import type { FaultCatalog } from '../faults/catalog.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import type { ClusterSpec } from '../model/cluster-spec.js';
import type { JobSpec } from '../model/job-spec.js';
import type { PreprocessingSpec } from '../model/preprocessing.js';
import type { SimParams } from '../model/sim-params.js';
import type { PolicyKind } from '../policies/registry.js';

export { DEFAULT_SIM_PARAMS, type SimParams } from '../model/sim-params.js';

/** The faults a run injects: a rate catalog (already scaled and overridden) and replayed trace faults. */
export interface FaultSetup {
  readonly catalog: FaultCatalog;
  /** Faults replayed from a fault trace, sorted by time (empty without `faults.trace`). */
  readonly replay: readonly FaultOccurrence[];
  /** Seconds a hung job stalls before its watchdog or heartbeat timeout turns the hang into a crash. */
  readonly hangTimeoutS: number;
}

/** A published figure the model misses on purpose: the mean is held to the model's figure instead. */
export interface KnownGap {
  /** What the model gives (the mean over the expectation's seeds when the gap was recorded). */
  readonly model: number;
  /** How far the mean may move from `model` before the gap counts as drift. */
  readonly drift: number;
}

/** A published figure a scenario reproduces (its `expect` entries), checked by `dlsim bench --check`. */
export interface Expectation {
  /** A summary metric ("ettr", "jctS.mean"), or "pairedRatio.<metric>" for the per-seed ratio policy / baseline. */
  readonly metric: string;
  readonly policy: string;
  /** The policy a paired ratio divides by. */
  readonly baseline?: string;
  readonly target: number;
  /** Largest distance of the mean from the target that meets the figure. */
  readonly tolerance: number;
  /** Seeds the mean is taken over: the scenario seed and the ones after it. */
  readonly seeds: number;
  /** Where the figure was published. */
  readonly source: string;
  readonly gap?: KnownGap;
  /** The entry's location for messages: "file:line: expect[0]". */
  readonly where: string;
}

/** What `dlsim bench` runs of a scenario: its presets on its baseline seeds, and its published figures. */
export interface BenchSettings {
  /** Presets to run (the `compare` key; the scenario's policy when absent). */
  readonly compare: readonly string[];
  /** Seeds whose summaries are baselines: the scenario seed and the ones after it. */
  readonly baselineSeeds: number;
  readonly expect: readonly Expectation[];
}

/** How a fill run orders the jobs: submission order (ties keep workload order), or shuffled by the seed. */
export type FillOrder = 'submit' | 'shuffle';

/** A placement-only replay (the scenario's `fill` section): every job placed once, in order, and kept. */
export interface FillSettings {
  readonly order: FillOrder;
  /**
   * Share of the workload's pods whose shapes, most common first, make the target workload the
   * fragmentation is measured against (1: every shape).
   */
  readonly coverage: number;
}

/** The auto-scaler's history database of a run (the scenario's `history`). */
export interface HistorySetting {
  /** The database file, resolved against the scenario's folder; `dlsim run` creates it when missing. */
  readonly file: string;
  /** History time (seconds) the run's t = 0 maps to; absent: the day after the history's latest finish (0 when empty). */
  readonly startS?: number;
}

/** A policy a scenario chooses for one kind: its registry id and its options, already checked. */
export interface PolicyChoice {
  readonly name: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/** The kinds a scenario's `policies:` replaces in its preset's stack. */
export type PolicyChoices = Partial<Readonly<Record<PolicyKind, PolicyChoice>>>;

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
  /** Policies replacing the preset's, by kind (the scenario's `policies:`; its `recovery:` is the recovery kind's). */
  readonly policies?: PolicyChoices;
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
  /** Preprocessing needs drawn for trace jobs, by job id (a job's own `preprocessing` comes first); absent: none. */
  readonly preprocessing?: ReadonlyMap<string, PreprocessingSpec>;
  /** Weights of users for fair-share scheduling (the scenario's `users`), by user name; absent or unlisted: 1. */
  readonly userWeights?: Readonly<Record<string, number>>;
  /** Faults to inject, or null for a fault-free run. */
  readonly faults: FaultSetup | null;
  /** Present: a placement-only fill run instead of a timed simulation. */
  readonly fill?: FillSettings;
  /** Present: the run reads (and `dlsim run` then adds to) this history of finished jobs. */
  readonly history?: HistorySetting;
  /** Baselines and published figures (set by the loader; absent in scenarios built in code). */
  readonly bench?: BenchSettings;
  /** Things the user should know that did not stop the load (bad trace rows skipped, …), one line each. */
  readonly warnings: readonly string[];
}
