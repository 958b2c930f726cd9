import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { MAX_GPUS_PER_NODE, MAX_REPLICAS, MAX_TIME_S } from '../../../src/model/limits.js';
import { alibabaSpot2026Format } from '../../../src/workload/formats/alibaba-spot-2026.js';
import { traceFormatById } from '../../../src/workload/formats.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { rejection } from '../../cli-run.js';
import { sharedTrace } from '../../shared-traces.js';
import { batchJob } from '../../helpers.js';
import { readAllJobs, SAMPLES, withoutSource, writeLines } from './format-helpers.js';
import { spotSampleCluster, spotSampleJobs, SPOT_2026_SAMPLE_DIR, writeSpotSamples } from '../../../src/workload/samples/spot.js';

const JOB_HEADER = 'job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type';
/** The published node file's own column order (not the README's). */
const NODE_HEADER = 'gpu_model,gpu_capacity_num,cpu_num,node_name';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-spot-2026-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** Writes a CSV file of the given lines into the test's temporary folder. */
function csvFile(lines: readonly string[], name = `job_info_df_${++files}.csv`): Promise<string> {
  return writeLines(dir, name, lines);
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(paths: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(alibabaSpot2026Format, paths, options);
}

/** Reads a node list leniently, collecting the skipped rows. */
async function readNodes(file: string, strict = false) {
  const skipped: TraceError[] = [];
  const cluster = await alibabaSpot2026Format.readCluster!(file, { limit: Infinity, strict, onSkip: (error) => skipped.push(error) });
  return { nodes: cluster.nodes, skipped };
}

describe('alibaba-spot-2026 jobs', () => {
  it('is registered as a trace format under its id', () => {
    expect(traceFormatById('alibaba-spot-2026')).toBe(alibabaSpot2026Format);
  });

  it('maps a row to a batch job of worker_num workers, each with cpu_request cores and gpu_request GPUs, and job_type to a priority class', async () => {
    const file = await csvFile([
      JOB_HEADER,
      '239255,13,A10,20,1,1,0,2764799,HP',
      '437261,57,A100-SXM4-80GB,15,1,94,9589663,71718,Spot',
      '500,8,H800,64,8,2,100,3600,Spot',
      '501,,,4,0,1,200,60,HP',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    const [hp, spot, big, cpu] = jobs as [JobSpec, JobSpec, JobSpec, JobSpec];
    expect(hp).toMatchObject({ id: '239255', kind: 'batch', submitS: 0, user: '13', gpuTypes: ['A10'], totalSteps: 2764799, priority: 'high', speed: { kind: 'fixed' }, elastic: null });
    expect(hp.roles).toEqual([{ role: 'worker', replicas: 1, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 20_000, memMiB: 0 } }]);
    expect(hp.source).toBe(`${file}:2`);
    expect(spot).toMatchObject({ id: '437261', user: '57', submitS: 9589663, totalSteps: 71718, priority: 'spot' });
    expect(spot.roles).toEqual([{ role: 'worker', replicas: 94, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 15_000, memMiB: 0 } }]);
    expect(big.roles[0]).toMatchObject({ replicas: 2, demand: { gpus: 8, cpuMilli: 64_000 } });
    // No organization and no GPU model: user "" and any GPU; a CPU-only job.
    expect(cpu).toMatchObject({ user: '', gpuTypes: [], priority: 'high' });
    expect(cpu.roles[0]!.demand.gpus).toBe(0);
    // No checkpoint is recorded: a reclaimed spot job restarts from its first step.
    expect(jobs.every((job) => job.checkpoint === undefined)).toBe(true);
  });

  it('reads a GPU share below one as a part of one GPU, a zero duration as the 1 s minimum, and job types in any case', async () => {
    const file = await csvFile([JOB_HEADER, 'a,1,A10,2,0.5,1,0,0,spot', 'b,1,A10,2,1,1,5,10,hp']);
    const { jobs, skipped } = await readAll([file], { strict: true });
    expect(skipped).toEqual([]);
    expect(jobs[0]!.roles[0]!.demand).toMatchObject({ gpus: 1, gpuMilli: 500 });
    expect(jobs[0]).toMatchObject({ totalSteps: 1, priority: 'spot' });
    expect(jobs[1]!.priority).toBe('high');
  });

  it('maps columns by name, whatever their order', async () => {
    const file = await csvFile(['job_type,duration,submit_time,worker_num,gpu_request,cpu_request,gpu_model,organization,job_name', 'Spot,50,7,3,2,6,A10,9,x']);
    const { jobs } = await readAll([file], { strict: true });
    expect(jobs[0]).toMatchObject({ id: 'x', user: '9', submitS: 7, totalSteps: 50, priority: 'spot', gpuTypes: ['A10'] });
    expect(jobs[0]!.roles[0]).toMatchObject({ replicas: 3, demand: { gpus: 2, cpuMilli: 6000 } });
  });

  it('rejects a header without a required column at line 1, strict or not', async () => {
    const file = await csvFile(['job_name,organization,gpu_model,cpu_request,gpu_request,submit_time,duration,job_type', 'a,1,A10,2,1,0,10,HP']);
    const error = await rejection(readAll([file]));
    expect(error).toBeInstanceOf(TraceError);
    expect(error).toMatchObject({ file, line: 1, column: 'worker_num' });
  });

  const BAD_ROWS: readonly (readonly [string, string, string])[] = [
    ['a,1,A10,2,1,1,0,10,Batch', 'job_type', 'unknown job type'],
    ['a,1,A10,2,1,0,0,10,HP', 'worker_num', 'not positive'],
    ['a,1,A10,2,1,1.5,0,10,HP', 'worker_num', 'not a whole number'],
    [`a,1,A10,2,1,${MAX_REPLICAS + 1},0,10,HP`, 'worker_num', `over ${MAX_REPLICAS}`],
    ['a,1,A10,2,1.5,1,0,10,HP', 'gpu_request', 'not a whole number'],
    [`a,1,A10,2,${MAX_GPUS_PER_NODE + 1},1,0,10,HP`, 'gpu_request', `over ${MAX_GPUS_PER_NODE}`],
    ['a,1,A10,-2,1,1,0,10,HP', 'cpu_request', 'negative'],
    ['a,1,A10,two,1,1,0,10,HP', 'cpu_request', 'not a number'],
    ['a,1,A10,2,1,1,-5,10,HP', 'submit_time', 'negative time'],
    [`a,1,A10,2,1,1,${MAX_TIME_S + 1},10,HP`, 'submit_time', 'over 100 years'],
    ['a,1,A10,2,1,1,0,-1,HP', 'duration', 'negative'],
    [`a,1,A10,2,1,1,0,${MAX_TIME_S + 1},HP`, 'duration', 'over 100 years'],
    [',1,A10,2,1,1,0,10,HP', 'job_name', 'empty'],
    ['a,1,A10,2,1,1,0', 'duration', 'missing column'],
  ];

  it.each(BAD_ROWS)('skips the bad row %s at its column (lenient) and throws it (strict)', async (row, column, reason) => {
    const file = await csvFile([JOB_HEADER, 'ok,1,A10,2,1,1,0,10,HP', row, 'ok2,1,A10,2,1,1,3,10,Spot']);
    const lenient = await readAll([file]);
    expect(lenient.jobs.map((job) => job.id)).toEqual(['ok', 'ok2']);
    expect(lenient.skipped).toHaveLength(1);
    expect(lenient.skipped[0]).toMatchObject({ file, line: 3, column, reason });
    const error = await rejection(readAll([file], { strict: true }));
    expect(error).toMatchObject({ file, line: 3, column, reason });
  });

  it('rejects a job name used twice, across files', async () => {
    const first = await csvFile([JOB_HEADER, 'a,1,A10,2,1,1,0,10,HP']);
    const second = await csvFile([JOB_HEADER, 'b,1,A10,2,1,1,0,10,HP', 'a,1,A10,2,1,1,0,10,Spot']);
    const { jobs, skipped } = await readAll([first, second]);
    expect(jobs.map((job) => job.id)).toEqual(['a', 'b']);
    expect(skipped[0]).toMatchObject({ file: second, line: 3, column: 'job_name', reason: 'duplicate id' });
  });

  it('stops after `limit` jobs, across files', async () => {
    const first = await csvFile([JOB_HEADER, 'a,1,A10,2,1,1,0,10,HP', 'b,1,A10,2,1,1,1,10,HP']);
    const second = await csvFile([JOB_HEADER, 'c,1,A10,2,1,1,2,10,HP', 'd,1,A10,2,1,1,3,10,HP']);
    const { jobs } = await readAll([first, second], { limit: 3 });
    expect(jobs.map((job) => job.id)).toEqual(['a', 'b', 'c']);
  });

  it('names a missing file in a ConfigError', async () => {
    const missing = join(dir, 'absent', 'job_info_df.csv');
    const error = await rejection(readAll([missing]));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(missing);
  });
});

describe('alibaba-spot-2026 nodes', () => {
  it('reads one node per row by column name, its model as group and GPU type, cores as CPU, racks of 32 in file order', async () => {
    const rows = Array.from({ length: 34 }, (_, k) => `${k % 2 === 0 ? 'A10' : 'A100-SXM4-80GB'},${k % 2 === 0 ? 1 : 8},128,${k}`);
    const file = await csvFile([NODE_HEADER, ...rows, 'GPU-series-1,0,192,cpu-only'], 'node_info_df.csv');
    const { nodes, skipped } = await readNodes(file, true);
    expect(skipped).toEqual([]);
    expect(nodes).toHaveLength(35);
    expect(nodes[1]).toEqual({ name: '1', group: 'A100-SXM4-80GB', gpuType: 'A100-SXM4-80GB', gpus: 8, cpuMilli: 128_000, memMiB: 0, rack: 'rack-0' });
    expect(nodes[32]!.rack).toBe('rack-1');
    expect(nodes[34]).toMatchObject({ name: 'cpu-only', gpus: 0, gpuType: null });
  });

  it('skips bad node rows leniently, naming file, line and column, and rejects a duplicate name', async () => {
    const file = await csvFile(
      [NODE_HEADER, 'A10,1,128,0', 'A10,one,128,1', 'A10,1,128,0', `H800,${MAX_GPUS_PER_NODE + 1},192,3`, ',8,192,4', 'H800,8,192,5'],
      'node_info_df_bad.csv',
    );
    const { nodes, skipped } = await readNodes(file);
    expect(nodes.map((node) => node.name)).toEqual(['0', '5']);
    expect(skipped.map((error) => [error.line, error.column, error.reason])).toEqual([
      [3, 'gpu_capacity_num', 'not a number'],
      [4, 'node_name', 'duplicate name'],
      [5, 'gpu_capacity_num', `over ${MAX_GPUS_PER_NODE}`],
      [6, 'gpu_model', 'empty'],
    ]);
    const error = await rejection(readNodes(file, true));
    expect(error).toMatchObject({ file, line: 3, column: 'gpu_capacity_num' });
  });
});

describe('alibaba-spot-2026 writer', () => {
  it('writes jobs as job_info_df.csv that reads back as the same jobs (memory aside: the format has none)', async () => {
    const spot = { ...batchJob('s', 5, 2, 600, 3), user: 'org-1', gpuTypes: ['H800'], priority: 'spot' as const };
    const high = { ...batchJob('h', 0, 1, 60), roles: [{ role: 'worker' as const, replicas: 1, demand: { gpus: 1, gpuMilli: 250, cpuMilli: 2500, memMiB: 0 } }] };
    const out = join(dir, 'written');
    const [file] = await alibabaSpot2026Format.writeJobs!([high, spot], out);
    expect(file).toBe(join(out, 'job_info_df.csv'));
    const { jobs } = await readAll([file!], { strict: true });
    expect(jobs.map(withoutSource)).toEqual([
      { ...withoutSource(high), priority: 'high' },
      { ...withoutSource(spot), priority: 'spot', roles: [{ ...spot.roles[0]!, demand: { ...spot.roles[0]!.demand, memMiB: 0 } }] },
    ]);
  });

  it('refuses a job it cannot write as one row: several roles, several GPU models, a step-counted job', async () => {
    const twoRoles = { ...batchJob('r', 0, 1, 10), roles: [...batchJob('r', 0, 1, 10).roles, { role: 'ps' as const, replicas: 1, demand: batchJob('r', 0, 1, 10).roles[0]!.demand }] };
    const twoModels = { ...batchJob('m', 0, 1, 10), gpuTypes: ['A10', 'H800'] };
    const stepped = { ...batchJob('t', 0, 1, 10), speed: { kind: 'allreduce' as const, computeS: 1, commS: 0 } };
    for (const job of [twoRoles, twoModels, stepped]) {
      const error = await rejection(alibabaSpot2026Format.writeJobs!([job], join(dir, `refused-${job.id}`)));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message.startsWith(`test:${job.id}: `)).toBe(true);
    }
  });
});

