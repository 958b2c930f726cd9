import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { buildComparison, type ComparisonRun } from '../../src/report/compare.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

const FILE = 'scenarios/validation/optimus-vs-drf.yaml';
/** The seeds the scenario's header names. */
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const POLICIES = ['optimus', 'drf', 'drf-dynamic'];

/**
 * The scenario header's figures: per-seed ratio to optimus, mean over seeds 1-20, for drf (JCT
 * 1.71x, makespan 3.34x) and drf-dynamic (0.94x, 1.20x). Each is asserted in a two-sided band of
 * about twice its 95% interval, so a drift of the model in either direction fails. The paper's
 * 2.39x / 1.63x are not reached (see the header): the bands are around what dlsim prints.
 */
describe('scenarios/validation/optimus-vs-drf.yaml', () => {
  it('draws a new workload per seed, and the paired ratios to optimus stay where the header says', async () => {
    const runs: ComparisonRun[] = [];
    const firstSubmits = new Set<number>();
    for (const seed of SEEDS) {
      for (const policy of POLICIES) {
        const scenario = await loadScenario(FILE, { knownPolicies: presetNames(), policy, seed });
        firstSubmits.add(scenario.jobs[0]!.submitS);
        const { summary } = simulate(scenario);
        expect(summary.jobs.completed).toBe(48);
        runs.push({ policy, seed, summary });
      }
    }
    // Every seed is a different workload (its first arrival differs), the same one for each policy.
    expect(firstSubmits.size).toBe(SEEDS.length);

    const { pairedRatios } = buildComparison('optimus-vs-drf', POLICIES, runs);
    const jct = pairedRatios['jctS.mean']!;
    const makespan = pairedRatios.makespanS!;
    console.log(
      `optimus-vs-drf seeds 1-20, ratio to optimus: drf JCT ${jct.drf!.mean.toFixed(3)} ± ${jct.drf!.ci95!.toFixed(3)}, makespan ${makespan.drf!.mean.toFixed(3)} ± ${makespan.drf!.ci95!.toFixed(3)}; ` +
        `drf-dynamic JCT ${jct['drf-dynamic']!.mean.toFixed(3)} ± ${jct['drf-dynamic']!.ci95!.toFixed(3)}, makespan ${makespan['drf-dynamic']!.mean.toFixed(3)} ± ${makespan['drf-dynamic']!.ci95!.toFixed(3)} (paper: 2.39x, 1.63x)`,
    );
    const within = (value: number, low: number, high: number) => {
      expect(value).toBeGreaterThanOrEqual(low);
      expect(value).toBeLessThanOrEqual(high);
    };
    within(jct.drf!.mean, 1.55, 1.87);
    within(makespan.drf!.mean, 2.9, 3.8);
    within(jct['drf-dynamic']!.mean, 0.9, 0.98);
    within(makespan['drf-dynamic']!.mean, 1.16, 1.24);
    // The intervals are real (the seeds differ) and narrow enough to tell the readings apart.
    for (const ratio of [jct.drf!, makespan.drf!, jct['drf-dynamic']!, makespan['drf-dynamic']!]) {
      expect(ratio.n).toBe(20);
      within(ratio.ci95!, 0.005, 0.3);
    }
  }, 120_000);
});
