import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

const DIR = mkdtempSync(join(tmpdir(), 'dlsim-bench-settings-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const BASE = `name: t
policy: drf
cluster:
  nodes:
    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}
workload:
  jobs:
    - {id: a, gpus: 1, duration: 1h}
`;

async function load(extra: string) {
  const file = join(DIR, `s${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, BASE + extra);
  return { file, load: () => loadScenario(file, { knownPolicies: presetNames() }) };
}

describe('compare, baselineSeeds and expect in a scenario', () => {
  it('default to the scenario policy on one seed with no figure, and do not change the run', async () => {
    const { load: plain } = await load('');
    expect((await plain()).bench).toEqual({ compare: ['drf'], baselineSeeds: 1, expect: [] });
    const { load: full } = await load(
      'compare: [fifo, drf]\nbaselineSeeds: 3\nexpect:\n  - {metric: pairedRatio.jctS.mean, policy: drf, baseline: fifo, target: 1, tolerance: 0.1, seeds: 5, source: here, gap: {model: 1.5, drift: 0.1}}\n',
    );
    const scenario = await full();
    expect(scenario.bench!.compare).toEqual(['fifo', 'drf']);
    expect(scenario.bench!.baselineSeeds).toBe(3);
    expect(scenario.bench!.expect).toEqual([
      expect.objectContaining({ metric: 'pairedRatio.jctS.mean', policy: 'drf', baseline: 'fifo', seeds: 5, gap: { model: 1.5, drift: 0.1 }, where: expect.stringMatching(/:12: expect\[0\]$/) }),
    ]);
    expect(simulate(scenario).summary).toEqual(simulate(await plain()).summary);
  });

  it.each([
    ['compare: [fifo, nope]\n', /:9: compare\[1\]: unknown policy "nope"; known policies: fifo/],
    ['compare: [fifo, fifo]\n', /:9: compare\[1\]: "fifo" is named twice/],
    ['baselineSeeds: 0\n', /:9: baselineSeeds: expected a positive integer up to 1000/],
    ['expect:\n  - {metric: ettr, policy: drf, target: 1, tolerance: 0.1, seeds: 3}\n', /expect\[0\]\.source: required/],
    ['expect:\n  - {metric: ettr, policy: dr, target: 1, tolerance: 0.1, seeds: 3, source: s}\n', /:10: expect\[0\]\.policy: unknown policy "dr"/],
    ['expect:\n  - {metric: pairedRatio.ettr, policy: drf, target: 1, tolerance: 0.1, seeds: 3, source: s}\n', /expect\[0\]: a pairedRatio\. metric needs baseline/],
    ['expect:\n  - {metric: ettr, policy: drf, baseline: fifo, target: 1, tolerance: 0.1, seeds: 3, source: s}\n', /expect\[0\]\.baseline: baseline is only for pairedRatio\. metrics/],
    ['expect:\n  - {metric: ettr, policy: drf, target: 1, tolerance: 0.1, seeds: 3, source: s, gap: {model: 1.05, drift: 0.01}}\n', /expect\[0\]\.gap\.model: 1\.05 is within tolerance of the target 1: not a gap/],
    ['expect:\n  - {metric: ettr, policy: drf, target: 1, tolerance: -1, seeds: 3, source: s}\n', /expect\[0\]\.tolerance: expected a non-negative number/],
  ])('reject %j with a located one-line error', async (extra, message) => {
    const { load: bad } = await load(extra);
    await expect(bad()).rejects.toThrow(message);
  });
});
