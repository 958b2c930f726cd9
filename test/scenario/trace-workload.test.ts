import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';
import { nativeLine } from '../../src/workload/formats/native.js';
import { batchJob } from '../helpers.js';

const OPTIONS = { knownPolicies: ['fifo'] };

/** A folder with a native trace (jobs.jsonl, one bad line) and a scenario replaying it. */
function scenarioWithTrace(traceKeys: string, clusterKeys = '  nodes: [{count: 4, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}]\n'): string {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-trace-'));
  writeFileSync(
    join(dir, 'jobs.jsonl'),
    [
      nativeLine(batchJob('t1', 100, 8, 600)),
      nativeLine(batchJob('t2', 200, 4, 300)),
      '{oops',
      nativeLine(batchJob('t3', 400, 8, 1200, 2)),
    ].join('\n'),
  );
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `cluster:\n${clusterKeys}workload:\n  trace:\n    format: native\n    files: jobs.jsonl\n${traceKeys}`);
  return file;
}

describe('scenario workload.trace', () => {
  it('replays the trace (paths relative to the scenario) and warns about skipped rows', async () => {
    const scenario = await loadScenario(scenarioWithTrace(''), OPTIONS);
    expect(scenario.jobs.map((j) => [j.id, j.submitS, j.totalSteps])).toEqual([
      ['t1', 100, 600],
      ['t2', 200, 300],
      ['t3', 400, 1200],
    ]);
    expect(scenario.warnings).toHaveLength(1);
    expect(scenario.warnings[0]).toMatch(/^workload\.trace: skipped 1 bad row: 1 x record: not valid JSON; first: .*jobs\.jsonl:3: /);
  });

  it('scales times by timeScale and arrivals by loadScale, and honours limit', async () => {
    const scenario = await loadScenario(scenarioWithTrace('    timeScale: 2\n    loadScale: 4\n    limit: 2\n'), OPTIONS);
    expect(scenario.jobs.map((j) => [j.id, j.submitS, j.totalSteps])).toEqual([
      ['t1', 50, 1200],
      ['t2', 100, 600],
    ]);
  });

  it('stops at the bad row in strict mode, naming it', async () => {
    const file = scenarioWithTrace('    strict: true\n');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/jobs\.jsonl:3: record: not valid JSON$/);
  });

  it('names an unknown format at its YAML path and lists the known ones', async () => {
    const file = scenarioWithTrace('');
    writeFileSync(file, `cluster:\n  nodes: [{gpus: 8, gpuType: A100, cpuCores: 8, memGiB: 8}]\nworkload:\n  trace: {format: nope, files: [x]}\n`);
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(`${file}:4: workload.trace.format: unknown trace format "nope"; known formats: native`);
  });

  it('refuses cluster.from with a format that has no machine list', async () => {
    const file = scenarioWithTrace('', '  from: {format: native, file: jobs.jsonl}\n');
    await expect(loadScenario(file, OPTIONS)).rejects.toThrow(/cluster\.from\.format: format "native" has no machine list/);
  });

  it('gives each job of a trace replayed on an unbounded cluster a JCT equal to its duration', async () => {
    // Nodes enough for every job at once: nothing ever queues.
    const scenario = await loadScenario(scenarioWithTrace('', '  nodes: [{count: 8, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}]\n'), OPTIONS);
    const result = simulate(scenario);
    for (const job of result.jobs) expect(job.endS! - job.spec.submitS).toBe(job.spec.totalSteps);
  });
});
