import { describe, expect, it } from 'vitest';
import { replayScenario, schedulingPresets } from '../../src/bench/cases.js';
import { presetStack } from '../../src/policies/presets.js';
import { createTetris } from '../../src/policies/scheduling/tetris.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { simulate, type SimResult } from '../../src/sim/simulation.js';

/** 1,000 generated PAI jobs, none naming a GPU model, on every 20th PAI machine (all five models): a queue builds. */
async function busyReplay(preset: string): Promise<Scenario> {
  const { scenario } = await replayScenario('scenarios', preset, 1000);
  return { ...scenario, cluster: { ...scenario.cluster, nodes: scenario.cluster.nodes.filter((_, i) => i % 20 === 0) } };
}

/** What a run decided: its summary (without timing), each job's start and end, and each job's waits by reason and blocker. */
function outcome(result: SimResult): unknown {
  const { perf: _perf, ...summary } = result.summary;
  return {
    summary,
    jobs: result.jobs.map((job) => [job.spec.id, job.firstStartS, job.endS, result.waits.secondsOf(job).join(','), result.waits.blockerOfJob(job)]),
  };
}

describe('the fit index grouping GPU nodes by model or not', () => {
  for (const preset of schedulingPresets()) {
    if (presetStack(preset).scheduling === 'tetris') continue;
    it(`${preset} runs alike with GPU nodes in one group or grouped by model`, async () => {
      const scenario = await busyReplay(preset);
      expect(new Set(scenario.cluster.nodes.map((n) => n.gpuType).filter((t) => t !== null)).size).toBeGreaterThanOrEqual(5);
      expect(scenario.jobs.every((job) => job.gpuTypes.length === 0)).toBe(true);
      const byModel = simulate(scenario, { fitByGpuModel: true });
      // Some jobs waited, or the grouping was never put to a test.
      expect(byModel.summary.queueDelayS.mean).toBeGreaterThan(60);
      expect(outcome(simulate(scenario, { fitByGpuModel: false }))).toEqual(outcome(byModel));
    });
  }

  it('tetris, whose candidates are the best machines of each model, keeps them grouped by model', async () => {
    expect(createTetris().machinesByGpuModel).toBe(true);
    const scenario = await busyReplay('tetris');
    const run = outcome(simulate(scenario));
    expect(run).toEqual(outcome(simulate(scenario, { fitByGpuModel: true })));
    // In one group its candidates would be other machines: here some job starts elsewhere or later.
    expect(outcome(simulate(scenario, { fitByGpuModel: false }))).not.toEqual(run);
  });
});
