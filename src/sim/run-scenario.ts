import { ConfigError } from '../errors.js';
import { loadScenario } from '../scenario/load.js';
import { presetNames } from '../policies/presets.js';
import type { RunSummary } from '../metrics/summary.js';
import { RunHistory } from './history.js';
import { simulate, type SimProgress, type SimResult } from './simulation.js';

/** One run to make: a scenario file with a policy, a seed and `--set` overrides. */
export interface RunRequest {
  readonly file: string;
  readonly policy: string;
  readonly seed: number;
  readonly sets: readonly string[];
  /** Check invariants after every instant (absent: invariantChecksByDefault()). */
  readonly checkInvariants?: boolean;
  /** The bytes of the scenario's history file, read once for a set of runs (absent: read from the file). */
  readonly historySnapshot?: Uint8Array;
  /** Folder to write the run's files to (jobs.csv, timeline.csv, usage.csv, gantt.csv, summary.json, …): the run records what a report draws. */
  readonly outDir?: string;
}

/**
 * Loads and simulates one run; returns its summary (perf left at zero: timing belongs to the
 * caller). The scenario's history is read, never written. `onProgress` is told where the run stands
 * (see SimOptions).
 */
export async function runScenario(request: RunRequest, onProgress?: (progress: SimProgress) => void): Promise<RunSummary> {
  return (await runScenarioResult(request, onProgress)).summary;
}

/** Loads and simulates one run and returns its whole result (recorded for a report when the request names an output folder). */
export async function runScenarioResult(request: RunRequest, onProgress?: (progress: SimProgress) => void): Promise<SimResult> {
  const scenario = await loadScenario(request.file, {
    policy: request.policy,
    seed: request.seed,
    sets: request.sets,
    knownPolicies: presetNames(),
  });
  if (scenario.fill !== undefined) throw new ConfigError(request.file, 'a fill scenario makes no timed run (dlsim run and dlsim compare place its jobs)');
  const history = scenario.history === undefined ? null : await RunHistory.open(scenario.history, request.historySnapshot);
  try {
    return simulate(scenario, {
      ...(request.checkInvariants === undefined ? {} : { checkInvariants: request.checkInvariants }),
      ...(history === null ? {} : { history: history.view }),
      ...(onProgress === undefined ? {} : { onProgress }),
      ...(request.outDir === undefined ? {} : { record: true }),
    });
  } finally {
    history?.close();
  }
}