describe('alibaba-spot-2026 samples in traces/samples/', () => {
  it('are what writeSpotSamples makes today, and read back as its fixed lists', async () => {
    const fresh = join(dir, 'samples');
    await writeSpotSamples(fresh);
    for (const name of ['job_info_df.csv', 'node_info_df.csv']) {
      expect(await readFile(join(fresh, SPOT_2026_SAMPLE_DIR, name), 'utf8'), name).toBe(await readFile(join(SAMPLES, SPOT_2026_SAMPLE_DIR, name), 'utf8'));
    }
    const { jobs } = await readAll([join(SAMPLES, SPOT_2026_SAMPLE_DIR, 'job_info_df.csv')], { strict: true });
    expect(jobs.map(withoutSource)).toEqual(spotSampleJobs().map(withoutSource));
    const { nodes } = await readNodes(join(SAMPLES, SPOT_2026_SAMPLE_DIR, 'node_info_df.csv'), true);
    expect({ nodes }).toEqual(spotSampleCluster());
  });

  it('hold high-priority and spot jobs, and nodes of the models they ask for', async () => {
    const { jobs, skipped } = await readAll([join(SAMPLES, 'alibaba-spot-2026', 'job_info_df.csv')], { strict: true });
    expect(skipped).toEqual([]);
    expect(jobs.some((job) => job.priority === 'spot')).toBe(true);
    expect(jobs.some((job) => job.priority === 'high')).toBe(true);
    const { nodes } = await readNodes(join(SAMPLES, 'alibaba-spot-2026', 'node_info_df.csv'), true);
    const models = new Set(nodes.map((node) => node.gpuType));
    for (const job of jobs) for (const type of job.gpuTypes) expect(models.has(type), type).toBe(true);
  });
});

describe('alibaba-spot-2026 published trace (../shared/traces/alibaba-spot-2026)', () => {
  const nodeFile = sharedTrace('alibaba-spot-2026/node_info_df.csv');
  it.runIf(nodeFile !== null)('reads 4,278 nodes, skipping none', async () => {
    const { nodes, skipped } = await readNodes(nodeFile!);
    expect(skipped).toEqual([]);
    expect(nodes).toHaveLength(4278);
  });
});
