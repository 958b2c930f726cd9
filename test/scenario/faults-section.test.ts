import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';
import { sharedTrace } from '../shared-traces.js';

const OPTIONS = { knownPolicies: presetNames() };
const faultTrace = sharedTrace('infinitehbd-faults/fault_trace.json');

function scenarioFile(faults: string, nodes = 16): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dlsim-faults-')), 'faults.yaml');
  writeFileSync(
    file,
    [
      'recovery: none',
      'cluster:',
      `  nodes: [{count: ${nodes}, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}]`,
      'workload:',
      '  jobs:',
      '    - {id: llm, kind: allreduce, replicas: 16, gpus: 8, cpuCores: 64, memGiB: 512, duration: 7d, stepTime: 2s}',
      '    - {id: small, gpus: 1, duration: 1h, submit: 1h}',
      faults,
      '',
    ].join('\n'),
  );
  return file;
}

describe('scenario faults section', () => {
  it('injects the ant-2023 catalog: a 128-GPU job without recovery dies at its first fault', async () => {
    const scenario = await loadScenario(scenarioFile('faults: {catalog: ant-2023}'), OPTIONS);
    expect(scenario.faults!.catalog.name).toBe('ant-2023');
    const first = simulate(scenario);
    const again = simulate(await loadScenario(scenarioFile('faults: {catalog: ant-2023}'), OPTIONS));
    expect(again.summary).toEqual(first.summary);
    const llm = first.jobs.find((j) => j.spec.id === 'llm')!;
    expect(llm.phase).toBe('failed');
    expect(llm.failureReason).toBe('fault');
    // Every fault counted in the summary is in the timeline, and the job's GPU time is lost.
    expect(first.timeline.filter((r) => r.event === 'fault')).toHaveLength(first.summary.faults.total);
    expect(first.summary.faults.total).toBeGreaterThan(0);
    expect(first.summary.lostGpuHours).toBeCloseTo((128 * (llm.endS! - llm.firstStartS!)) / 3600, 3);
  });

  it('runs fault-free with the none catalog and scale 0', async () => {
    for (const faults of ['faults: {catalog: none}', 'faults: {catalog: ant-2023, scale: 0}']) {
      const result = simulate(await loadScenario(scenarioFile(faults), OPTIONS));
      expect(result.summary.faults.total).toBe(0);
      expect(result.summary.jobs.completed).toBe(2);
    }
  });

  it('names an unknown catalog with its YAML line and the known catalogs', async () => {
    const file = scenarioFile('faults: {catalog: nope}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(new RegExp(`^${file}:8: faults\\.catalog: .*nope.*ant-2023`));
  });

  it.skipIf(faultTrace === null)('replays the InfiniteHBD fault trace onto the cluster', async () => {
    const scenario = await loadScenario(scenarioFile(`faults: {trace: {file: ${JSON.stringify(faultTrace)}, timeScale: 0.01}}`, 400), OPTIONS);
    expect(scenario.faults!.replay).toHaveLength(584);
    const result = simulate(scenario);
    expect(result.summary.faults.total).toBeGreaterThan(0);
  });
});

describe('scenario recoveryTimes', () => {
  it("replaces the times of the recovery policy in use, in any duration unit, keeping other policies' entries aside", async () => {
    const file = scenarioFile('recoveryTimes: {manual: {poll: 5m, sreRound: 1d}, dlrover: {detect: 3m}}\nfaults: {catalog: none}');
    writeFileSync(file, readFileSync(file, 'utf8').replace('recovery: none', 'recovery: manual'));
    const scenario = await loadScenario(file, OPTIONS);
    expect(scenario.recoveryTimesS).toEqual({ pollS: 300, sreRoundS: 86_400 });
    writeFileSync(file, readFileSync(file, 'utf8').replace('recovery: manual', 'recovery: dlrover'));
    expect((await loadScenario(file, OPTIONS)).recoveryTimesS).toEqual({ detectS: 180 });
  });

  it('names a time the policy does not have, with the ones it has, also for a policy not in use', async () => {
    const file = scenarioFile('recoveryTimes: {torch-elastic: {detect: 5m}}\nfaults: {catalog: none}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/recoveryTimes\.torch-elastic\.detect: recovery policy torch-elastic has no time "detect"; its times: locateNetwork, sreRound, poll, reschedule, replace, restart/);
  });

  it('names an unknown recovery policy and the known ones', async () => {
    const file = scenarioFile('recoveryTimes: {elastic: {replace: 5m}}\nfaults: {catalog: none}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/recoveryTimes\.elastic: unknown recovery policy "elastic"; known: none, manual, torch-elastic, dlrover/);
  });

  it('rejects the times given without their policy', async () => {
    const file = scenarioFile('recoveryTimes: {poll: 5m}\nfaults: {catalog: none}');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/recoveryTimes\.poll: expected a mapping of names to durations/);
  });
});
