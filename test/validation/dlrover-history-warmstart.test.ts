import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { RunHistory } from '../../src/sim/history.js';
import { simulate } from '../../src/sim/simulation.js';

/** Seeds 1-20: each a day-1 run writing a fresh history file and a day-2 run reading it. */
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The brain service's warm start (seed 000, "启动阶段"): on day 2 the same users' jobs are sized
 * from day 1's history and reach 90% of their final speed sooner than day 1's cold-started jobs,
 * whose PS had to be given more memory and re-sized first.
 */
describe('scenarios/validation/dlrover-history-warmstart.yaml, day 1 then day 2, over seeds 1-20', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-warm-'));
  const days: { day1: number[]; day2: number[]; creates: string[] }[] = [];

  beforeAll(async () => {
    for (const seed of SEEDS) {
      const file = join(dir, `history-${seed}.sqlite`);
      const scenario = await loadScenario('scenarios/validation/dlrover-history-warmstart.yaml', { knownPolicies: presetNames(), seed, sets: [`history=${file}`] });
      const times: number[][] = [];
      const creates: string[] = [];
      for (const label of ['day 1', 'day 2']) {
        const history = await RunHistory.open(scenario.history!);
        const result = simulate(scenario, { history: history.view });
        times.push(result.jobs.map((job) => job.secondsTo90PctSpeed ?? Number.NaN));
        creates.push(...result.scalePlans.filter((plan) => plan.seq === 0).map((plan) => plan.reason));
        history.record(result, label);
        history.save();
        history.close();
      }
      days.push({ day1: times[0]!, day2: times[1]!, creates });
    }
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sizes day 1 by the cold plan and day 2 from day 1\'s jobs', () => {
    for (const { creates } of days) {
      expect(creates.slice(0, 2).every((r) => r.startsWith('create: cold plan'))).toBe(true);
      expect(creates.slice(2).every((r) => r.startsWith('create: from 1 job(s)'))).toBe(true);
    }
  });

  it('reaches 90% of the final speed sooner on day 2, for every job on every seed', () => {
    const day1 = days.flatMap((d) => d.day1);
    const day2 = days.flatMap((d) => d.day2);
    console.info(`dlrover-history-warmstart: seconds to 90% of the final speed, day 1 ${mean(day1).toFixed(0)}, day 2 ${mean(day2).toFixed(0)} (mean over 2 jobs x 20 seeds)`);
    expect(day1.every(Number.isFinite) && day2.every(Number.isFinite)).toBe(true);
    days.forEach(({ day1: a, day2: b }) => a.forEach((t, i) => expect(b[i]!).toBeLessThan(t)));
  });
});
