import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readBaselines } from '../../src/bench/baselines.js';
import { baselineRunsOf, planScenarios, scenarioFiles } from '../../src/bench/plan.js';

const FILES = scenarioFiles(['scenarios', 'scenarios/validation']);

describe('results/baselines.json', () => {
  it('every shipped scenario names its presets and baseline seeds', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
    for (const file of FILES) {
      const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      expect(doc, file).toHaveProperty('compare');
      expect(doc, file).toHaveProperty('baselineSeeds');
    }
  });

  it('holds exactly the presets x seeds each scenario names (scenarios whose data is absent: say so)', async () => {
    const recorded = readBaselines('results/baselines.json');
    const { plans, skipped } = await planScenarios(FILES, []);
    for (const skip of skipped) console.warn(`not compared with results/baselines.json: ${skip.file}: ${skip.reason}`);
    expect(plans.length + skipped.length).toBe(FILES.length);
    for (const plan of plans) {
      const wanted = baselineRunsOf(plan).map(({ policy, seed }) => `${policy} ${seed}`).sort();
      const have = recorded.filter((run) => run.scenario === plan.file).map((run) => `${run.policy} ${run.seed}`).sort();
      expect(have, plan.file).toEqual(wanted);
    }
    // No baselines of a scenario that is not shipped.
    expect([...new Set(recorded.map((run) => run.scenario))].every((file) => FILES.includes(file))).toBe(true);
  }, 30_000);
});
