import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { flattenMetrics } from '../../src/report/compare.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

/** The presets `npm start` compares, read from package.json's start script. */
function startPolicies(): string[] {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const match = /--policies ([\w,-]+)/.exec(pkg.scripts.start);
  if (!match) throw new Error(`no --policies in the start script: ${pkg.scripts.start}`);
  return match[1]!.split(',');
}

describe('the default comparison (npm start)', () => {
  it('compares seven presets on scenarios/default.yaml', () => {
    expect(pkgStart()).toContain('compare scenarios/default.yaml');
    expect(startPolicies()).toEqual(['fifo', 'drf', 'tetris', 'optimus', 'edl', 'tiresias', 'dlrover']);
  });

  it('default.yaml mixes every job kind, several users and the ant-2023 faults', async () => {
    const scenario = await loadScenario('scenarios/default.yaml', { knownPolicies: presetNames() });
    expect(scenario.faults).not.toBeNull();
    expect(scenario.faults!.catalog.name).toBe('ant-2023');
    const jobs = scenario.jobs;
    expect(jobs.some((j) => j.kind === 'batch')).toBe(true);
    expect(jobs.some((j) => j.kind === 'allreduce' && j.elastic !== null && j.checkpoint === undefined)).toBe(true);
    expect(jobs.some((j) => j.kind === 'ps' && j.loss !== undefined)).toBe(true);
    expect(jobs.some((j) => j.kind === 'allreduce' && j.checkpoint !== undefined)).toBe(true);
    expect(new Set(jobs.map((j) => j.user)).size).toBeGreaterThan(4);
  });

  it('gives every preset different numbers on the scenario seed (no two summaries alike)', async () => {
    const policies = startPolicies();
    const summaries = new Map<string, string>();
    for (const policy of policies) {
      const { summary } = simulate(await loadScenario('scenarios/default.yaml', { knownPolicies: presetNames(), policy }));
      // Outcomes only: the count of simulation events differs whenever a policy ticks.
      summaries.set(policy, JSON.stringify(flattenMetrics(summary).filter(([metric]) => metric !== 'events')));
    }
    for (let i = 0; i < policies.length; i++) {
      for (let j = i + 1; j < policies.length; j++) {
        expect(summaries.get(policies[i]!), `${policies[i]} and ${policies[j]} give the same summary`).not.toBe(summaries.get(policies[j]!));
      }
    }
  });
});

function pkgStart(): string {
  return (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
}
