import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';
import { sharedTrace } from '../shared-traces.js';
import { gpuCluster } from '../helpers.js';

const philly = sharedTrace('philly-pollux/philly.csv');

/** Loads `limit` jobs of a real trace through a scenario file, as a user would. */
async function traceScenario(format: string, file: string, limit: number) {
  const yaml = join(mkdtempSync(join(tmpdir(), 'dlsim-replay-')), 'replay.yaml');
  writeFileSync(
    yaml,
    `cluster:\n  nodes: [{gpus: 8, gpuType: P100, cpuCores: 64, memGiB: 512}]\nworkload:\n  trace: {format: ${format}, files: [${JSON.stringify(file)}], limit: ${limit}}\n`,
  );
  return loadScenario(yaml, { knownPolicies: presetNames() });
}

describe.skipIf(philly === null)('replaying the real Philly trace', () => {
  it('on an unbounded cluster gives every job a JCT equal to its duration', async () => {
    const scenario = await traceScenario('philly', philly!, 3000);
    // One 8-GPU node per worker replica of every job: all jobs can run at once.
    const replicas = scenario.jobs.reduce((sum, job) => sum + job.roles[0]!.replicas, 0);
    const result = simulate({ ...scenario, cluster: gpuCluster(replicas, 8) });
    expect(result.summary.jobs.completed).toBe(3000);
    for (const job of result.jobs) expect(job.endS! - job.spec.submitS).toBe(job.spec.totalSteps);
    expect(result.summary.queueDelayS.p99).toBe(0);
  });
});
