/** workload.trace.window (a slice of the trace's time) and loadScaleBy (load scaled through arrivals or durations). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { nativeLine } from '../../src/workload/formats/native.js';
import { folderWith, rejection } from '../cli-run.js';
import { allreduceJob, batchJob } from '../helpers.js';

const CLUSTER = `cluster:
  nodes:
    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
`;

/** Six jobs, in file order, submitted at 0, 500, 100, 300, 400 and 3600 s; durations 10..60 s. */
const TRACE = [
  batchJob('a', 0, 1, 10),
  batchJob('f', 500, 1, 20),
  batchJob('b', 100, 1, 30),
  batchJob('d', 300, 1, 40),
  batchJob('e', 400, 1, 50),
  batchJob('g', 3600, 1, 60),
];

async function load(traceKeys: string, jobs = TRACE): Promise<Awaited<ReturnType<typeof loadScenario>>> {
  const text = jobs.map(nativeLine).join('\n');
  const dir = folderWith({ 'jobs.jsonl': `${text}\n`, 's.yaml': `${CLUSTER}workload:\n  trace: {format: native, files: jobs.jsonl${traceKeys}}\n` });
  return loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() });
}

/** [id, submitS, totalSteps] of each job, in submission order. */
function timesOf(scenario: Awaited<ReturnType<typeof loadScenario>>): [string, number, number][] {
  return scenario.jobs.map((job) => [job.id, job.submitS, job.totalSteps]);
}

describe('workload.trace.window', () => {
  it('keeps the jobs submitted in [from, to), their submission times shifted so the window starts at 0', async () => {
    expect(timesOf(await load(', window: {from: 100, to: 400}'))).toEqual([
      ['b', 0, 30],
      ['d', 200, 40],
    ]);
  });

  it('takes durations in the scenario syntax, and no `to` as the end of the trace', async () => {
    expect(timesOf(await load(', window: {from: 5m, to: 1h}'))).toEqual([
      ['d', 0, 40],
      ['e', 100, 50],
      ['f', 200, 20],
    ]);
    expect(timesOf(await load(', window: {from: 1h}'))).toEqual([['g', 0, 60]]);
  });

  it('is applied before limit: limit counts the jobs inside the window, in file order', async () => {
    expect(timesOf(await load(', window: {from: 100, to: 1h}, limit: 2'))).toEqual([
      ['b', 0, 30],
      ['f', 400, 20],
    ]);
  });

  it('is applied before re-timing: only the window\'s jobs are re-timed, from 0', async () => {
    expect(timesOf(await load(', window: {from: 100, to: 450}, arrivalsPerMinute: 2'))).toEqual([
      ['b', 0, 30],
      ['d', 0, 40],
      ['e', 60, 50],
    ]);
  });

  it('cuts the trace on its own clock, before timeScale and loadScale', async () => {
    expect(timesOf(await load(', window: {from: 100, to: 400}, timeScale: 2, loadScale: 4'))).toEqual([
      ['b', 0, 60],
      ['d', 100, 80],
    ]);
  });

  it('refuses from >= to at window.to, a negative bound at its key, and a window without jobs at window', async () => {
    for (const [keys, pattern] of [
      [', window: {from: 2h, to: 1h}', /s\.yaml:\d+: workload\.trace\.window\.to: to \(1h\) must be after from \(2h\)$/],
      [', window: {from: 1h, to: 1h}', /s\.yaml:\d+: workload\.trace\.window\.to: to \(1h\) must be after from \(1h\)$/],
      [', window: {from: -5, to: 1h}', /s\.yaml:\d+: workload\.trace\.window\.from: expected a duration like/],
      [', window: {from: 0, to: -1h}', /s\.yaml:\d+: workload\.trace\.window\.to: expected a positive duration like/],
      [', window: {from: 600, to: 3000}', /s\.yaml:\d+: workload\.trace\.window: no job of the trace is submitted in \[10m, 50m\)$/],
      [', window: {form: 1}', /s\.yaml:\d+: workload\.trace\.window/],
    ] as const) {
      const error = await rejection(load(keys));
      expect(error, keys).toBeInstanceOf(ConfigError);
      expect((error as Error).message, keys).toMatch(pattern);
    }
  });
});

describe('workload.trace.loadScaleBy', () => {
  it('arrivals (the default): loadScale divides submission times and keeps durations', async () => {
    const scaled = timesOf(await load(', loadScale: 2'));
    expect(scaled).toEqual(timesOf(await load(', loadScale: 2, loadScaleBy: arrivals')));
    expect(scaled.slice(0, 3)).toEqual([
      ['a', 0, 10],
      ['b', 50, 30],
      ['d', 150, 40],
    ]);
  });

  it('durations: loadScale multiplies every job\'s work (duration or steps) and keeps submission times', async () => {
    const stepped = allreduceJob('s', { submitS: 200, workers: 1, totalSteps: 1000 });
    const scenario = await load(', loadScale: 2.5, loadScaleBy: durations', [...TRACE, stepped]);
    expect(timesOf(scenario)).toEqual([
      ['a', 0, 25],
      ['b', 100, 75],
      ['s', 200, 2500],
      ['d', 300, 100],
      ['e', 400, 125],
      ['f', 500, 50],
      ['g', 3600, 150],
    ]);
  });

  it('durations combine with arrivalsPerMinute, which sets the submission times', async () => {
    expect(timesOf(await load(', loadScale: 2, loadScaleBy: durations, arrivalsPerMinute: 3')).slice(0, 4)).toEqual([
      ['a', 0, 20],
      ['b', 0, 60],
      ['d', 0, 80],
      ['e', 60, 100],
    ]);
  });

  it('refuses an unknown way at its YAML path, and a duration beyond the bounds at loadScale', async () => {
    const unknown = await rejection(load(', loadScale: 2, loadScaleBy: jobs'));
    expect((unknown as Error).message).toMatch(/s\.yaml:\d+: workload\.trace\.loadScaleBy: expected one of arrivals, durations/);
    const huge = await rejection(load(', loadScale: 1e9, loadScaleBy: durations', [batchJob('x', 0, 1, 1e6)]));
    expect(huge).toBeInstanceOf(ConfigError);
    expect((huge as Error).message).toMatch(/s\.yaml:\d+: workload\.trace\.loadScale: job x \(.*\): duration over 100 years after scaling/);
  });
});
