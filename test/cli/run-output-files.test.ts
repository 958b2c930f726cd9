import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runOutputFiles } from '../../src/cli/run.js';
import { writeFilesAtomic } from '../../src/io/atomic-write.js';
import type { ScalePlanRecord } from '../../src/model/scale-plan.js';
import { staleScalePlanFiles } from '../../src/report/scale-plans.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

const result = simulate(scenarioOf(gpuCluster(1), [batchJob('j1', 0, 1, 60)]));
const summary = { ...result.summary, perf: { wallS: 0, eventsPerS: 0 } };

function plan(seq: number): ScalePlanRecord {
  return {
    ownerJob: 'j1',
    seq,
    atS: 30 * seq,
    reason: 'test',
    replicaResourceSpecs: { worker: { replicas: seq + 1, resource: { cpuMilli: 1000, memMiB: 4096 } } },
    createPods: [],
    removePods: [],
    migratePods: [],
    psHosts: [],
  };
}

/** Writes a run's files to `out` as `dlsim run --out` does. */
function writeRun(out: string, plans: readonly ScalePlanRecord[]): void {
  const files = runOutputFiles({ ...result, scalePlans: plans }, summary);
  writeFilesAtomic(out, files, staleScalePlanFiles(out, files.map(([name]) => name)));
}

describe('dlsim run --out files', () => {
  it('without plans: jobs.csv, timeline.csv and summary.json, and no scaleplans folder', () => {
    const names = runOutputFiles(result, summary).map(([name]) => name);
    expect(names).toEqual(['jobs.csv', 'timeline.csv', 'summary.json']);
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-run-out-')), 'out');
    writeRun(out, []);
    expect(readdirSync(out).sort()).toEqual(['jobs.csv', 'summary.json', 'timeline.csv']);
  });

  it('with plans: one file each under scaleplans/, before summary.json', () => {
    const names = runOutputFiles({ ...result, scalePlans: [plan(0), plan(1)] }, summary).map(([name]) => name);
    expect(names).toEqual(['jobs.csv', 'timeline.csv', 'scaleplans/j1-scaleplan-0.yaml', 'scaleplans/j1-scaleplan-1.yaml', 'summary.json']);
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-run-out-')), 'out');
    writeRun(out, [plan(0), plan(1)]);
    expect(readdirSync(join(out, 'scaleplans')).sort()).toEqual(['j1-scaleplan-0.yaml', 'j1-scaleplan-1.yaml']);
    const written = parse(readFileSync(join(out, 'scaleplans', 'j1-scaleplan-1.yaml'), 'utf8')) as { spec: { replicaResourceSpecs: unknown } };
    expect(written.spec.replicaResourceSpecs).toEqual({ worker: { replicas: 2, resource: { cpu: '1', memory: '4Gi' } } });
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(summary);
    expect(readdirSync(join(out, 'scaleplans')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it("a later run into the same folder leaves none of an earlier run's plans it did not make, and keeps other files", () => {
    const out = mkdtempSync(join(tmpdir(), 'dlsim-run-out-'));
    writeRun(out, [plan(0), plan(1), plan(2)]);
    writeFileSync(join(out, 'scaleplans', 'mine.txt'), 'keep\n');
    writeRun(out, [plan(0)]);
    expect(readdirSync(join(out, 'scaleplans')).sort()).toEqual(['j1-scaleplan-0.yaml', 'mine.txt']);
    writeRun(out, []);
    expect(readdirSync(join(out, 'scaleplans'))).toEqual(['mine.txt']);
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
  });
});
