import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load.js';

const dir = mkdtempSync(join(tmpdir(), 'dlsim-priority-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a one-node scenario with the given job lines (list items under workload.jobs). */
async function loadJobs(jobs: string, name: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `cluster:\n  nodes:\n    - group: a100\n      count: 1\n      gpus: 8\n      gpuType: A100\n      cpuCores: 64\n      memGiB: 512\nworkload:\n  jobs:\n${jobs}`);
  return { file, load: () => loadScenario(file, { knownPolicies: ['fifo'] }) };
}

describe('scenario jobs: priority', () => {
  it('is high unless a job says spot', async () => {
    const { load } = await loadJobs('    - {id: a, gpus: 1, duration: 1h}\n    - {id: b, gpus: 1, duration: 1h, priority: spot}\n    - {id: c, gpus: 1, duration: 1h, priority: high}\n', 'ok');
    const scenario = await load();
    expect(scenario.jobs.map((job) => job.priority ?? 'high')).toEqual(['high', 'spot', 'high']);
    expect(scenario.jobs[0]!.priority).toBeUndefined();
  });

  it('rejects another class at its YAML path and line', async () => {
    const { file, load } = await loadJobs('    - id: a\n      gpus: 1\n      duration: 1h\n      priority: urgent\n', 'bad');
    const error = await load().then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${file}:14: workload.jobs[0].priority: expected high or spot`);
  });
});
