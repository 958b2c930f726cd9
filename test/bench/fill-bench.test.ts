import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { benchFill } from '../../src/bench/fill-bench.js';
import { planScenarios } from '../../src/bench/plan.js';
import { runScenario } from '../../src/sim/run-scenario.js';
import { rejection } from '../cli-run.js';

const DIR = mkdtempSync(join(tmpdir(), 'dlsim-bench-fill-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const CLUSTER = 'cluster:\n  nodes: [{count: 3, gpus: 4, gpuType: T4, cpuCores: 32, memGiB: 256}]\n';
const JOBS = 'workload:\n  jobs:\n    - {id: a, gpus: 4, duration: 1h}\n    - {id: b, gpus: 1, gpuMilli: 500, duration: 1h}\n    - {id: c, gpus: 2, duration: 1h}\n';

/** Writes a scenario file into the test folder; returns its path. */
function scenario(name: string, text: string): string {
  const file = join(DIR, name);
  writeFileSync(file, text);
  return file;
}

describe('benchFill', () => {
  it('times one fill run of a scenario and counts the pods it tried', async () => {
    const file = scenario('fill.yaml', `${CLUSTER}${JOBS}fill: {}\n`);
    const result = await benchFill(file);
    expect(result.pods).toBe(3);
    expect(result.seconds).toBeGreaterThan(0);
    expect(Number.isFinite(result.seconds)).toBe(true);
  });

  it('refuses a scenario without a fill section, naming it', async () => {
    const file = scenario('timed.yaml', `${CLUSTER}${JOBS}`);
    const error = await rejection(benchFill(file));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${file}: not a fill scenario (it has no fill section)`);
  });
});

describe('bench plans and fill scenarios', () => {
  it('a fill scenario has no baselines: the plan skips it and says why', async () => {
    const fillFile = scenario('plan-fill.yaml', `${CLUSTER}${JOBS}fill: {}\n`);
    const timedFile = scenario('plan-timed.yaml', `${CLUSTER}${JOBS}`);
    const { plans, skipped } = await planScenarios([fillFile, timedFile], []);
    expect(plans.map((plan) => plan.file)).toEqual([timedFile]);
    expect(skipped).toEqual([{ file: fillFile, reason: 'a fill run (placement only): no baselines' }]);
  });
});

describe('runScenario', () => {
  it('refuses a fill scenario: it makes no timed run', async () => {
    const file = scenario('run-fill.yaml', `${CLUSTER}${JOBS}fill: {}\n`);
    const error = await rejection(runScenario({ file, policy: 'fifo', seed: 1, sets: [] }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${file}: a fill scenario makes no timed run (dlsim run and dlsim compare place its jobs)`);
  });
});
