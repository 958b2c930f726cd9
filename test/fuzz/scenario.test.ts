import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { casesRun, expectSuccessOrAcceptedError, fuzz, fuzzSeed, Scratch } from './harness.js';
import { fileMutation } from './mutate.js';
import { CATALOGS, SAMPLES, scenarioSeeds } from './scenario-seeds.js';
import { setAssignment } from './set-paths.js';
import { applyYamlMutation, yamlMutation } from './yaml-mutate.js';

/** Cases of mutated scenario files. */
const YAML_RUNS = 1500;
/** Cases of random `--set` assignments (with --policy and --seed). */
const SET_RUNS = 1500;

const scratch = new Scratch();
const seeds = scenarioSeeds();
fuzzSeed();

afterAll(() => {
  scratch.dispose();
  console.info('fuzz cases (scenarios):', [...casesRun].map(([name, count]) => `${name} ${count}`).join(', '));
});

/**
 * Where a case's input files may be: its folder, the samples and catalogs, and the traces folder the
 * shipped scenarios name (`../../shared/traces/…`), as seen from the case's folder (a trace there is
 * an input the scenario named, read when it exists on the machine).
 */
function inputPaths(dir: string): string[] {
  return [dir, SAMPLES, CATALOGS, resolve(dir, '../../shared')];
}

/** Writes a seed scenario (and the files beside it) into `dir`; returns the scenario's path. */
function writeSeed(dir: string, index: number, text?: Buffer): string {
  const seed = seeds[index % seeds.length]!;
  const file = join(dir, seed.name);
  writeFileSync(file, text ?? seed.text);
  for (const [name, contents] of Object.entries(seed.beside ?? {})) writeFileSync(join(dir, name), contents);
  return file;
}

describe('fuzzing the scenario loader', () => {
  it('mutated scenario YAML loads, or fails with a ConfigError naming the file (and line or YAML path)', async () => {
    const cases = fc.record({ seed: fc.nat(), mutation: yamlMutation(fileMutation('csv')) });
    await fuzz('scenario yaml', 1, YAML_RUNS, cases, async ({ seed, mutation }) => {
      const dir = scratch.caseDir();
      try {
        const text = applyYamlMutation(seeds[seed % seeds.length]!.text, mutation);
        const file = writeSeed(dir, seed, text);
        await expectSuccessOrAcceptedError(() => loadScenario(file, { knownPolicies: presetNames() }), { paths: inputPaths(dir) });
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('scenario yaml')).toBe(YAML_RUNS);
  });

  it('random --set assignments, --policy and --seed load, or fail with a ConfigError naming the option or the file', async () => {
    const policy = fc.option(fc.constantFrom(...presetNames(), '', 'FIFO', 'nope', '__proto__'), { nil: undefined, freq: 3 });
    const seedOption = fc.option(fc.constantFrom(0, 1, 2 ** 53, -1, 1.5, Number.NaN, Infinity), { nil: undefined, freq: 3 });
    const cases = fc.record({ seed: fc.nat(), sets: fc.array(setAssignment, { minLength: 1, maxLength: 4 }), policy, seedOption });
    await fuzz('scenario --set', 2, SET_RUNS, cases, async ({ seed, sets, policy: chosen, seedOption: seedValue }) => {
      const dir = scratch.caseDir();
      try {
        const file = writeSeed(dir, seed);
        const options = { sets, knownPolicies: presetNames(), ...(chosen === undefined ? {} : { policy: chosen }), ...(seedValue === undefined ? {} : { seed: seedValue }) };
        await expectSuccessOrAcceptedError(() => loadScenario(file, options), { paths: inputPaths(dir), options: true });
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('scenario --set')).toBe(SET_RUNS);
  });
});
