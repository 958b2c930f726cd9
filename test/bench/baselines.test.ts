import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BaselineRun, diffBaselines, formatBaselines, formatChange, readBaselines } from '../../src/bench/baselines.js';

const DIR = mkdtempSync(join(tmpdir(), 'dlsim-baselines-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const RUNS: BaselineRun[] = [
  { scenario: 'scenarios/b.yaml', policy: 'fifo', seed: 10, metrics: { makespanS: 5, ettr: 0.5 } },
  { scenario: 'scenarios/a.yaml', policy: 'drf', seed: 2, metrics: { 'jctS.mean': 1.25 } },
  { scenario: 'scenarios/b.yaml', policy: 'fifo', seed: 9, metrics: { ettr: 0.25 } },
  { scenario: 'scenarios/a.yaml', policy: 'drf', seed: 1, metrics: { 'jctS.mean': 1 } },
];

describe('the baselines file', () => {
  it('is the same bytes whatever order the runs come in, sorted by scenario, preset, seed and metric, with a version', () => {
    const text = formatBaselines(RUNS);
    expect(formatBaselines([...RUNS].reverse())).toBe(text);
    const parsed = JSON.parse(text) as { version: number; scenarios: Record<string, Record<string, Record<string, Record<string, number>>>> };
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed.scenarios)).toEqual(['scenarios/a.yaml', 'scenarios/b.yaml']);
    expect(Object.keys(parsed.scenarios['scenarios/b.yaml']!.fifo!)).toEqual(['9', '10']);
    expect(Object.keys(parsed.scenarios['scenarios/b.yaml']!.fifo!['10']!)).toEqual(['ettr', 'makespanS']);
    // One metric a line, so a changed figure is a one-line diff.
    expect(text.split('\n').filter((line) => line.includes('"makespanS": 5'))).toHaveLength(1);
  });

  it('reads back what it wrote', () => {
    const file = join(DIR, 'round-trip.json');
    writeFileSync(file, formatBaselines(RUNS));
    expect(formatBaselines(readBaselines(file))).toBe(formatBaselines(RUNS));
  });

  it('reports a malformed file in one line naming the file and the line or key', () => {
    const broken = join(DIR, 'broken.json');
    writeFileSync(broken, '{\n  "version": 1,\n  "scenarios": {,\n}\n');
    expect(() => readBaselines(broken)).toThrow(new RegExp(`^${broken}:3: not valid JSON`));
    const wrongVersion = join(DIR, 'v2.json');
    writeFileSync(wrongVersion, '{"version": 2, "scenarios": {}}');
    expect(() => readBaselines(wrongVersion)).toThrow(`${wrongVersion}: "version": expected version 1`);
    const badSeed = join(DIR, 'seed.json');
    writeFileSync(badSeed, '{"version": 1, "scenarios": {"a.yaml": {"fifo": {"one": {}}}}}');
    expect(() => readBaselines(badSeed)).toThrow(`${badSeed}: "scenarios" > "a.yaml" > "fifo" > "one"`);
    expect(() => readBaselines(join(DIR, 'absent.json'))).toThrow(/absent\.json: no such file \(write it with dlsim bench --update\)/);
  });

  it('diffs metric by metric, and whole runs added or removed', () => {
    const fresh: BaselineRun[] = [
      { scenario: 'scenarios/a.yaml', policy: 'drf', seed: 1, metrics: { 'jctS.mean': 1.5, restarts: 2 } },
      { scenario: 'scenarios/a.yaml', policy: 'drf', seed: 3, metrics: { 'jctS.mean': 1 } },
    ];
    const lines = diffBaselines(RUNS.filter((run) => run.scenario === 'scenarios/a.yaml'), fresh).map(formatChange);
    expect(lines).toEqual([
      'scenarios/a.yaml  drf  seed 1  jctS.mean  1 → 1.5',
      'scenarios/a.yaml  drf  seed 1  restarts  (none) → 2',
      'scenarios/a.yaml  drf  seed 2  baseline of a run no longer made',
      'scenarios/a.yaml  drf  seed 3  new run, no baseline',
    ]);
  });
});
