import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogFile } from '../../src/faults/catalog.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { casesRun, expectSuccessOrAcceptedError, fuzz, fuzzSeed, Scratch } from './harness.js';
import { cellText, fileMutation } from './mutate.js';
import { CATALOGS } from './scenario-seeds.js';
import { applyYamlMutation, NASTY_VALUES, yamlMutation } from './yaml-mutate.js';

/** Cases of mutated catalog files. */
const FILE_RUNS = 1200;
/** Cases of a scenario with a catalog file, random overrides and scale. */
const OVERRIDE_RUNS = 600;

const scratch = new Scratch();
const catalogs = readdirSync(CATALOGS).filter((name) => name.endsWith('.yaml')).sort().map((name) => ({ name, text: readFileSync(join(CATALOGS, name), 'utf8') }));
fuzzSeed();

afterAll(() => {
  scratch.dispose();
  console.info('fuzz cases (fault catalogs):', [...casesRun].map(([name, count]) => `${name} ${count}`).join(', '));
});

/** Fault type names of the shipped catalogs (override keys that exist), and some that do not. */
const typeNames = [...new Set(catalogs.flatMap((catalog) => [...catalog.text.matchAll(/^\s+- name: (\S+)/gm)].map((match) => match[1]!)))];
const FIELDS = ['ratePerGpuDay', 'ratePerNodeDay', 'scope', 'effect', 'foundByNodeCheck', 'repair', 'category', 'exit', 'xid', 'name', 'x'];

describe('fuzzing the fault catalog loader', () => {
  it('mutated catalog YAML loads, or fails with a ConfigError naming the file (and line and YAML path)', async () => {
    const cases = fc.record({ catalog: fc.nat(), mutation: yamlMutation(fileMutation('csv')) });
    await fuzz('catalog yaml', 11, FILE_RUNS, cases, async ({ catalog, mutation }) => {
      const dir = scratch.caseDir();
      try {
        const seed = catalogs[catalog % catalogs.length]!;
        const file = join(dir, seed.name);
        writeFileSync(file, applyYamlMutation(seed.text, mutation));
        await expectSuccessOrAcceptedError(() => loadCatalogFile(file), { paths: [dir] });
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('catalog yaml')).toBe(FILE_RUNS);
  });

  it('random faults.overrides and scale over a catalog file load, or fail with a ConfigError naming the scenario or the --set', async () => {
    const override = fc.record({
      type: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...typeNames) }, { weight: 1, arbitrary: cellText }),
      field: fc.constantFrom(...FIELDS),
      value: fc.oneof(fc.constantFrom(...NASTY_VALUES), fc.jsonValue({ maxDepth: 2 })),
    });
    const cases = fc.record({
      catalog: fc.nat(),
      overrides: fc.array(override, { maxLength: 4 }),
      scale: fc.constantFrom(...NASTY_VALUES.slice(0, 20), 1, 2),
      asSets: fc.boolean(),
    });
    await fuzz('catalog overrides', 12, OVERRIDE_RUNS, cases, async ({ catalog, overrides, scale, asSets }) => {
      const dir = scratch.caseDir();
      try {
        const seed = catalogs[catalog % catalogs.length]!;
        writeFileSync(join(dir, seed.name), seed.text);
        const doc = {
          cluster: { nodes: [{ count: 4, gpus: 8, gpuType: 'A100', cpuCores: 64, memGiB: 512 }] },
          workload: { jobs: [{ id: 'a', gpus: 8, duration: '1h' }] },
          faults: { catalog: seed.name, scale: asSets ? 1 : scale, overrides: Object.create(null) as Record<string, Record<string, unknown>> },
        };
        const sets: string[] = [];
        for (const { type, field, value } of overrides) {
          if (asSets) sets.push(`faults.overrides.${type}.${field}=${JSON.stringify(value) ?? ''}`);
          else {
            if (!Object.hasOwn(doc.faults.overrides, type)) doc.faults.overrides[type] = Object.create(null) as Record<string, unknown>;
            doc.faults.overrides[type]![field] = value;
          }
        }
        if (asSets) sets.push(`faults.scale=${JSON.stringify(scale) ?? ''}`);
        const file = join(dir, 's.yaml');
        writeFileSync(file, JSON.stringify(doc));
        await expectSuccessOrAcceptedError(() => loadScenario(file, { knownPolicies: presetNames(), sets }), { paths: [dir], options: true });
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('catalog overrides')).toBe(OVERRIDE_RUNS);
  });
});
