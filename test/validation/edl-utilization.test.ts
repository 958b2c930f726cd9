import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

const FILE = 'scenarios/validation/edl-utilization.yaml';
/** The seeds of the header's compare command (`--seeds 20` from its `seed: 1`); the jobs are drawn per seed. */
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

function within(value: number, low: number, high: number): void {
  expect(value).toBeGreaterThanOrEqual(low);
  expect(value).toBeLessThanOrEqual(high);
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The header's figures over seeds 1-20 (mean ± 95% CI): edl 89.3% ± 2.6 of the GPUs allocated with no
 * queueing, rigid fifo 54.3% ± 3.8 with ~96 s mean waits; edl's JCT 0.65x fifo's on the same seed.
 * Two-sided bands of about twice each interval, so that a drift either way fails.
 */
describe('scenarios/validation/edl-utilization.yaml over seeds 1-20', () => {
  const edl: RunSummary[] = [];
  const fifo: RunSummary[] = [];

  beforeAll(async () => {
    for (const seed of SEEDS) {
      const run = async (policy: string) => simulate(await loadScenario(FILE, { knownPolicies: presetNames(), policy, seed })).summary;
      edl.push(await run('edl'));
      fifo.push(await run('fifo'));
    }
  }, 120_000);

  it('every job completes under both', () => {
    for (const summary of [...edl, ...fifo]) expect(summary.jobs.completed).toBe(80);
  });

  it('edl keeps ~89% of the GPUs allocated, rigid fifo ~54%', () => {
    within(mean(edl.map((s) => s.gpuAllocationRate)), 0.86, 0.925);
    within(mean(fifo.map((s) => s.gpuAllocationRate)), 0.49, 0.6);
  });

  it('edl starts every job at once; fifo makes jobs wait', () => {
    within(mean(edl.map((s) => s.queueDelayS.mean)), 0, 60);
    within(mean(fifo.map((s) => s.queueDelayS.mean)), 20, 250);
  });

  it("edl's mean JCT is ~0.65x fifo's on the same seed", () => {
    within(mean(edl.map((s, i) => s.jctS.mean / fifo[i]!.jctS.mean)), 0.57, 0.73);
  });
});
