import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convergenceStep } from '../../src/model/observations.js';
import { loadScenario } from '../../src/scenario/load.js';
import { nativeLine, parseNativeLine } from '../../src/workload/formats/native.js';

const dir = mkdtempSync(join(tmpdir(), 'dlsim-loss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;

function scenarioText(job: string): string {
  return `cluster:
  nodes:
    - {group: gpu, count: 1, gpus: 8, gpuType: V100, cpuCores: 64, memGiB: 256}
workload:
  jobs:
    - id: a
      kind: ps
      replicas: 2
      gpus: 1
      ps: {replicas: 1}
${job}
`;
}

async function load(job: string) {
  const file = join(dir, `s${++count}.yaml`);
  writeFileSync(file, scenarioText(job));
  return { file, scenario: () => loadScenario(file, { knownPolicies: ['fifo'] }) };
}

describe('scenario key loss (convergence-based end)', () => {
  it('builds JobSpec.loss and ends the job at its convergence step', async () => {
    const { scenario } = await load('      loss: {b0: 0.0004, b1: 0.5, b2: 0.2, target: 0.26}');
    const job = (await scenario()).jobs[0]!;
    expect(job.loss).toEqual({ b0: 0.0004, b1: 0.5, b2: 0.2, noise: 0.01, targetLoss: 0.26 });
    expect(job.totalSteps).toBeCloseTo((1 / 0.06 - 0.5) / 0.0004, 6);
    expect(job.totalSteps).toBe(convergenceStep(job.loss!));
  });

  it('names the YAML path (and line) of a target the curve never reaches', async () => {
    const { file, scenario } = await load('      loss: {b0: 0.0004, b1: 0.5, b2: 0.3, noise: 0.02, target: 0.25}');
    await expect(scenario()).rejects.toThrow(`${file}:11: workload.jobs[0].loss.target: target 0.25 is never reached: the loss levels off at b2 = 0.3`);
  });

  it('rejects a target already met at step 0, steps next to a loss, and loss on a batch job', async () => {
    await expect((await load('      loss: {b0: 0.001, b1: 2, b2: 0.1, target: 0.9}')).scenario()).rejects.toThrow('loss.target: target 0.9 is reached at step 0');
    await expect((await load('      steps: 1000\n      loss: {b0: 0.001, b1: 2, b2: 0.1, target: 0.2}')).scenario()).rejects.toThrow(
      'workload.jobs[0].loss: a job with a loss curve ends when it converges: give loss or steps/duration, not both',
    );
    const batch = scenarioText('      loss: {b0: 0.001, b1: 2, b2: 0.1, target: 0.2}').replace('kind: ps', 'kind: batch').replace('      ps: {replicas: 1}\n', '      duration: 1h\n');
    const file = join(dir, 'batch.yaml');
    writeFileSync(file, batch);
    await expect(loadScenario(file, { knownPolicies: ['fifo'] })).rejects.toThrow('loss is only for kind allreduce or ps');
  });

  it('round-trips through the native trace format', async () => {
    const job = (await (await load('      loss: {b0: 0.0004, b1: 0.5, b2: 0.2, noise: 0.03, target: 0.26}')).scenario()).jobs[0]!;
    const line = nativeLine(job);
    expect(JSON.parse(line)).toMatchObject({ loss: { b0: 0.0004, b1: 0.5, b2: 0.2, noise: 0.03, targetLoss: 0.26 } });
    expect(parseNativeLine(line, 'f.jsonl', 1)).toEqual(job);
    const bad = line.replace('"targetLoss":0.26', '"targetLoss":-1');
    expect(() => parseNativeLine(bad, 'f.jsonl', 2)).toThrow(/^f\.jsonl:2: loss\.targetLoss: /);
  });
});
