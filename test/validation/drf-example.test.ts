import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { Simulation } from '../../src/sim/simulation.js';

const FILE = 'scenarios/validation/drf-example.yaml';
/** Inline jobs: every seed must give the published allocation. */
const SEEDS = [1, 2, 3, 4, 5];

async function load(seed: number, sets: string[] = []) {
  return loadScenario(FILE, { knownPolicies: presetNames(), seed, sets });
}

describe('scenarios/validation/drf-example.yaml', () => {
  it('is the DRF paper example with users A and B of equal weight: A gets 3 tasks, B 2, on every seed', async () => {
    for (const seed of SEEDS) {
      const scenario = await load(seed);
      expect(scenario.policy).toBe('drf');
      expect(scenario.userWeights).toEqual({ A: 1, B: 1 });
      expect(scenario.jobs.map((j) => j.user)).toEqual(['A', 'B']);
      expect(scenario.cluster.nodes).toEqual([expect.objectContaining({ cpuMilli: 9000, memMiB: 18 * 1024, gpus: 0 })]);
      // Stop right after the first pass at t=0 (both jobs run for hours).
      const sim = new Simulation({ ...scenario, horizonS: 60 }, { checkInvariants: true });
      const result = sim.run();
      expect(result.jobs.map((j) => [j.spec.id, j.workers])).toEqual([
        ['A', 3],
        ['B', 2],
      ]);
      // Both dominant shares are 2/3: A's memory 12/18 GiB, B's CPU 6/9 cores; all 9 cores are used.
      expect(sim.cluster.freeCpuMilli(0)).toBe(0);
      expect(sim.cluster.freeMemMiB(0)).toBe(4 * 1024);
    }
  });

  it('ends with both jobs together at 17160 s (only true at 3 and 2 workers)', async () => {
    const result = new Simulation(await load(1), { checkInvariants: true }).run();
    expect(result.jobs.map((j) => j.endS)).toEqual([17160, 17160]);
    expect(result.summary.cpuAllocationRate).toBe(1);
    expect(result.summary.makespanS).toBe(17160);
  });

  it('weights count: with A weighing 2, A gets 4 tasks and B 1', async () => {
    const sim = new Simulation({ ...(await load(1, ['users.A.weight=2'])), horizonS: 60 }, { checkInvariants: true });
    expect(sim.run().jobs.map((j) => [j.spec.id, j.workers])).toEqual([
      ['A', 4],
      ['B', 1],
    ]);
  });
});
