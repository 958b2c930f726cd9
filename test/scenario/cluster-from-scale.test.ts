/** cluster.from with scale (each machine repeated) and sample (a seeded subset of the machines). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { MAX_NODES } from '../../src/model/limits.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { folderWith, rejection } from '../cli-run.js';

/** The project's 8-machine PAI machine list sample. */
const MACHINES = join(import.meta.dirname, '../../traces/samples/alibaba-pai-2020/pai_machine_spec_sample.csv');

const WORKLOAD = `workload:
  synthetic: {jobs: 20, arrivalsPerHour: 10, duration: {median: 1h}, gpus: {0: 1}}
`;

type Loaded = Awaited<ReturnType<typeof loadScenario>>;

async function load(fromKeys: string, seed?: number): Promise<Loaded> {
  const dir = folderWith({ 's.yaml': `cluster:\n  from: {format: alibaba-pai-2020, file: ${MACHINES}${fromKeys}}\n${WORKLOAD}` });
  return loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames(), ...(seed === undefined ? {} : { seed }) });
}

describe('cluster.from.scale', () => {
  it('repeats the whole machine list K times, copy by copy, names and racks suffixed -c<k>', async () => {
    const plain = (await load('')).cluster.nodes;
    const scaled = (await load(', scale: 3')).cluster.nodes;
    expect(plain.length).toBe(8);
    expect(scaled.length).toBe(24);
    for (let k = 0; k < 3; k++) {
      expect(scaled.slice(k * 8, (k + 1) * 8)).toEqual(plain.map((node) => ({ ...node, name: `${node.name}-c${k}`, rack: `${node.rack}-c${k}` })));
    }
    expect((await load(', scale: 1')).cluster.nodes).toEqual(plain);
  });

  it('refuses a scale that is not a whole number >= 1, or that makes more than MAX_NODES nodes, at cluster.from.scale', async () => {
    for (const [keys, pattern] of [
      [', scale: 0', /s\.yaml:\d+: cluster\.from\.scale: expected a positive integer/],
      [', scale: 1.5', /s\.yaml:\d+: cluster\.from\.scale: expected a positive integer/],
      [`, scale: ${Math.floor(MAX_NODES / 8) + 1}`, new RegExp(`s\\.yaml:\\d+: cluster\\.from\\.scale: \\d+ nodes in all: expected at most ${MAX_NODES}`)],
    ] as const) {
      const error = await rejection(load(keys));
      expect(error, keys).toBeInstanceOf(ConfigError);
      expect((error as Error).message, keys).toMatch(pattern);
    }
  });
});

describe('cluster.from.sample', () => {
  it('keeps N machines (or a share of them, rounded, at least one) in file order, the same for the same seed', async () => {
    const names = (await load('')).cluster.nodes.map((node) => node.name);
    const sampled = (await load(', sample: {nodes: 3}', 7)).cluster.nodes.map((node) => node.name);
    expect(sampled).toHaveLength(3);
    expect(sampled).toEqual(names.filter((name) => sampled.includes(name)));
    expect((await load(', sample: {nodes: 3}', 7)).cluster.nodes.map((node) => node.name)).toEqual(sampled);
    expect((await load(', sample: {share: 0.25}', 7)).cluster.nodes).toHaveLength(2);
    expect((await load(', sample: {share: 0.01}', 7)).cluster.nodes).toHaveLength(1);
    expect((await load(', sample: {share: 1}', 7)).cluster.nodes.map((node) => node.name)).toEqual(names);
  });

  it('draws every machine alike over seeds: each is kept in 3 of 8 samples (200 seeds, within 5 standard deviations)', async () => {
    const names = (await load('')).cluster.nodes.map((node) => node.name);
    const kept = new Map(names.map((name) => [name, 0]));
    const seeds = 200;
    const samples = new Set<string>();
    for (let seed = 0; seed < seeds; seed++) {
      const sample = (await load(', sample: {nodes: 3}', seed)).cluster.nodes.map((node) => node.name);
      samples.add(sample.join(','));
      for (const name of sample) kept.set(name, kept.get(name)! + 1);
    }
    const p = 3 / 8;
    const sd = Math.sqrt(seeds * p * (1 - p));
    for (const [name, count] of kept) {
      expect(count, name).toBeGreaterThan(seeds * p - 5 * sd);
      expect(count, name).toBeLessThan(seeds * p + 5 * sd);
    }
    // 56 possible samples: 200 seeds see most of them.
    expect(samples.size).toBeGreaterThan(40);
  });

  it('samples first, then scales the sample', async () => {
    const sampled = (await load(', sample: {nodes: 2}', 3)).cluster.nodes.map((node) => node.name);
    const both = (await load(', sample: {nodes: 2}, scale: 2', 3)).cluster.nodes.map((node) => node.name);
    expect(both).toEqual([...sampled.map((name) => `${name}-c0`), ...sampled.map((name) => `${name}-c1`)]);
  });

  it('leaves the workload\'s draws as they are (its own random stream)', async () => {
    const plain = await load('', 5);
    const sampled = await load(', sample: {nodes: 3}', 5);
    const drawn = (scenario: Loaded) => scenario.jobs.map(({ source: _source, ...job }) => job);
    expect(drawn(sampled)).toEqual(drawn(plain));
  });

  it('refuses a bad sample at its YAML path', async () => {
    for (const [keys, pattern] of [
      [', sample: {nodes: 9}', /s\.yaml:\d+: cluster\.from\.sample\.nodes: 9 machines asked, the list has 8$/],
      [', sample: {nodes: 0}', /s\.yaml:\d+: cluster\.from\.sample\.nodes: expected a positive integer/],
      [', sample: {share: 0}', /s\.yaml:\d+: cluster\.from\.sample\.share: expected a number in \(0, 1\]/],
      [', sample: {share: 1.5}', /s\.yaml:\d+: cluster\.from\.sample\.share: expected a number in \(0, 1\]/],
      [', sample: {nodes: 2, share: 0.5}', /s\.yaml:\d+: cluster\.from\.sample: give either nodes or share, not both$/],
      [', sample: {}', /s\.yaml:\d+: cluster\.from\.sample: give nodes or share$/],
    ] as const) {
      const error = await rejection(load(keys));
      expect(error, keys).toBeInstanceOf(ConfigError);
      expect((error as Error).message, keys).toMatch(pattern);
    }
  });
});
