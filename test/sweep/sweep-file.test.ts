import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { planSweep } from '../../src/sweep/plan.js';
import { readSweepFile } from '../../src/sweep/sweep-file.js';
import { ROOT, folderWith, rejection } from '../cli-run.js';

const TINY = join(ROOT, 'scenarios/sweeps/tiny.yaml');

/** The message planning a sweep file of `text` fails with (the file is named s.yaml in a scratch folder). */
async function problem(text: string): Promise<string> {
  const dir = folderWith({ 's.yaml': text });
  const error = await rejection(planSweep(join(dir, 's.yaml')));
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).not.toContain('\n');
  return message.replace(`${dir}/`, '');
}

describe('sweep file', () => {
  it('reads the scenario relative to the sweep file, the seeds and the parameters in file order', () => {
    const dir = folderWith({ 's.yaml': 'scenario: ../x/tiny.yaml\nseeds: {from: 4, count: 2}\nparameters:\n  b.c: [1, "2h", true]\n  a: {from: 1, to: 2, step: 0.5}\n' });
    const sweep = readSweepFile(join(dir, 's.yaml'));
    expect(sweep.scenarioFile).toBe(join(dir, '../x/tiny.yaml'));
    expect(sweep.seeds).toEqual({ from: 4, count: 2 });
    expect(sweep.parameters).toEqual([
      { path: 'b.c', values: [1, '2h', true] },
      { path: 'a', values: [1, 1.5, 2] },
    ]);
  });

  it('plans the grid of the scenario: a seed count starts at the scenario seed, policies default to its own', async () => {
    const dir = folderWith({ 's.yaml': `scenario: ${TINY}\nseeds: 2\nparameters:\n  faults.scale: {values: [0, 1]}\n` });
    const plan = await planSweep(join(dir, 's.yaml'));
    expect(plan.grid).toEqual({ policies: ['fifo'], seeds: [1, 2], parameters: [{ path: 'faults.scale', values: [0, 1] }] });
    expect(plan.record).toMatchObject({ format: 'dlsim-sweep/1', name: 's', cells: 4, shard: null, scenarioFile: { name: 'tiny.yaml' } });
    expect(plan.record.scenarioFile.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the file, line and YAML path of each kind of problem, in one line', async () => {
    const head = `scenario: ${TINY}\n`;
    expect(await problem(`${head}parameters:\n  cluster.foo: [1, 2]\n`)).toBe('s.yaml:3: parameters."cluster.foo": value 1: cluster: unknown key "foo"');
    expect(await problem(`${head}parameters:\n  cluster.nodes[0].count: [4, 0]\n`)).toBe(
      's.yaml:3: parameters."cluster.nodes[0].count": value 0: cluster.nodes[0].count: expected a positive integer up to 100000',
    );
    expect(await problem(`${head}parameters:\n  cluster.nodes[2].count: [4]\n`)).toBe('s.yaml:3: parameters."cluster.nodes[2].count": value 4: index 2 is out of range: cluster.nodes has 1 item(s)');
    expect(await problem(`${head}parameters:\n  a:\n    from: 4\n    to: 2\n`)).toBe('s.yaml:5: parameters.a.to: to (2) is below from (4)');
    expect(await problem(`${head}parameters:\n  a: {from: 1, to: 1e9}\n`)).toBe('s.yaml:3: parameters.a.step: the range has 1000000000 values: expected at most 100000');
    expect(await problem(`${head}parameters:\n  a: [1, 2, 1]\n`)).toBe('s.yaml:3: parameters.a[2]: the value 1 is given twice (also [0])');
    expect(await problem(`${head}parameters:\n  a: 3\n`)).toBe('s.yaml:3: parameters.a: expected a list of values, {values: [...]} or a number range {from, to, step}');
    expect(await problem(`${head}parameters:\n  a: {from: 1, to: 2, stride: 1}\n`)).toBe('s.yaml:3: parameters.a.stride: unknown key "stride"');
    expect(await problem(`${head}parameters:\n  seed: [1, 2]\n`)).toBe("s.yaml:3: parameters.seed: seed cannot be a parameter: seeds are swept by the sweep file's seeds");
    expect(await problem(`${head}parameters:\n  "a..b": [1]\n`)).toBe('s.yaml:3: parameters."a..b": not a --set path: expected a dotted path like cluster.nodes[0].count');
    expect(await problem(`${head}policies: [fifo, nope]\n`)).toMatch(/^s\.yaml:2: policies\[1\]: unknown policy "nope"; known policies: fifo, /);
    expect(await problem(`${head}policies: [fifo, drf, fifo]\n`)).toBe('s.yaml:2: policies[2]: the policy "fifo" is named twice (also [0])');
    expect(await problem(`${head}seeds: [3, 4, 3]\n`)).toBe('s.yaml:2: seeds[2]: the seed 3 is given twice');
    expect(await problem(`${head}seeds: 0\n`)).toBe('s.yaml:2: seeds: expected a positive integer');
    expect(await problem(`${head}seed: 1\n`)).toBe('s.yaml:2: seed: unknown key "seed"');
    expect(await problem('scenario: missing.yaml\n')).toMatch(/^s\.yaml:1: scenario: .*missing\.yaml: no such file$/);
    expect(await problem('policies: [fifo]\n')).toBe('s.yaml: scenario: required');
    expect(await problem('')).toBe('s.yaml: the sweep file is empty: expected a mapping with scenario, policies, seeds, parameters');
    expect(await problem('scenario: [a\n')).toMatch(/^s\.yaml:\d+: /);
    expect(await problem(`${head}seeds: {from: 1, count: 60000}\npolicies: [fifo, drf]\n`)).toBe('s.yaml: the grid has 120000 cells (2 policies x 60000 seeds): at most 100000');
  });

  it('refuses a fill scenario, which makes no timed run', async () => {
    const fill = join(ROOT, 'scenarios/alibaba-gpu-2023-fill.yaml');
    expect(await problem(`scenario: ${fill}\n`)).toMatch(/^s\.yaml:1: scenario: .*alibaba-gpu-2023-fill\.yaml is a fill scenario/);
  });
});
