import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

describe('scenarios/validation/ant-1k-daily-failure.yaml', () => {
  it('has a fault on 93% +- 3 points of its 300 days, at 0.27% per GPU-day on 1,000 GPUs (its seed 1)', async () => {
    const scenario = await loadScenario('scenarios/validation/ant-1k-daily-failure.yaml', { knownPolicies: presetNames() });
    const { summary } = simulate(scenario);
    expect(summary.faults.daysWithFault).toBeGreaterThanOrEqual(0.9);
    expect(summary.faults.daysWithFault).toBeLessThanOrEqual(0.96);
    // 1,000 GPUs x 0.0027 per day x 300 days = 810 faults; 99.9% Poisson interval ~ 810 +- 94.
    expect(summary.faults.total).toBeGreaterThan(716);
    expect(summary.faults.total).toBeLessThan(904);
    // DLRover keeps the job going through all of them: one restart per fault that stops its
    // processes, i.e. every catalog entry but the three slowdowns (pcie-width-low, Xid 92, thermal:
    // 212 of 2,700 per million GPU-days), 1,000 x 0.002488 x 300 = 746 with a 99.9% Poisson interval
    // of +-90; faults on nodes the job does not hold at the time (under repair) only lower it a little.
    expect(summary.restarts).toBeGreaterThanOrEqual(656);
    expect(summary.restarts).toBeLessThanOrEqual(836);
    expect(summary.jobs.failed).toBe(0);
  });
});
