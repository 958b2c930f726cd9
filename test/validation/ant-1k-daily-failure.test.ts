import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

/** The seeds the scenario's check names (`dlsim compare … --seeds 20` from its `seed: 1`). */
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The seed's "a 1,000-GPU job fails on 93% of days" (1 - (1 - 0.0027)^1000) over seeds 1-20 of the
 * 300-day scenario: the mean within 2 points (the 95% interval over 20 seeds is +-0.7), and the
 * fault and restart counts the catalog's rates imply, two-sided.
 */
describe('scenarios/validation/ant-1k-daily-failure.yaml over seeds 1-20', () => {
  const runs: RunSummary[] = [];

  beforeAll(async () => {
    for (const seed of SEEDS) {
      const scenario = await loadScenario('scenarios/validation/ant-1k-daily-failure.yaml', { knownPolicies: presetNames(), seed });
      runs.push(simulate(scenario).summary);
    }
  }, 120_000);

  it('has a fault on 93% +- 2 points of the job\'s days, at 0.27% per GPU-day on 1,000 GPUs', () => {
    const days = mean(runs.map((s) => s.faults.daysWithFault));
    console.info(`ant-1k-daily-failure: days with a fault ${(days * 100).toFixed(1)}% over seeds 1-20 (published 93%)`);
    expect(days).toBeGreaterThanOrEqual(0.91);
    expect(days).toBeLessThanOrEqual(0.95);
  });

  it('meets the faults the catalog expects and recovers from every one', () => {
    // 1,000 GPUs x 0.0027 per day x 300 days = 810 faults a run; over 20 runs the mean's Poisson sd is ~6.4.
    const faults = mean(runs.map((s) => s.faults.total));
    expect(faults).toBeGreaterThan(810 - 26);
    expect(faults).toBeLessThan(810 + 26);
    // One restart per fault that stops the processes: every catalog entry but the three slowdowns
    // (pcie-width-low, Xid 92, thermal: 212 of 2,700 per million GPU-days), 1,000 x 0.002488 x 300 =
    // 746 a run; faults on nodes the job does not hold at the time (under repair) lower it a little.
    const restarts = mean(runs.map((s) => s.restarts));
    expect(restarts).toBeGreaterThan(746 - 45);
    expect(restarts).toBeLessThan(746 + 25);
    for (const s of runs) expect(s.jobs.failed).toBe(0);
  });
});
