import { performance } from 'node:perf_hooks';
import { ConfigError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { loadScenario } from '../scenario/load.js';
import { fill } from '../sim/fill.js';

/** What one timed fill run did. */
export interface FillBench {
  /** Wall seconds of the placements and the fragmentation measures (loading the scenario is not timed). */
  readonly seconds: number;
  /** Pods (jobs) the run tried to place. */
  readonly pods: number;
}

/**
 * Times one fill run of the scenario file (its own policy and seed, invariants not checked): a
 * ConfigError for a scenario without a fill section, or any problem loading it.
 */
export async function benchFill(scenarioPath: string): Promise<FillBench> {
  const scenario = await loadScenario(scenarioPath, { knownPolicies: presetNames() });
  if (scenario.fill === undefined) throw new ConfigError(scenarioPath, 'not a fill scenario (it has no fill section)');
  const startedMs = performance.now();
  const summary = fill(scenario, { checkInvariants: false });
  const seconds = (performance.now() - startedMs) / 1000;
  return { seconds, pods: summary.jobs.submitted };
}
