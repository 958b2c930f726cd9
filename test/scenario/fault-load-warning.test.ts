/** A scenario whose faults keep most of the cluster out of service is warned that its jobs may never end. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { folderWith } from '../cli-run.js';

const SCENARIO = `cluster:
  nodes:
    - {count: 4, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
workload:
  jobs:
    - {id: a, gpus: 8, duration: 1h}
faults:
  catalog: ant-2023
`;

async function warningsAt(scale: number): Promise<readonly string[]> {
  const dir = folderWith({ 's.yaml': `${SCENARIO}  scale: ${scale}\n` });
  return (await loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() })).warnings;
}

describe('faults that keep most GPUs out of service', () => {
  it('are warned at faults.scale with the share out of service', async () => {
    const warnings = await warningsAt(100);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/s\.yaml:9: faults\.scale: faults keep 82% of the GPUs out of service on average .*set sim\.horizon, or lower the scale/);
  });

  it('are not warned while most of the cluster stays up', async () => {
    expect(await warningsAt(10)).toEqual([]);
    expect(await warningsAt(1)).toEqual([]);
  });
});
