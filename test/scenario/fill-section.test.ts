import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load.js';
import { fill } from '../../src/sim/fill.js';
import { rejection } from '../cli-run.js';

const OPTIONS = { knownPolicies: ['fifo', 'fifo-spread'] };
const CLUSTER = 'cluster:\n  nodes: [{count: 2, gpus: 2, gpuType: T4, cpuCores: 16, memGiB: 256}]\n';

/** A folder with a time-less pod list (pods.csv) and a scenario (scenario.yaml) with the given extra keys replaying it. */
function scenarioWithPods(extra: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-fill-'));
  writeFileSync(join(dir, 'pods.csv'), 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq2,2000,1024,2,1000\nq1,2000,1024,1,600\nq3,2000,1024,2,1000\n');
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `${CLUSTER}workload:\n  trace: {format: alibaba-gpu-2023, files: pods.csv}\n${extra}`);
  return file;
}

describe('scenario fill section', () => {
  it('makes a fill run with its defaults, keeping the list order', async () => {
    const scenario = await loadScenario(scenarioWithPods('fill: {}\n'), OPTIONS);
    expect(scenario.fill).toEqual({ order: 'submit', coverage: 1 });
    expect(scenario.jobs.map((j) => j.id)).toEqual(['q2', 'q1', 'q3']);
    const summary = fill(scenario);
    // pack: q2 fills one node, q1 takes a GPU of the other, q3 (two whole GPUs) finds no node.
    expect(summary.firstFailure).toEqual({ position: 3, jobId: 'q3' });
    expect(summary.placement).toBe('pack');
  });

  it('reads order and coverage, and the placement of --policy', async () => {
    const scenario = await loadScenario(scenarioWithPods('fill: {order: shuffle, coverage: 0.5}\n'), { ...OPTIONS, policy: 'fifo-spread' });
    expect(scenario.fill).toEqual({ order: 'shuffle', coverage: 0.5 });
    expect(fill(scenario).placement).toBe('spread');
  });

  it('refuses a time-less list in a timed run, naming the file, the line and the trace', async () => {
    const file = scenarioWithPods('');
    const error = await rejection(loadScenario(file, OPTIONS));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/scenario\.yaml:\d+: workload\.trace: .*pods\.csv:2: a job list without times replays only in a fill run \(add a fill section\)$/);
  });

  it.each([
    ['faults: {catalog: ant-2023}\n', /: faults: a fill run places jobs once, without time: faults do not apply/],
    ['sim: {horizon: 1d}\n', /: sim\.horizon: a fill run places jobs once, without time: it has no horizon/],
    ['expect: [{metric: ettr, policy: fifo, target: 1, tolerance: 0.1, seeds: 2, source: here}]\n', /: expect: a fill run has no timed summary for the bench to hold figures of/],
    ['fill: {order: random}\n', /: fill\.order: expected submit or shuffle/],
    ['fill: {coverage: 0}\n', /: fill\.coverage: expected a number above 0, at most 1/],
    ['fill: {coverage: 1.5}\n', /: fill\.coverage: expected a number above 0, at most 1/],
    ['fill: {order: submit, cover: 1}\n', /: fill: unknown key "cover"/],
  ])('refuses %j with a one-line error at its key', async (extra, message) => {
    const withFill = extra.startsWith('fill') ? extra : `fill: {}\n${extra}`;
    const error = await rejection(loadScenario(scenarioWithPods(withFill), OPTIONS));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});
