import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { alibabaPai2020Format } from '../../../src/workload/formats/alibaba-pai-2020.js';
import {
  alibabaPaiSampleCluster,
  alibabaPaiSampleJobs,
  PAI_2020_SAMPLE_DIR,
  PAI_MACHINE_SAMPLE_FILE,
  writeAlibabaSamples,
} from '../../../src/workload/samples/alibaba.js';
import type { TraceReadOptions } from '../../../src/workload/trace-format.js';
import { sharedTrace } from '../../shared-traces.js';
import { readAllJobs } from './format-helpers.js';
import { rejection } from '../../cli-run.js';

let root: string;
let caseCount = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dlsim-pai-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh folder per test case, so files keep their real base names. */
async function caseDir(): Promise<string> {
  const dir = join(root, `case-${++caseCount}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Writes a headerless CSV file of the given lines. */
async function csvFile(dir: string, name: string, lines: readonly string[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** Writes a job and a task table (and an instance table when given) into a fresh folder. */
async function tables(jobs: readonly string[], tasks: readonly string[], instances?: readonly string[]): Promise<string[]> {
  const dir = await caseDir();
  const files = [await csvFile(dir, 'pai_job_table.csv', jobs), await csvFile(dir, 'pai_task_table.csv', tasks)];
  if (instances !== undefined) files.push(await csvFile(dir, 'pai_instance_table.csv', instances));
  return files;
}

/** Reads all jobs of the files, collecting the skipped rows. */
function readAll(files: string[], options: Partial<TraceReadOptions> = {}) {
  return readAllJobs(alibabaPai2020Format, files, options);
}

/** A skipped row as plain data. */
function described(error: TraceError): { file: string; line: number; key: string } {
  return { file: error.file, line: error.line, key: error.countKey };
}

describe('alibaba-pai-2020 jobs', () => {
  it('joins tasks to jobs as roles, with times relative to the first submission', async () => {
    const files = await tables(
      [
        'job-ps,i1,user-a,Terminated,4550879.0,4551416.0',
        'job-single,i2,user-b,Failed,4550800.0,4552000.0',
        'job-multi,i3,user-a,Terminated,4551000.0,4555000.0',
        'job-chief,i4,user-c,Terminated,4551100.0,4551200.0',
        'job-running,i5,user-c,Running,4551200.0,',
        'job-waiting,i6,user-c,Waiting,4551300.0,',
        'job-lost,i7,user-c,Terminated,4551400.0,4551500.0',
        'job-cpu,i8,,Terminated,4551500.0,',
      ],
      [
        'job-multi,PyTorchWorker,2,Terminated,4551100.0,4555000.0,1200.0,60.0,200.0,V100M32',
        'job-ps,ps,1.0,Terminated,4550899.0,4551416.0,600.0,29.296875,,CPU',
        'job-ps,worker,2.0,Terminated,4550900.0,4551416.0,400.0,29.296875,50.0,T4',
        'job-single,tensorflow,1.0,Failed,4550810.0,4552000.0,600.0,8.0,25.0,MISC',
        'job-multi,evaluator,1,Terminated,4551100.0,4551900.0,200.0,8.0,250.0,V100',
        'job-chief,chief,1,Terminated,4551100.0,4551200.0,400.0,4.0,100.0,',
        // A Running job has no run time yet, even when its task has ended.
        'job-running,worker,1,Running,4551210.0,4551290.0,400.0,4.0,100.0,P100',
        'job-waiting,TVMTuneMain,1,Waiting,,,400.0,4.0,100.0,P100',
        'job-cpu,worker,3,Terminated,4551510.0,4551530.0,,,,CPU',
        'job-orphan,worker,1,Terminated,1.0,2.0,100.0,1.0,100.0,T4',
      ],
    );
    const { jobs, skipped } = await readAll(files);
    const [jobFile] = files as [string];
    expect(skipped.map(described)).toEqual([
      { file: jobFile, line: 5, key: 'end_time: no end time' },
      { file: jobFile, line: 6, key: 'end_time: no end time' },
      { file: jobFile, line: 7, key: 'job_name: no tasks' },
    ]);
    expect(jobs.map((j) => j.id)).toEqual(['job-ps', 'job-single', 'job-multi', 'job-chief', 'job-cpu']);
    const [ps, single, multi, chief, cpu] = jobs as [JobSpec, JobSpec, JobSpec, JobSpec, JobSpec];
    // The earliest submission (job-single, 4550800) is time 0; the run time starts at the first task's launch.
    expect(ps).toMatchObject({ kind: 'batch', submitS: 79, totalSteps: 4551416 - 4550899, user: 'user-a', traceStatus: 'Terminated', gpuTypes: ['T4'] });
    expect(ps.speed).toEqual({ kind: 'fixed' });
    expect(ps.elastic).toBeNull();
    expect(ps.source).toBe(`${jobFile}:1`);
    expect(ps.traceRetries).toBeUndefined();
    expect(ps.roles).toEqual([
      { role: 'ps', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 6000, memMiB: 30000 } },
      { role: 'worker', replicas: 2, demand: { gpus: 1, gpuMilli: 500, cpuMilli: 4000, memMiB: 30000 } },
    ]);
    expect(single).toMatchObject({ submitS: 0, totalSteps: 1190, gpuTypes: [], traceStatus: 'Failed' });
    expect(single.roles).toEqual([{ role: 'worker', replicas: 1, demand: { gpus: 1, gpuMilli: 250, cpuMilli: 6000, memMiB: 8192 } }]);
    // 200% is 2 whole GPUs; 250% is rounded up to 3; the evaluator is an auxiliary (chief) role; the models are unioned.
    expect(multi).toMatchObject({ submitS: 200, totalSteps: 3900, gpuTypes: ['V100', 'V100M32'] });
    expect(multi.roles.map((r) => [r.role, r.replicas, r.demand.gpus, r.demand.gpuMilli])).toEqual([
      ['worker', 2, 2, 1000],
      ['chief', 1, 3, 1000],
    ]);
    // A chief with no worker task trains as the worker; an empty gpu_type is any model.
    expect(chief.roles.map((r) => r.role)).toEqual(['worker']);
    expect(chief).toMatchObject({ totalSteps: 100, gpuTypes: [] });
    // No job end_time: the tasks' latest end; empty plans are 0; an empty user is "".
    expect(cpu).toMatchObject({ user: '', totalSteps: 20, submitS: 700 });
    expect(cpu.roles).toEqual([{ role: 'worker', replicas: 3, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 0, memMiB: 0 } }]);
  });

  it('maps each task name to one role: worker-like names, auxiliary ones as chief, unknown ones skipped', async () => {
    const files = await tables(
      [
        'job-eval,i1,u,Terminated,100.0,200.0',
        'job-aux,i2,u,Terminated,100.0,200.0',
        'job-unlike,i3,u,Terminated,100.0,200.0',
        'job-odd,i4,u,Terminated,100.0,200.0',
        'job-x,i5,u,Terminated,100.0,200.0',
      ],
      [
        'job-eval,worker,4,Terminated,100.0,200.0,600.0,8.0,100.0,V100',
        'job-eval,evaluator,1,Terminated,100.0,200.0,600.0,8.0,100.0,V100',
        'job-aux,chief,1,Terminated,100.0,200.0,400.0,8.0,,CPU',
        'job-aux,TensorboardTask,1,Terminated,100.0,200.0,400.0,8.0,,CPU',
        'job-aux,xComputeWorker,2,Terminated,100.0,200.0,600.0,8.0,100.0,T4',
        'job-unlike,worker,2,Terminated,100.0,200.0,600.0,8.0,100.0,T4',
        'job-unlike,tensorflow,1,Terminated,100.0,200.0,600.0,8.0,50.0,T4',
        'job-odd,MapTask,1,Terminated,100.0,200.0,600.0,8.0,100.0,T4',
        'job-x,PyTorchWorker,3,Terminated,100.0,200.0,600.0,8.0,100.0,T4',
      ],
    );
    const { jobs, skipped } = await readAll(files);
    const [jobFile, taskFile] = files as [string, string];
    expect(skipped.map(described)).toEqual([
      { file: taskFile, line: 8, key: 'task_name: unknown task' },
      { file: jobFile, line: 3, key: 'job_name: unlike tasks in one role' },
      { file: jobFile, line: 4, key: 'job_name: bad task' },
    ]);
    const byId = new Map(jobs.map((j) => [j.id, j.roles.map((r) => [r.role, r.replicas])]));
    expect(Object.fromEntries(byId)).toEqual({
      'job-eval': [['worker', 4], ['chief', 1]],
      // Two auxiliary tasks of the same shape make one chief role of two replicas.
      'job-aux': [['chief', 2], ['worker', 2]],
      'job-x': [['worker', 3]],
    });
    for (const job of jobs) expect(new Set(job.roles.map((r) => r.role)).size).toBe(job.roles.length);
  });

  it('counts instances beyond inst_num as retries', async () => {
    const files = await tables(
      ['a,i,u,Terminated,10,20', 'b,i,u,Failed,10,30', 'c,i,u,Terminated,12,20'],
      ['a,ps,1,Terminated,10,20,100,1,,CPU', 'a,worker,2,Terminated,10,20,100,1,100,T4', 'b,worker,1,Failed,10,30,100,1,100,T4', 'c,worker,2,Terminated,12,20,100,1,100,T4'],
      [
        'a,ps,a0,w0,i,Terminated,10,20,m1',
        'a,worker,a1,w1,i,Failed,10,11,m1',
        'a,worker,a2,w2,i,Terminated,11,20,m2',
        'a,worker,a3,w3,i,Terminated,10,20,m3',
        'a,worker,a4,w4,i,Failed,10,12,m3',
        'b,worker,b0,w5,i,Failed,10,30,m1',
        'c,worker,c0,w6,i,Terminated,12,20,m1',
        'b,chief,x,x,i,Failed,1,2,m1',
        'z,worker,x,x,i,Failed,1,2,m1',
      ],
    );
    const { jobs, skipped } = await readAll(files);
    expect(skipped).toEqual([]);
    expect(jobs.map((j) => [j.id, j.traceRetries])).toEqual([
      ['a', 2],
      ['b', 0],
      ['c', 0],
    ]);
  });

  it('recognises the tables by base name, in any order, and rejects others', async () => {
    const [jobFile, taskFile] = (await tables(['a,i,u,Terminated,10,20'], ['a,worker,1,Terminated,10,20,100,1,100,T4'])) as [string, string];
    expect((await readAll([taskFile, jobFile])).jobs.map((j) => j.id)).toEqual(['a']);
    const other = join(root, 'pai_sensor_table.csv');
    const unknown = await rejection(readAll([jobFile, taskFile, other]));
    expect(unknown).toBeInstanceOf(ConfigError);
    expect(String(unknown)).toContain('pai_sensor_table.csv');
    expect(String(unknown)).toContain('pai_job_table.csv pai_task_table.csv [pai_instance_table.csv]');
    const noTasks = await rejection(readAll([jobFile]));
    expect(noTasks).toBeInstanceOf(ConfigError);
    expect(String(noTasks)).toContain('no task table');
    expect(await rejection(readAll([jobFile, taskFile, jobFile]))).toBeInstanceOf(ConfigError);
    const missing = await rejection(readAll([jobFile, join(root, 'nowhere', 'pai_task_table.csv')]));
    expect(missing).toBeInstanceOf(ConfigError);
    expect(String(missing)).toContain('no such file');
    const directory = await rejection(alibabaPai2020Format.readCluster!(root, { limit: Infinity, strict: true, onSkip: () => undefined }));
    expect(directory).toBeInstanceOf(ConfigError);
  });

  describe('malformed rows', () => {
    const jobs = [
      'good-1,i,u,Terminated,100,200',
      'short,i,u,Terminated,100',
      'text,i,u,Terminated,soon,200',
      'negative,i,u,Terminated,-100,200',
      'bad-gpu,i,u,Terminated,100,200',
      'backwards,i,u,Terminated,100,50',
      'good-2,i,u,Terminated,150,250',
      'good-1,i,u,Terminated,100,200',
    ];
    const tasks = [
      'good-1,worker,1,Terminated,100,200,100,1,100,T4',
      'short,worker,1,Terminated,100,200,100,1,100,T4',
      'text,worker,1,Terminated,100,200,100,1,100,T4',
      'negative,worker,1,Terminated,100,200,100,1,100,T4',
      'bad-gpu,worker,1,Terminated,100,200,100,1,100,K80',
      'backwards,worker,1,Terminated,100,200,100,1,100,T4',
      'good-2,worker,1,Terminated,150,250,100,1,100,T4',
      'good-2,ps,1,Terminated,150,250,lots,1,,CPU',
    ];

    it('skips bad rows in non-strict mode, reporting file, line, column and reason', async () => {
      const [jobFile, taskFile] = (await tables(jobs, tasks)) as [string, string];
      const { jobs: read, skipped } = await readAll([jobFile, taskFile]);
      expect(read.map((j) => j.id)).toEqual(['good-1']);
      expect(skipped.map(described)).toEqual([
        { file: taskFile, line: 5, key: 'gpu_type: unknown GPU type' },
        { file: taskFile, line: 8, key: 'plan_cpu: not a number' },
        { file: jobFile, line: 2, key: 'end_time: missing column' },
        { file: jobFile, line: 3, key: 'start_time: not a number' },
        { file: jobFile, line: 4, key: 'start_time: negative time' },
        { file: jobFile, line: 5, key: 'job_name: bad task' },
        { file: jobFile, line: 6, key: 'end_time: end before start' },
        { file: jobFile, line: 7, key: 'job_name: bad task' },
        { file: jobFile, line: 8, key: 'job_name: duplicate id' },
      ]);
      expect(skipped[0]!.value).toBe('K80');
      expect(skipped[3]!.value).toBe('soon');
    });

    it('throws the first bad row in strict mode', async () => {
      const [jobFile, taskFile] = (await tables(jobs, tasks)) as [string, string];
      const error = await rejection(readAll([jobFile, taskFile], { strict: true }));
      expect(error).toBeInstanceOf(TraceError);
      expect(error).toMatchObject({ file: taskFile, line: 5, column: 'gpu_type', reason: 'unknown GPU type', value: 'K80' });
      const [jobFile2, taskFile2] = (await tables(jobs, tasks.slice(0, 4))) as [string, string];
      const jobError = await rejection(readAll([jobFile2, taskFile2], { strict: true }));
      expect(jobError).toMatchObject({ file: jobFile2, line: 2, column: 'end_time', reason: 'missing column' });
    });
  });

  it('stops after `limit` jobs', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const files = await tables(
      ids.map((id, i) => `${id},i,u,Terminated,${i},${i + 10}`),
      ids.map((id, i) => `${id},worker,1,Terminated,${i},${i + 10},100,1,100,T4`),
    );
    expect((await readAll(files, { limit: 2 })).jobs.map((j) => j.id)).toEqual(['a', 'b']);
    expect((await readAll(files, { limit: 0 })).jobs).toEqual([]);
  });

  it('round-trips writeJobs → readJobs (ids, submit, durations, roles, status, retries)', async () => {
    const jobs = alibabaPaiSampleJobs();
    expect(jobs.some((j) => j.roles.some((r) => r.role === 'ps'))).toBe(true);
    const dir = await caseDir();
    const files = await alibabaPai2020Format.writeJobs!(jobs, dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['pai_job_table.csv', 'pai_task_table.csv', 'pai_instance_table.csv']);
    const strip = (job: JobSpec): Omit<JobSpec, 'source'> => {
      const { source: _source, ...rest } = job;
      return rest;
    };
    const back = await readAll(files, { strict: true });
    expect(back.jobs.map(strip)).toEqual(jobs.map(strip));
    // Without the instance table the jobs are the same but carry no retry count.
    const withoutInstances = await readAll(files.slice(0, 2), { strict: true });
    expect(withoutInstances.jobs.map((j) => j.traceRetries)).toEqual(jobs.map(() => undefined));
  });
});

describe('alibaba-pai-2020 machines', () => {
  it('reads machines with units converted and racks of 32', async () => {
    const dir = await caseDir();
    const lines = ['m-cpu,CPU,96,512,0', 'm-v100,V100,96,384,8', 'm-misc,MISC,96,512,8'];
    for (let i = 0; i < 30; i++) lines.push(`m-p100-${i},P100,64,512,2`);
    const file = await csvFile(dir, 'pai_machine_spec.csv', lines);
    const cluster = await alibabaPai2020Format.readCluster!(file, { limit: Infinity, strict: true, onSkip: () => undefined });
    expect(cluster.nodes).toHaveLength(33);
    expect(cluster.nodes[0]).toEqual({ name: 'm-cpu', group: 'CPU', gpuType: null, gpus: 0, cpuMilli: 96000, memMiB: 524288, rack: 'rack-0' });
    expect(cluster.nodes[1]).toEqual({ name: 'm-v100', group: 'V100', gpuType: 'V100', gpus: 8, cpuMilli: 96000, memMiB: 393216, rack: 'rack-0' });
    expect(cluster.nodes[2]!.gpuType).toBe('MISC');
    expect(cluster.nodes[31]!.rack).toBe('rack-0');
    expect(cluster.nodes[32]!.rack).toBe('rack-1');
  });

  it('skips bad machine rows in non-strict mode', async () => {
    const dir = await caseDir();
    const file = await csvFile(dir, 'pai_machine_spec.csv', ['a,T4,96,512,2', 'b,K80,96,512,2', 'c,T4,96', 'd,T4,-1,512,2', 'a,T4,96,512,2']);
    const skipped: TraceError[] = [];
    const cluster = await alibabaPai2020Format.readCluster!(file, { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) });
    expect(cluster.nodes.map((n) => n.name)).toEqual(['a']);
    expect(skipped.map((s) => [s.line, s.countKey])).toEqual([
      [2, 'gpu_type: unknown GPU type'],
      [3, 'cap_mem: missing column'],
      [4, 'cap_cpu: negative'],
      [5, 'machine: duplicate name'],
    ]);
  });
});

describe('alibaba-pai-2020 committed samples', () => {
  const samples = join(import.meta.dirname, '../../../traces/samples', PAI_2020_SAMPLE_DIR);
  const names = ['pai_job_table.csv', 'pai_task_table.csv', 'pai_instance_table.csv', PAI_MACHINE_SAMPLE_FILE];

  it('parse without a skipped row', async () => {
    const { jobs, skipped } = await readAll(names.slice(0, 3).map((name) => join(samples, name)));
    expect(skipped).toEqual([]);
    expect(jobs).toHaveLength(30);
    expect(jobs.filter((j) => j.roles.some((r) => r.role === 'ps')).length).toBeGreaterThan(5);
    expect(jobs.some((j) => (j.traceRetries ?? 0) > 0)).toBe(true);
    const skippedMachines: TraceError[] = [];
    const cluster = await alibabaPai2020Format.readCluster!(join(samples, PAI_MACHINE_SAMPLE_FILE), {
      limit: Infinity,
      strict: false,
      onSkip: (e) => skippedMachines.push(e),
    });
    expect(skippedMachines).toEqual([]);
    expect(cluster).toEqual(alibabaPaiSampleCluster());
  });

  it('are what writeAlibabaSamples makes today', async () => {
    const fresh = await caseDir();
    await writeAlibabaSamples(fresh);
    for (const name of names) {
      expect(await readFile(join(fresh, PAI_2020_SAMPLE_DIR, name), 'utf8'), name).toBe(await readFile(join(samples, name), 'utf8'));
    }
  });
});

const machinePath = sharedTrace('alibaba-pai-v2020/pai_machine_spec.csv');
describe.skipIf(machinePath === null)('alibaba-pai-2020 real machine list', () => {
  // The per-type counts of the traces README (P100 798, T4 497, MISC 280, V100M32 135, V100 104,
  // CPU 83) sum to 1,897, the file's row count; its "1,896 machines" total is one short.
  it('reads 1,897 machines: P100 798, T4 497, MISC 280, V100M32 135, V100 104, CPU 83', async () => {
    const cluster = await alibabaPai2020Format.readCluster!(machinePath!, { limit: Infinity, strict: true, onSkip: () => undefined });
    expect(cluster.nodes).toHaveLength(1897);
    const byGroup = new Map<string, number>();
    for (const node of cluster.nodes) byGroup.set(node.group, (byGroup.get(node.group) ?? 0) + 1);
    expect(Object.fromEntries(byGroup)).toEqual({ P100: 798, T4: 497, MISC: 280, V100M32: 135, V100: 104, CPU: 83 });
    const cpuNodes = cluster.nodes.filter((n) => n.group === 'CPU');
    expect(cpuNodes.every((n) => n.gpus === 0 && n.gpuType === null && n.cpuMilli === 96000 && n.memMiB === 512 * 1024)).toBe(true);
    const p100 = cluster.nodes.find((n) => n.group === 'P100')!;
    expect(p100).toMatchObject({ gpuType: 'P100', gpus: 2, cpuMilli: 64000, memMiB: 512 * 1024 });
    expect(cluster.nodes.reduce((sum, n) => sum + n.gpus, 0)).toBe(280 * 8 + 798 * 2 + 497 * 2 + 104 * 8 + 135 * 8);
    expect(cluster.nodes.at(-1)!.rack).toBe(`rack-${Math.floor(1895 / 32)}`);
  });
});
