import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { alibabaGpu2023Format, OPENB_POD_SAMPLE_FILE } from '../../../src/workload/formats/alibaba-gpu-2023.js';
import { alibabaGpuSampleCluster, alibabaGpuSampleJobs, GPU_2023_SAMPLE_DIR, OPENB_NODE_SAMPLE_FILE, writeAlibabaSamples } from '../../../src/workload/samples/alibaba.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { sharedTrace } from '../../shared-traces.js';
import { readAllJobs, writeLines } from './format-helpers.js';
import { rejection } from '../../cli-run.js';

const HEADER = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-openb-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a file of the given lines into the test's temporary folder. */
function csvFile(name: string, lines: readonly string[]): Promise<string> {
  return writeLines(dir, name, lines);
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(files: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(alibabaGpu2023Format, files, options);
}

describe('alibaba-gpu-2023 pods', () => {
  it('maps each pod to a one-worker batch job', async () => {
    const file = await csvFile('openb_pod_list_a.csv', [
      HEADER,
      'pod-a,12000,16384,1,1000,,LS,Running,0,12537496,0',
      'pod-b,6000,12288,1,460,V100M16|V100M32,BE,Succeeded,100,700,130',
      'pod-c,20000,65536,0,0,,LS,Failed,200,300,250',
      'pod-d,8000,30517,8,1000,G2,LS,Running,400,5400,410',
      'pod-e,8000,30517,1,230,,BE,Pending,500,625,',
      'pod-f,8000,30517,1,0,,BE,Pending,600,600,',
      'pod-g,4000,8192,1,810,T4,Burstable,Succeeded,700,800,800',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((j) => j.id)).toEqual(['pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e', 'pod-f', 'pod-g']);
    const [a, b, c, d, e, f, g] = jobs as [JobSpec, JobSpec, JobSpec, JobSpec, JobSpec, JobSpec, JobSpec];
    expect(a).toMatchObject({ kind: 'batch', submitS: 0, totalSteps: 12537496, user: '', gpuTypes: [], traceStatus: 'Running', speed: { kind: 'fixed' } });
    expect(a.roles).toEqual([{ role: 'worker', replicas: 1, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 12000, memMiB: 16384 } }]);
    expect(a.source).toBe(`${file}:2`);
    // Scheduled 30 s after creation: the run time starts at scheduling.
    expect(b).toMatchObject({ submitS: 100, totalSteps: 570, gpuTypes: ['V100M16', 'V100M32'], user: '' });
    expect(b.roles[0]!.demand).toEqual({ gpus: 1, gpuMilli: 460, cpuMilli: 6000, memMiB: 12288 });
    expect(c.roles[0]!.demand.gpus).toBe(0);
    expect(c).toMatchObject({ totalSteps: 50, traceStatus: 'Failed' });
    expect(d.roles[0]!.demand).toMatchObject({ gpus: 8, gpuMilli: 1000 });
    // Never scheduled: runs deletion − creation; zero becomes the 1 s minimum.
    expect(e).toMatchObject({ submitS: 500, totalSteps: 125, traceStatus: 'Pending' });
    expect(e.roles[0]!.demand.gpuMilli).toBe(230);
    expect(f).toMatchObject({ totalSteps: 1 });
    expect(f.roles[0]!.demand.gpuMilli).toBe(1000);
    expect(g).toMatchObject({ totalSteps: 1, gpuTypes: ['T4'] });
  });

  it('maps columns by name and accepts variants with fewer columns', async () => {
    const file = await csvFile('openb_pod_list_short.csv', [
      'creation_time,name,num_gpu,gpu_milli,memory_mib,cpu_milli,deletion_time',
      '10,pod-x,1,500,4096,2000,70',
      '20,pod-y,2,1000,8192,4000,',
    ]);
    const { jobs, skipped } = await readAll([file]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ id: 'pod-x', submitS: 10, totalSteps: 60, gpuTypes: [] });
    expect(jobs[0]!.traceStatus).toBeUndefined();
    expect(jobs[0]!.roles[0]!.demand).toEqual({ gpus: 1, gpuMilli: 500, cpuMilli: 2000, memMiB: 4096 });
    expect(skipped.map((s) => [s.line, s.countKey])).toEqual([[3, 'deletion_time: no run time']]);
  });

  it('rejects a header without a required column at line 1', async () => {
    const file = await csvFile('openb_pod_list_nocpu.csv', ['name,memory_mib,num_gpu,gpu_milli,creation_time', 'p,1,1,1000,0']);
    const error = await rejection(readAll([file]));
    expect(error).toBeInstanceOf(TraceError);
    expect(error).toMatchObject({ file, line: 1, column: 'cpu_milli', reason: 'missing column' });
  });

  describe('malformed rows', () => {
    const lines = [
      HEADER,
      'good-1,1000,1024,1,1000,,LS,Running,0,100,0',
      'short,1000,1024,1,1000,,LS,Running,0,100',
      'text,1000,1024,one,1000,,LS,Running,0,100,0',
      'negative,1000,1024,1,1000,,LS,Running,-5,100,0',
      'unknown-gpu,1000,1024,1,1000,V100M16|K80,LS,Running,0,100,0',
      'backwards,1000,1024,1,1000,,LS,Running,50,40,45',
      'partial-multi,1000,1024,2,500,,LS,Running,0,100,0',
      'good-2,1000,1024,1,500,A100|H100|V100,LS,Running,0,100,0',
      'good-1,1000,1024,1,1000,,LS,Running,0,100,0',
    ];
    const expected = [
      { line: 3, column: 'scheduled_time', reason: 'missing column' },
      { line: 4, column: 'num_gpu', reason: 'not a number', value: 'one' },
      { line: 5, column: 'creation_time', reason: 'negative time', value: '-5' },
      { line: 6, column: 'gpu_spec', reason: 'unknown GPU type', value: 'K80' },
      { line: 7, column: 'deletion_time', reason: 'end before start', value: '40' },
      { line: 8, column: 'gpu_milli', reason: 'partial share of several GPUs', value: '500' },
      { line: 10, column: 'name', reason: 'duplicate id', value: 'good-1' },
    ];

    it('skips bad rows in non-strict mode, reporting file, line, column and reason', async () => {
      const file = await csvFile('openb_pod_list_bad.csv', lines);
      const { jobs, skipped } = await readAll([file]);
      expect(jobs.map((j) => j.id)).toEqual(['good-1', 'good-2']);
      expect(jobs[1]!.gpuTypes).toEqual(['A100', 'H100', 'V100']);
      expect(skipped.map((s) => ({ line: s.line, column: s.column, reason: s.reason, ...(s.value === undefined ? {} : { value: s.value }) }))).toEqual(
        expected,
      );
      expect(skipped.every((s) => s.file === file)).toBe(true);
    });

    it('throws the first bad row in strict mode', async () => {
      const file = await csvFile('openb_pod_list_bad_strict.csv', lines);
      const skipped: TraceError[] = [];
      const error = await rejection(readAll([file], { strict: true, onSkip: (e) => skipped.push(e) }));
      expect(error).toBeInstanceOf(TraceError);
      expect(error).toMatchObject({ file, ...expected[0] });
      expect(skipped).toEqual([]);
    });
  });

  it('stops after `limit` jobs, across files', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => `p${i},1000,1024,1,1000,,LS,Running,${i},${i + 10},${i}`);
    const first = await csvFile('openb_pod_list_l1.csv', [HEADER, ...rows.slice(0, 2)]);
    const second = await csvFile('openb_pod_list_l2.csv', [HEADER, ...rows.slice(2)]);
    expect((await readAll([first, second], { limit: 3 })).jobs.map((j) => j.id)).toEqual(['p0', 'p1', 'p2']);
    expect((await readAll([first, second], { limit: 0 })).jobs).toEqual([]);
    expect((await readAll([first, second])).jobs).toHaveLength(5);
  });

  it('names a missing file in a ConfigError', async () => {
    const error = await rejection(readAll([join(dir, 'nope.csv')]));
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toContain('nope.csv');
  });

  it('round-trips writeJobs → readJobs', async () => {
    const jobs = alibabaGpuSampleJobs();
    const outDir = join(dir, 'round-trip');
    const files = await alibabaGpu2023Format.writeJobs!(jobs, outDir);
    expect(files).toEqual([join(outDir, OPENB_POD_SAMPLE_FILE)]);
    const { jobs: back, skipped } = await readAll(files, { strict: true });
    expect(skipped).toEqual([]);
    const strip = (job: JobSpec): Omit<JobSpec, 'source'> => {
      const { source: _source, ...rest } = job;
      return rest;
    };
    expect(back.map(strip)).toEqual(jobs.map(strip));
  });

  it('writes a job of several replicas as one pod per replica, keeping its whole demand', async () => {
    const demand = (gpus: number, gpuMilli: number, cpuMilli: number, memMiB: number) => ({ gpus, gpuMilli, cpuMilli, memMiB });
    const job: JobSpec = {
      id: 'ps-job',
      kind: 'batch',
      submitS: 0,
      user: '',
      gpuTypes: ['T4'],
      roles: [
        { role: 'worker', replicas: 2, demand: demand(1, 500, 4000, 8192) },
        { role: 'ps', replicas: 1, demand: demand(0, 1000, 6000, 16384) },
      ],
      elastic: null,
      totalSteps: 300,
      speed: { kind: 'fixed' },
      source: 'test',
      traceStatus: 'Failed',
    };
    const files = await alibabaGpu2023Format.writeJobs!([job], join(dir, 'replicas'));
    const { jobs: back } = await readAll(files, { strict: true });
    expect(back.map((pod) => pod.id)).toEqual(['ps-job-worker-0', 'ps-job-worker-1', 'ps-job-ps-0']);
    expect(back.map((pod) => pod.roles)).toEqual([
      [{ role: 'worker', replicas: 1, demand: demand(1, 500, 4000, 8192) }],
      [{ role: 'worker', replicas: 1, demand: demand(1, 500, 4000, 8192) }],
      [{ role: 'worker', replicas: 1, demand: demand(0, 1000, 6000, 16384) }],
    ]);
    for (const pod of back) {
      expect([pod.submitS, pod.totalSteps, pod.traceStatus]).toEqual([0, 300, 'Failed']);
      expect(pod.gpuTypes).toEqual(['T4']);
    }
  });
});

