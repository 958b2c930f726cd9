import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatChange } from '../../src/bench/baselines.js';
import { checkBaselines, type RunAll } from '../../src/bench/check.js';
import { runScenario } from '../../src/sim/run-scenario.js';
import { recoveryScenario } from './recovery-scenario.js';

const DIR = mkdtempSync(join(tmpdir(), 'dlsim-bench-check-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/** Runs in this thread, in request order. */
const runAll: RunAll = async (requests) => {
  const out = [];
  for (const request of requests) out.push(await runScenario(request));
  return out;
};

const SCENARIO = recoveryScenario('recovery-week', '3d');

describe('the baseline check', () => {
  it('finds no change when nothing changed, and names scenario, preset, seed, metric and old → new when a policy constant changes', async () => {
    const file = join(DIR, 'recovery-week.yaml');
    writeFileSync(file, SCENARIO);
    const key = relative(process.cwd(), file);
    const recorded = (await checkBaselines([key], [], [], runAll)).fresh;
    expect(recorded.map((run) => `${run.policy} ${run.seed}`)).toEqual(['dlrover 1', 'dlrover 2', 'fifo 1', 'fifo 2']);
    expect(recorded[0]!.metrics).toHaveProperty('ettr');
    expect(Object.keys(recorded[0]!.metrics).some((metric) => metric.startsWith('perf.'))).toBe(false);

    const again = await checkBaselines([key], [], recorded, runAll);
    expect(again.changes).toEqual([]);

    // DLRover's pod replacement takes 1 h instead of its default: only the dlrover runs may move.
    const patched = await checkBaselines([key], ['recoveryTimes.dlrover.replace=1h'], recorded, runAll);
    expect(patched.changes.length).toBeGreaterThan(0);
    expect(patched.changes.every((change) => change.policy === 'dlrover' && change.scenario === key)).toBe(true);
    const ettr = patched.changes.find((change) => change.metric === 'ettr' && change.seed === 1);
    expect(ettr, 'the ettr of seed 1 moved').toBeDefined();
    const before = recorded.find((run) => run.policy === 'dlrover' && run.seed === 1)!.metrics.ettr!;
    expect(ettr!.old).toBe(before);
    expect(ettr!.new).not.toBe(before);
    const line = formatChange(ettr!);
    expect(line).toBe(`${key}  dlrover  seed 1  ettr  ${before} → ${ettr!.new}`);
    // An update keeps what it did not rerun and replaces what it did.
    expect(patched.updated.filter((run) => run.policy === 'fifo')).toEqual(recorded.filter((run) => run.policy === 'fifo'));
  }, 60_000);
});
