import { ConfigError } from '../errors.js';
import { loadScenario } from '../scenario/load.js';
import { presetNames } from '../policies/presets.js';
import type { RunSummary } from '../metrics/summary.js';
import { simulate } from './simulation.js';

/** One run to make: a scenario file with a policy, a seed and `--set` overrides. */
export interface RunRequest {
  readonly file: string;
  readonly policy: string;
  readonly seed: number;
  readonly sets: readonly string[];
  /** Check invariants after every instant (absent: invariantChecksByDefault()). */
  readonly checkInvariants?: boolean;
}

/** Loads and simulates one run; returns its summary (perf left at zero: timing belongs to the caller). */
export async function runScenario(request: RunRequest): Promise<RunSummary> {
  const scenario = await loadScenario(request.file, {
    policy: request.policy,
    seed: request.seed,
    sets: request.sets,
    knownPolicies: presetNames(),
  });
  if (scenario.fill !== undefined) throw new ConfigError(request.file, 'a fill scenario makes no timed run (dlsim run and dlsim compare place its jobs)');
  return simulate(scenario, request.checkInvariants === undefined ? {} : { checkInvariants: request.checkInvariants }).summary;
}
