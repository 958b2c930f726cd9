/** A trace's arrivals re-timed to N a minute, as the Alibaba PAI simulator replays a job list. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { nativeLine } from '../../src/workload/formats/native.js';
import { folderWith, rejection } from '../cli-run.js';
import { batchJob } from '../helpers.js';

const CLUSTER = `cluster:
  nodes:
    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
`;

/** Five jobs submitted out of order, two of them at the same time. */
const TRACE = [batchJob('e', 300, 1, 10), batchJob('b', 0, 1, 20), batchJob('a', 0, 1, 30), batchJob('d', 100, 1, 40), batchJob('c', 50, 1, 50)].map(nativeLine).join('\n');

async function load(traceKeys: string): Promise<Awaited<ReturnType<typeof loadScenario>>> {
  const dir = folderWith({ 'jobs.jsonl': `${TRACE}\n`, 's.yaml': `${CLUSTER}workload:\n  trace: {format: native, files: jobs.jsonl${traceKeys}}\n` });
  return loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() });
}

describe('workload.trace.arrivalsPerMinute', () => {
  it('submits the jobs in (submit time, id) order, N a minute, keeping their work', async () => {
    const scenario = await load(', arrivalsPerMinute: 2');
    expect(scenario.jobs.map((job) => [job.id, job.submitS, job.totalSteps])).toEqual([
      ['a', 0, 30],
      ['b', 0, 20],
      ['c', 60, 50],
      ['d', 60, 40],
      ['e', 120, 10],
    ]);
  });

  it('leaves the trace\'s own times without it', async () => {
    const scenario = await load('');
    expect(scenario.jobs.map((job) => job.submitS)).toEqual([0, 0, 50, 100, 300]);
  });

  it('cannot be combined with loadScale', async () => {
    const error = await rejection(load(', arrivalsPerMinute: 2, loadScale: 2'));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/s\.yaml:\d+: workload\.trace\.arrivalsPerMinute: arrivalsPerMinute sets every submission time: it cannot be combined with loadScale/);
  });
});

describe('workload.trace.arrivalsPerMinute with numeric ids', () => {
  it('orders ties by the ids\' numbers when ids are whole numbers, as the simulator (ids read as ints) does', async () => {
    const jobs = [batchJob('10', 0, 1, 10), batchJob('9', 0, 1, 20), batchJob('100', 0, 1, 30), batchJob('x', 0, 1, 40)];
    const dir = folderWith({ 'jobs.jsonl': `${jobs.map(nativeLine).join('\n')}\n`, 's.yaml': `${CLUSTER}workload:\n  trace: {format: native, files: jobs.jsonl, arrivalsPerMinute: 1}\n` });
    const scenario = await loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() });
    expect(scenario.jobs.map((job) => [job.id, job.submitS])).toEqual([
      ['9', 0],
      ['10', 60],
      ['100', 120],
      ['x', 180],
    ]);
  });
});
