import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/summary.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

/** The seeds the scenario's check names (`dlsim compare … --seeds 20` from its `seed: 1`). */
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const POLICIES = ['static', 'optimus', 'dlrover'] as const;

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * A PS whose embedding outgrows its memory (seed 000): under static sizes the PS are OOM-killed and
 * relaunched bigger; the brain moves them to bigger PS before the kill. Over seeds 1-20 (the
 * sampled records' noise varies), dlrover has no OOM kill and a shorter JCT than static on every
 * seed; optimus, which sizes by speed over the whole cluster and knows nothing of memory, is
 * OOM-killed more often than static and, using the whole cluster, finishes first.
 */
describe('scenarios/validation/ps-memory-growth.yaml over seeds 1-20', () => {
  const runs = new Map<string, RunSummary[]>();

  beforeAll(async () => {
    for (const policy of POLICIES) {
      const summaries: RunSummary[] = [];
      for (const seed of SEEDS) {
        const scenario = await loadScenario('scenarios/validation/ps-memory-growth.yaml', { knownPolicies: presetNames(), policy, seed });
        summaries.push(simulate(scenario).summary);
      }
      runs.set(policy, summaries);
    }
  }, 120_000);

  it('dlrover raises PS memory before the OOM killer comes: no kill on any seed, while static is killed on every seed', () => {
    const oom = (policy: string) => runs.get(policy)!.map((s) => s.oomKills);
    console.info(`ps-memory-growth: mean OOM kills static ${mean(oom('static'))}, optimus ${mean(oom('optimus'))}, dlrover ${mean(oom('dlrover'))} over seeds 1-20`);
    expect(oom('dlrover').every((k) => k === 0)).toBe(true);
    expect(oom('static').every((k) => k >= 1)).toBe(true);
    expect(mean(oom('optimus'))).toBeGreaterThan(mean(oom('static')));
  });

  it('dlrover finishes sooner than static on every seed, and its plans include memory raises', () => {
    const jct = (policy: string) => runs.get(policy)!.map((s) => s.jctS.mean);
    const ratios = jct('dlrover').map((d, i) => d / jct('static')[i]!);
    console.info(`ps-memory-growth: JCT dlrover / static ${mean(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})`);
    expect(Math.max(...ratios)).toBeLessThan(1);
    expect(mean(ratios)).toBeGreaterThan(0.5);
    expect(runs.get('dlrover')!.every((s) => s.scalePlans >= 3)).toBe(true);
    expect(runs.get('static')!.every((s) => s.scalePlans === 0)).toBe(true);
  });
});
