import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

describe('scenarios/validation/ant-1k-daily-failure.yaml', () => {
  it('has a fault on 93% +- 3 points of its 300 days, at 0.27% per GPU-day on 1,000 GPUs', async () => {
    const scenario = await loadScenario('scenarios/validation/ant-1k-daily-failure.yaml', { knownPolicies: presetNames() });
    const { summary } = simulate(scenario);
    expect(summary.faults.daysWithFault).toBeGreaterThanOrEqual(0.9);
    expect(summary.faults.daysWithFault).toBeLessThanOrEqual(0.96);
    // 1,000 GPUs x 0.0027 per day x 300 days = 810 faults; 99.9% Poisson interval ~ 810 +- 94.
    expect(summary.faults.total).toBeGreaterThan(716);
    expect(summary.faults.total).toBeLessThan(904);
    // DLRover keeps the job going through all of them.
    expect(summary.restarts).toBeGreaterThan(0);
    expect(summary.jobs.failed).toBe(0);
  });
});
