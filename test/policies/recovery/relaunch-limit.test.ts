import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listing } from '../../../src/cli/list.js';
import type { FaultOccurrence } from '../../../src/faults/occurrence.js';
import { presetNames } from '../../../src/policies/presets.js';
import { DLROVER_MAX_RELAUNCHES } from '../../../src/policies/recovery/dlrover.js';
import { loadScenario } from '../../../src/scenario/load.js';
import type { Scenario } from '../../../src/scenario/scenario.js';
import { Simulation } from '../../../src/sim/simulation.js';
import { allreduceJob, faultType, gpuCluster, scenarioOf } from '../../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'dlsim-relaunch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/** A DLRover scenario file with the given `recoveryTimes` mapping (YAML flow text). */
function scenarioFile(recoveryTimes: string): string {
  const file = join(dir, `s${files++}.yaml`);
  writeFileSync(
    file,
    [
      'recovery: dlrover',
      `recoveryTimes: ${recoveryTimes}`,
      'cluster:',
      '  nodes: [{count: 2, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}]',
      'workload:',
      '  jobs:',
      '    - {id: a, gpus: 8, duration: 1h}',
      'faults: {catalog: none}',
      '',
    ].join('\n'),
  );
  return file;
}

const OPTIONS = { knownPolicies: presetNames() };

describe('dlrover maxRelaunches', () => {
  it("defaults to DLRover's 3, and dlsim list shows it as a count", () => {
    expect(DLROVER_MAX_RELAUNCHES).toBe(3);
    expect(listing().recoveryCounts['dlrover']).toEqual({ maxRelaunches: 3 });
    expect(listing().recoveryTimesS['dlrover']).not.toHaveProperty('maxRelaunches');
  });

  it('a scenario sets it next to the times', async () => {
    const scenario = await loadScenario(scenarioFile('{dlrover: {maxRelaunches: 10, detect: 3m}}'), OPTIONS);
    expect(scenario.recoveryTimesS).toEqual({ maxRelaunches: 10, detectS: 180 });
  });

  it.each([['-1'], ['2.5'], ['3m'], ['1e30']])('rejects %s: a count is a whole number from 0', async (value) => {
    const file = scenarioFile(`{dlrover: {maxRelaunches: ${value}}}`);
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(
      new RegExp(`${file}:2: recoveryTimes\\.dlrover\\.maxRelaunches: expected a count, a whole number from 0 to 1000000`),
    );
  });

  it('a bad duration is still located', async () => {
    const file = scenarioFile('{dlrover: {detect: soon}}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/recoveryTimes\.dlrover\.detect: expected a duration like 90s, 15m, 2h or 1d/);
  });

  it('a name the policy does not have lists its times and counts', async () => {
    const file = scenarioFile('{dlrover: {relaunches: 5}}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/recovery policy dlrover has no time "relaunches"; its times: .*detect.*; its counts: maxRelaunches/);
  });

  describe('in the simulation', () => {
    const NODE_DOWN = faultType('psu', { kind: 'node-down' });
    // The lineage of the pod on n0 moves to the spares n4, n5, n6, n7, and each of those fails in turn.
    const downs: FaultOccurrence[] = [1000, 3000, 5000, 7000].map((timeS, i) => ({ timeS, type: NODE_DOWN, nodeIndex: [0, 4, 5, 6][i]!, gpuIndex: null, repairS: 1e6 }));

    function recoveries(timesS: Record<string, number>): string[] {
      const job = allreduceJob('llm', { workers: 4, totalSteps: 50_000, elastic: { minReplicas: 2, maxReplicas: 4, unit: 2 } });
      const scenario: Scenario = {
        ...scenarioOf(gpuCluster(8, 8, 100), [job], { policy: 'dlrover' }),
        recoveryTimesS: timesS,
        faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: downs, hangTimeoutS: 600 },
      };
      const result = new Simulation(scenario, { checkInvariants: true }).run();
      expect(result.jobs[0]!.phase).toBe('completed');
      return result.timeline.filter((r) => r.event === 'job-recovering').map((r) => r.detail.split(';')[0]!);
    }

    it('a larger limit keeps replacing the lineage past the third relaunch', () => {
      expect(recoveries({})).toEqual(['1 pods replaced', '1 pods replaced', '1 pods replaced', 'relaunches exhausted: scaled down to 2 workers']);
      expect(recoveries({ maxRelaunches: 4 })).toEqual(['1 pods replaced', '1 pods replaced', '1 pods replaced', '1 pods replaced']);
    });

    it('a limit of 0 drops the worker at its first failure', () => {
      expect(recoveries({ maxRelaunches: 0 })[0]).toBe('relaunches exhausted: scaled down to 2 workers');
    });
  });
});
