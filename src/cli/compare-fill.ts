import { performance } from 'node:perf_hooks';
import { writeFilesAtomic } from '../io/atomic-write.js';
import { buildFillComparison, fillComparisonCsv, fillComparisonTable, type FillComparisonRun } from '../report/fill-compare.js';
import type { ComparisonProvenance } from '../report/provenance.js';
import { loadScenario } from '../scenario/load.js';
import type { Scenario } from '../scenario/scenario.js';
import { fill } from '../sim/fill.js';
import { printJson } from './output.js';

/** What `dlsim compare` was asked for, as a fill comparison uses it. */
export interface FillCompareRequest {
  readonly file: string;
  readonly policies: readonly string[];
  readonly seeds: readonly number[];
  readonly sets: readonly string[];
  readonly knownPolicies: readonly string[];
  readonly out?: string | undefined;
  readonly json?: boolean | undefined;
  readonly checkInvariants?: boolean | undefined;
  /** How the comparison is made, for comparison.json and the JSON (absent: left out). */
  readonly provenance?: ComparisonProvenance;
}

/**
 * `dlsim compare` of a scenario with a fill section: every preset's placement on every seed (the
 * scenario loaded once per seed, which draws its synthetic jobs and its shuffled order), in this
 * thread (a fill run takes well under a second); prints the table or the JSON, `--out` writes
 * comparison.csv and comparison.json.
 */
export async function compareFill(first: Scenario, request: FillCompareRequest): Promise<void> {
  const startedMs = performance.now();
  const runs: FillComparisonRun[] = [];
  for (const seed of request.seeds) {
    const scenario = seed === first.seed ? first : await loadScenario(request.file, { policy: request.policies[0], seed, sets: request.sets, knownPolicies: request.knownPolicies });
    for (const policy of request.policies) {
      runs.push({ policy, seed, summary: fill({ ...scenario, policy }, { checkInvariants: request.checkInvariants ?? false }) });
    }
  }
  const wallS = (performance.now() - startedMs) / 1000;
  // Report in preset order, then seed order, as a timed comparison does.
  runs.sort((a, b) => request.policies.indexOf(a.policy) - request.policies.indexOf(b.policy) || a.seed - b.seed);
  const comparison = { ...buildFillComparison(first.name, request.policies, runs), ...(request.provenance === undefined ? {} : { provenance: request.provenance }) };
  if (request.out !== undefined) {
    writeFilesAtomic(request.out, [
      ['comparison.csv', fillComparisonCsv(runs)],
      ['comparison.json', `${JSON.stringify(comparison, null, 2)}\n`],
    ]);
  }
  if (request.json) return printJson(comparison);
  process.stdout.write(`${fillComparisonTable(comparison)}\n\n${runs.length} fill runs in ${wallS.toFixed(1)}s\n`);
}