describe('alibaba-gpu-2023 nodes', () => {
  it('reads nodes with racks of 32 in file order', async () => {
    const lines = ['sn,cpu_milli,memory_mib,gpu,model'];
    for (let i = 0; i < 40; i++) lines.push(i < 35 ? `n${i},64000,262144,2,P100` : `c${i},32000,131072,0,`);
    const file = await csvFile('openb_node_list_racks.csv', lines);
    const cluster = await alibabaGpu2023Format.readCluster!(file, { limit: Infinity, strict: true, onSkip: () => undefined });
    expect(cluster.nodes).toHaveLength(40);
    expect(cluster.nodes[0]).toEqual({ name: 'n0', group: 'P100', gpuType: 'P100', gpus: 2, cpuMilli: 64000, memMiB: 262144, rack: 'rack-0' });
    expect(cluster.nodes[31]!.rack).toBe('rack-0');
    expect(cluster.nodes[32]!.rack).toBe('rack-1');
    expect(cluster.nodes[39]).toEqual({ name: 'c39', group: 'cpu', gpuType: null, gpus: 0, cpuMilli: 32000, memMiB: 131072, rack: 'rack-1' });
  });

  it('skips bad node rows in non-strict mode', async () => {
    const file = await csvFile('openb_node_list_bad.csv', [
      'sn,cpu_milli,memory_mib,gpu,model',
      'n0,64000,262144,2,P100',
      'n1,64000,262144,2,K80',
      'n2,64000,lots,2,T4',
      'n3,64000,262144,2',
      'n4,64000,262144,8,G3',
    ]);
    const skipped: TraceError[] = [];
    const cluster = await alibabaGpu2023Format.readCluster!(file, { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) });
    expect(cluster.nodes.map((n) => [n.name, n.rack])).toEqual([
      ['n0', 'rack-0'],
      ['n4', 'rack-0'],
    ]);
    expect(skipped.map((s) => [s.line, s.countKey])).toEqual([
      [3, 'model: unknown GPU type'],
      [4, 'memory_mib: not a number'],
      [5, 'model: missing column'],
    ]);
  });
});

