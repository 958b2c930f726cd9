import { describe, expect, it } from 'vitest';
import { requestedGpus } from '../../src/model/job-spec.js';
import { loadScenario } from '../../src/scenario/load.js';

const options = { knownPolicies: ['fifo'] };

describe('shipped scenarios', () => {
  it('quickstart.yaml: 4 nodes x 8 GPUs in 2 racks, ~10 jobs of every kind, more demand than GPUs', async () => {
    const scenario = await loadScenario('scenarios/quickstart.yaml', options);
    expect(scenario.name).toBe('quickstart');
    expect(scenario.cluster.nodes).toHaveLength(4);
    expect(new Set(scenario.cluster.nodes.map((node) => node.rack)).size).toBe(2);
    expect(scenario.cluster.nodes.every((node) => node.gpus === 8)).toBe(true);
    expect(scenario.jobs.length).toBeGreaterThanOrEqual(8);
    expect(new Set(scenario.jobs.map((job) => job.kind))).toEqual(new Set(['batch', 'allreduce', 'ps']));
    expect(scenario.jobs.some((job) => job.kind === 'allreduce' && job.elastic !== null)).toBe(true);
    expect(scenario.jobs.some((job) => requestedGpus(job) === 16 && job.roles[0]!.replicas > 1)).toBe(true);
    const totalGpus = scenario.jobs.reduce((sum, job) => sum + requestedGpus(job), 0);
    expect(totalGpus).toBeGreaterThan(32);
  });

  it('default.yaml: 32 A100 nodes and 250 synthetic jobs of several kinds', async () => {
    const scenario = await loadScenario('scenarios/default.yaml', options);
    expect(scenario).toMatchObject({ name: 'default', seed: 1, policy: 'fifo' });
    expect(scenario.cluster.nodes).toHaveLength(32);
    expect(scenario.cluster.nodes[0]).toMatchObject({ gpus: 8, gpuType: 'A100', cpuMilli: 96000, memMiB: 1024 * 1024 });
    expect(new Set(scenario.cluster.nodes.map((node) => node.rack)).size).toBe(2);
    expect(scenario.jobs).toHaveLength(250);
    expect(scenario.jobs.filter((job) => job.kind === 'batch').every((job) => job.totalSteps >= 60 && job.totalSteps <= 2 * 86400)).toBe(true);
    // Every replica fits on one node.
    for (const job of scenario.jobs) {
      for (const role of job.roles) {
        expect(role.demand.gpus).toBeLessThanOrEqual(8);
        expect(role.demand.cpuMilli).toBeLessThanOrEqual(96000);
        expect(role.demand.memMiB).toBeLessThanOrEqual(1024 * 1024);
      }
    }
  });
});
