import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load.js';

const dir = mkdtempSync(join(tmpdir(), 'dlsim-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;

/** Writes a file into the temp folder and returns its path. */
function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The one-line ConfigError loading the scenario text raises (fails the test when it loads). */
async function loadError(text: string, sets: string[] = []): Promise<string> {
  const file = write(`s-${++count}.yaml`, text);
  try {
    await loadScenario(file, { knownPolicies: ['fifo'], sets });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message.startsWith(sets.length > 0 ? '--set ' : file)).toBe(true);
    return message;
  }
  throw new Error('expected a ConfigError');
}

const CLUSTER = 'cluster:\n  nodes:\n    - { count: 2, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512 }\n';
const job = (fields: string): string => `${CLUSTER}workload:\n  jobs:\n    - { id: a, ${fields} }\n`;

describe('scenario bounds', () => {
  it('rejects a synthetic user count or GPUs per node beyond their bounds before generating anything', async () => {
    const synthetic = `${CLUSTER}workload:\n  synthetic: {jobs: 10, arrivalsPerHour: 10, duration: {median: 1h}, gpus: {1: 1}}\n`;
    expect(await loadError(synthetic, ['workload.synthetic.users=1e9'])).toMatch(/workload\.synthetic\.users: .*up to 10000000/);
    expect(await loadError(synthetic, ['workload.synthetic.gpusPerNode=1e9'])).toMatch(/workload\.synthetic\.gpusPerNode: .*up to 128/);
  });

  it('rejects a submit time that would overflow the clock (1e308 s)', async () => {
    expect(await loadError(job('gpus: 1, duration: 1h, submit: 1e308'))).toMatch(/:6: workload\.jobs\[0\]\.submit: .*100 years/);
  });

  it('rejects a duration beyond 100 years and accepts one just under it', async () => {
    expect(await loadError(job('gpus: 1, duration: 36600d'))).toMatch(/workload\.jobs\[0\]\.duration: .*100 years/);
    const file = write(`ok-${++count}.yaml`, job('gpus: 1, duration: 36500d'));
    const scenario = await loadScenario(file, { knownPolicies: ['fifo'] });
    expect(scenario.jobs[0]!.totalSteps).toBe(36500 * 86400);
  });

  it('rejects a replica count of 2^32 + 1', async () => {
    expect(await loadError(job('gpus: 1, duration: 1h, replicas: 4294967297'))).toMatch(/workload\.jobs\[0\]\.replicas: expected .*100000/);
  });

  it('rejects GPUs per replica and per node beyond the bound', async () => {
    expect(await loadError(job('gpus: 6214000000000, duration: 1h'))).toMatch(/workload\.jobs\[0\]\.gpus/);
    const nodes = 'cluster:\n  nodes:\n    - { count: 2, gpus: 100000, gpuType: A100, cpuCores: 64, memGiB: 512 }\nworkload:\n  jobs:\n    - { gpus: 1, duration: 1h }\n';
    expect(await loadError(nodes)).toMatch(/:3: cluster\.nodes\[0\]\.gpus/);
  });

  it('rejects a node count of 1e9, in a group and through --set', async () => {
    const text = job('gpus: 1, duration: 1h');
    expect(await loadError(text.replace('count: 2', 'count: 1000000000'))).toMatch(/cluster\.nodes\[0\]\.count/);
    const message = await loadError(text, ['cluster.nodes[0].count=1000000000']);
    expect(message).toContain('--set cluster.nodes[0].count=1000000000');
  });

  it('rejects node groups that together exceed the total node bound', async () => {
    const group = (name: string): string => `    - { group: ${name}, count: 60000, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512 }\n`;
    const text = `cluster:\n  nodes:\n${group('a')}${group('b')}workload:\n  jobs:\n    - { gpus: 1, duration: 1h }\n`;
    expect(await loadError(text)).toMatch(/cluster\.nodes: .*120000 nodes.*100000/);
  });

  it('rejects a fault scale whose expected faults per day are unbounded, and accepts a large finite one', async () => {
    const text = `${job('gpus: 1, duration: 1h')}faults: { catalog: ant-2023, scale: SCALE }\n`;
    expect(await loadError(text.replace('SCALE', '1e300'))).toMatch(/faults\.scale: .*faults per day/);
    const file = write(`ok-${++count}.yaml`, text.replace('SCALE', '100'));
    const scenario = await loadScenario(file, { knownPolicies: ['fifo'] });
    expect(scenario.faults).not.toBeNull();
  });

  it('rejects a synthetic job count of 1e9 before generating anything', async () => {
    const text = `${CLUSTER}workload:\n  synthetic: { jobs: 1000000000, arrivalsPerHour: 10, duration: { median: 1h }, gpus: { 1: 1 } }\n`;
    expect(await loadError(text)).toMatch(/workload\.synthetic\.jobs: .*10000000/);
  });

  it('rejects generated jobs that land beyond 100 years (arrivals of 1e-300 per hour)', async () => {
    const text = `${CLUSTER}workload:\n  synthetic: { jobs: 3, arrivalsPerHour: 1e-300, duration: { median: 1h }, gpus: { 1: 1 } }\n`;
    expect(await loadError(text)).toMatch(/:5: workload\.synthetic: generated job .*submitS: over 100 years/);
  });

  it('rejects a trace whose time scale pushes a job beyond 100 years', async () => {
    const trace = write(`t-${++count}.jsonl`, '{"id":"x","submitS":1000,"roles":[{"role":"worker","replicas":1,"gpus":1,"cpuMilli":1000,"memMiB":1024}],"durationS":10}\n');
    const text = `${CLUSTER}workload:\n  trace: { format: native, files: ${trace}, timeScale: 1e300 }\n`;
    expect(await loadError(text)).toMatch(/workload\.trace\.timeScale: .*job x.*100 years/);
  });
});