describe('alibaba-gpu-2023 committed samples', () => {
  const root = join(import.meta.dirname, '../../../traces/samples');
  const podFile = join(root, GPU_2023_SAMPLE_DIR, OPENB_POD_SAMPLE_FILE);
  const nodeFile = join(root, GPU_2023_SAMPLE_DIR, OPENB_NODE_SAMPLE_FILE);

  it('parse without a skipped row', async () => {
    const { jobs, skipped } = await readAll([podFile]);
    expect(skipped).toEqual([]);
    expect(jobs).toHaveLength(50);
    expect(jobs.some((j) => j.roles[0]!.demand.gpus === 1 && j.roles[0]!.demand.gpuMilli < 1000)).toBe(true);
    expect(jobs.some((j) => j.gpuTypes.length > 1)).toBe(true);
    const skippedNodes: TraceError[] = [];
    const cluster = await alibabaGpu2023Format.readCluster!(nodeFile, { limit: Infinity, strict: false, onSkip: (e) => skippedNodes.push(e) });
    expect(skippedNodes).toEqual([]);
    expect(cluster).toEqual(alibabaGpuSampleCluster());
  });

  it('are what writeAlibabaSamples makes today', async () => {
    const fresh = join(dir, 'samples');
    await writeAlibabaSamples(fresh);
    for (const name of [OPENB_POD_SAMPLE_FILE, OPENB_NODE_SAMPLE_FILE]) {
      expect(await readFile(join(fresh, GPU_2023_SAMPLE_DIR, name), 'utf8'), name).toBe(
        await readFile(join(root, GPU_2023_SAMPLE_DIR, name), 'utf8'),
      );
    }
  });
});

