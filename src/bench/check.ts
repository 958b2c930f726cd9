import { existsSync } from 'node:fs';
import { InvariantError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { type BaselineChange, type BaselineRun, baselineMetrics, diffBaselines, sortRuns } from './baselines.js';
import { evaluateExpectation, type GateResult } from './gates.js';
import { baselineRunsOf, planScenarios, runRequests, type ScenarioPlan, type SkippedScenario } from './plan.js';

/** Runs requests and returns their summaries in request order (in worker threads or in this one). */
export type RunAll = (requests: readonly RunRequest[]) => Promise<RunSummary[]>;

/** What a baseline check found. */
export interface BenchCheckResult {
  readonly plans: readonly ScenarioPlan[];
  readonly skipped: readonly SkippedScenario[];
  /** Runs made (baselines and expectations). */
  readonly runs: number;
  /** The fresh baselines of the scenarios checked. */
  readonly fresh: readonly BaselineRun[];
  /** What an update writes: the fresh baselines, and the recorded ones of scenarios not checked or skipped. */
  readonly updated: readonly BaselineRun[];
  /** Differences between the recorded and the fresh baselines of the scenarios checked. */
  readonly changes: readonly BaselineChange[];
  /** Every expectation of the scenarios checked, evaluated. */
  readonly gates: readonly GateResult[];
}

/**
 * Reruns the scenario files' presets and seeds (with `--set` overrides), compares their metrics with
 * the recorded baselines and evaluates their published figures. Recorded baselines of files not
 * named, or skipped for absent data, are neither compared nor dropped; those of files that no longer
 * exist are reported and dropped.
 */
export async function checkBaselines(
  files: readonly string[],
  sets: readonly string[],
  recorded: readonly BaselineRun[],
  runAll: RunAll,
): Promise<BenchCheckResult> {
  const { plans, skipped } = await planScenarios(files, sets);
  const requests = runRequests(plans, sets);
  const summaries = await runAll(requests);
  const byKey = new Map(requests.map((request, i) => [JSON.stringify([request.file, request.policy, request.seed]), summaries[i]!]));
  const summaryOf = (file: string, policy: string, seed: number): RunSummary => {
    const summary = byKey.get(JSON.stringify([file, policy, seed]));
    if (summary === undefined) throw new InvariantError(`no run of ${file} under ${policy} on seed ${seed}`);
    return summary;
  };
  const fresh = sortRuns(
    plans.flatMap((plan) =>
      baselineRunsOf(plan).map(({ policy, seed }) => ({ scenario: plan.file, policy, seed, metrics: baselineMetrics(summaryOf(plan.file, policy, seed)) })),
    ),
  );
  // A recorded scenario whose file is gone is checked too: its baselines show as runs no longer made.
  const checked = new Set([...plans.map((plan) => plan.file), ...recorded.map((run) => run.scenario).filter((file) => !existsSync(file))]);
  const inScope = recorded.filter((run) => checked.has(run.scenario));
  const gates = plans.flatMap((plan) =>
    plan.settings.expect.map((expectation) =>
      evaluateExpectation(plan.name, expectation, plan.firstSeed, (policy, seed) => summaryOf(plan.file, policy, seed)),
    ),
  );
  return {
    plans,
    skipped,
    runs: requests.length,
    fresh,
    updated: sortRuns([...recorded.filter((run) => !checked.has(run.scenario)), ...fresh]),
    changes: diffBaselines(inScope, fresh),
    gates,
  };
}
