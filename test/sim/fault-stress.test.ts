import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

/**
 * Heavy faults on the quickstart workload (every job kind, elastic ones included) under each
 * recovery stack and a few schedulers, with the cluster's accounting re-checked after every instant:
 * no over-allocation, no task on a down node, whatever the faults and recoveries do.
 */
describe.each(['fifo', 'dlrover', 'torch-elastic', 'edl', 'tiresias', 'optimus'])('policy %s under heavy faults', (policy) => {
  it.each([1, 2, 3])('keeps every invariant, and no job fails for good (seed %i)', async (seed) => {
    const scenario = await loadScenario('scenarios/quickstart.yaml', {
      knownPolicies: presetNames(),
      policy,
      seed,
      sets: ['faults.catalog=ant-2023', 'faults.scale=300', 'sim.horizon=3d'],
    });
    const result = simulate(scenario, { checkInvariants: true });
    expect(result.summary.faults.total).toBeGreaterThan(0);
    // Every preset here recovers: no job fails for good, except where DLRover gives up by design
    // (a fatal exit of a job that is not all-reduce).
    const failures = result.timeline.filter((r) => r.event === 'job-failed').map((r) => r.detail);
    expect(failures.length).toBe(result.summary.jobs.failed);
    if (policy !== 'dlrover') expect(failures).toEqual([]);
    for (const detail of failures) expect(detail).toMatch(/^recovery dlrover: fatal exit/);
    expect(result.summary.jobs.completed).toBeGreaterThan(0);
  });
});

/** The same heavy faults with pods short of memory as well: OOM kills on top of every recovery. */
describe.each(['fifo', 'dlrover', 'torch-elastic', 'edl', 'tiresias', 'optimus'])('policy %s under faults and OOM kills', (policy) => {
  it('keeps every invariant; only dlrover gives up on a job (fatal exit, 64 GiB OOM or exhausted relaunches)', async () => {
    const scenario = await loadScenario('scenarios/quickstart.yaml', {
      knownPolicies: presetNames(),
      policy,
      seed: 1,
      sets: [
        'faults.catalog=ant-2023',
        'faults.scale=300',
        'sim.horizon=3d',
        'workload.jobs[4].ps.memUseGiB=80',
        'workload.jobs[4].memUseGiB=40',
        'workload.jobs[2].memUseGiB=100',
      ],
    });
    const result = simulate(scenario, { checkInvariants: true });
    expect(result.timeline.filter((r) => r.event === 'job-oom').length).toBeGreaterThan(0);
    const failures = result.timeline.filter((r) => r.event === 'job-failed').map((r) => r.detail);
    expect(failures.length).toBe(result.summary.jobs.failed);
    if (policy !== 'dlrover') expect(failures).toEqual([]);
    for (const detail of failures) expect(detail).toMatch(/^recovery dlrover: (fatal exit|OOM with 64 GiB|relaunches of)/);
  });
});
