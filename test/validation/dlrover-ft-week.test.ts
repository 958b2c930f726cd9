import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

/** Mean runtime ratio and ETTR of the week-long 1,000-GPU job over SEEDS under a preset. */
async function weekMeans(policy: string): Promise<{ runtimeRatio: number; ettr: number }> {
  let runtimeRatio = 0;
  let ettr = 0;
  for (const seed of SEEDS) {
    const scenario = await loadScenario('scenarios/validation/dlrover-ft-week.yaml', { knownPolicies: presetNames(), policy, seed });
    const { summary } = simulate(scenario);
    runtimeRatio += summary.runtimeRatio / SEEDS.length;
    ettr += summary.ettr / SEEDS.length;
  }
  return { runtimeRatio, ettr };
}

/**
 * The published week (seed 001): manual 60.8% runtime / 32.9% ETTR, DLRover 83.6% / 58.9%, each
 * to be met within 8 points. Weeks differ a lot (a hidden GPU fault can idle a manually recovered
 * job until the next daily SRE round), so the means are over 20 weeks. DLRover's runtime ratio is
 * the one figure the seed's recovery table cannot reach (see the scenario's header): it is only
 * checked to lead manual recovery by a wide margin.
 */
describe('scenarios/validation/dlrover-ft-week.yaml', () => {
  it('reproduces the seed week: manual within range on both figures, DLRover on ETTR, and the order of the stacks', async () => {
    const manual = await weekMeans('fifo');
    const torchElastic = await weekMeans('torch-elastic');
    const dlrover = await weekMeans('dlrover');
    expect(Math.abs(manual.runtimeRatio - 0.608)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(manual.ettr - 0.329)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(dlrover.ettr - 0.589)).toBeLessThanOrEqual(0.08);
    expect(dlrover.runtimeRatio - manual.runtimeRatio).toBeGreaterThan(0.2);
    expect(manual.runtimeRatio).toBeLessThan(torchElastic.runtimeRatio);
    expect(torchElastic.runtimeRatio).toBeLessThan(dlrover.runtimeRatio);
    expect(manual.ettr).toBeLessThan(torchElastic.ettr);
    expect(torchElastic.ettr).toBeLessThan(dlrover.ettr);
  });
});