const podPath = sharedTrace('alibaba-gpu-v2023/openb_pod_list_default.csv');
describe.skipIf(podPath === null)('alibaba-gpu-2023 real pod list', () => {
  it('reads all 8,152 pods: every one a job, none skipped', async () => {
    const { jobs, skipped } = await readAll([podPath!]);
    expect(jobs.length + skipped.length).toBe(8152);
    expect(skipped).toEqual([]);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(8152);
    const demand = (j: JobSpec) => j.roles[0]!.demand;
    // GPU-sharing pods keep their share of one GPU.
    const shared = jobs.filter((j) => demand(j).gpus === 1 && demand(j).gpuMilli < 1000);
    expect(shared).toHaveLength(3078);
    expect(jobs.find((j) => j.id === 'openb-pod-0001')!.roles[0]!.demand).toEqual({ gpus: 1, gpuMilli: 460, cpuMilli: 6000, memMiB: 12288 });
    expect(jobs.filter((j) => demand(j).gpus === 0)).toHaveLength(1088);
    expect(jobs.filter((j) => demand(j).gpus === 8)).toHaveLength(44);
    // Never-scheduled pods run deletion − creation.
    const pending = jobs.filter((j) => j.traceStatus === 'Pending');
    expect(pending).toHaveLength(897);
    expect(jobs.find((j) => j.id === 'openb-pod-0061')).toMatchObject({ submitS: 10001278, totalSteps: 125 });
    expect(jobs.every((j) => j.user === '' && j.totalSteps >= 1 && j.submitS >= 0)).toBe(true);
    // The default list asks for no particular model.
    expect(jobs.every((j) => j.gpuTypes.length === 0)).toBe(true);
  });
});

const gpuNodePath = sharedTrace('alibaba-gpu-v2023/openb_node_list_gpu_node.csv');
const allNodePath = sharedTrace('alibaba-gpu-v2023/openb_node_list_all_node.csv');
describe.skipIf(gpuNodePath === null || allNodePath === null)('alibaba-gpu-2023 real node lists', () => {
  const options: TraceReadOptions = { limit: Infinity, strict: true, onSkip: () => undefined };

  it('reads 1,213 GPU nodes', async () => {
    const cluster = await alibabaGpu2023Format.readCluster!(gpuNodePath!, options);
    expect(cluster.nodes).toHaveLength(1213);
    expect(cluster.nodes.every((n) => n.gpus > 0 && n.gpuType !== null)).toBe(true);
    const byModel = new Map<string, number>();
    for (const node of cluster.nodes) byModel.set(node.group, (byModel.get(node.group) ?? 0) + 1);
    expect(Object.fromEntries(byModel)).toEqual({ P100: 134, T4: 404, V100M16: 55, V100M32: 30, A10: 2, G2: 549, G3: 39 });
    expect(cluster.nodes.reduce((sum, n) => sum + n.gpus, 0)).toBe(6212);
    expect(cluster.nodes.at(-1)!.rack).toBe(`rack-${Math.floor(1212 / 32)}`);
  });

  it('reads 1,523 nodes in all, 310 of them CPU-only', async () => {
    const cluster = await alibabaGpu2023Format.readCluster!(allNodePath!, options);
    expect(cluster.nodes).toHaveLength(1523);
    const cpuNodes = cluster.nodes.filter((n) => n.gpuType === null);
    expect(cpuNodes).toHaveLength(310);
    expect(cpuNodes.every((n) => n.gpus === 0 && n.group === 'cpu')).toBe(true);
  });
});
