import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

interface WeekFigures {
  readonly runtimeRatio: number;
  readonly ettr: number;
}

/** Runtime ratio and ETTR of the week-long 1,000-GPU job under a preset, one entry per seed of SEEDS. */
async function weeks(policy: string): Promise<WeekFigures[]> {
  const figures: WeekFigures[] = [];
  for (const seed of SEEDS) {
    const scenario = await loadScenario('scenarios/validation/dlrover-ft-week.yaml', { knownPolicies: presetNames(), policy, seed });
    const { summary } = simulate(scenario);
    figures.push({ runtimeRatio: summary.runtimeRatio, ettr: summary.ettr });
  }
  return figures;
}

/** Mean figures of the first `count` weeks. */
function meanOf(figures: readonly WeekFigures[], count: number): WeekFigures {
  const first = figures.slice(0, count);
  return {
    runtimeRatio: first.reduce((sum, f) => sum + f.runtimeRatio, 0) / count,
    ettr: first.reduce((sum, f) => sum + f.ettr, 0) / count,
  };
}

/**
 * The published week (seed 001): manual 60.8% runtime / 32.9% ETTR, DLRover 83.6% / 58.9%, each to
 * be met within 8 points by `dlsim compare ... --seeds 5` (seeds 1-5). Weeks differ a lot, so 20
 * weeks also check that the stacks keep their order and that the time lost without and with DLRover
 * stays near the seed's ~30% and ~12%, which two of the scenario's parameters were read off.
 */
describe('scenarios/validation/dlrover-ft-week.yaml', () => {
  it('reproduces the seed week over seeds 1-5, and over 20 weeks the stacks keep their order and their lost time', async () => {
    const manual = await weeks('fifo');
    const torchElastic = await weeks('torch-elastic');
    const dlrover = await weeks('dlrover');

    const manual5 = meanOf(manual, 5);
    const dlrover5 = meanOf(dlrover, 5);
    expect(Math.abs(manual5.runtimeRatio - 0.608)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(manual5.ettr - 0.329)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(dlrover5.runtimeRatio - 0.836)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(dlrover5.ettr - 0.589)).toBeLessThanOrEqual(0.08);

    const manual20 = meanOf(manual, 20);
    const torchElastic20 = meanOf(torchElastic, 20);
    const dlrover20 = meanOf(dlrover, 20);
    expect(Math.abs(1 - manual20.runtimeRatio - 0.3)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(1 - dlrover20.runtimeRatio - 0.12)).toBeLessThanOrEqual(0.05);
    expect(manual20.runtimeRatio).toBeLessThan(torchElastic20.runtimeRatio);
    expect(torchElastic20.runtimeRatio).toBeLessThan(dlrover20.runtimeRatio);
    expect(manual20.ettr).toBeLessThan(torchElastic20.ettr);
    expect(torchElastic20.ettr).toBeLessThan(dlrover20.ettr);
  });
});
