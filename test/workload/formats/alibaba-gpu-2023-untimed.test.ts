import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIME_S } from '../../../src/model/limits.js';
import { alibabaGpu2023Format } from '../../../src/workload/formats/alibaba-gpu-2023.js';
import { readCheckedJobs } from '../../../src/workload/checked-jobs.js';
import { readAllJobs, writeLines } from './format-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-openb-untimed-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('alibaba-gpu-2023 pod lists without times', () => {
  it('reads name,cpu_milli,memory_mib,num_gpu,gpu_milli: every pod submitted at 0, in file order, untimed', async () => {
    const file = await writeLines(dir, 'openb_pod_list_notime.csv', [
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli',
      'pod-c,20000,65536,0,0',
      'pod-a,12000,16384,1,1000',
      'pod-b,6000,12288,1,460',
      'pod-d,88000,327680,8,1000',
    ]);
    const { jobs, skipped } = await readAllJobs(alibabaGpu2023Format, [file]);
    expect(skipped).toEqual([]);
    expect(jobs.map((j) => j.id)).toEqual(['pod-c', 'pod-a', 'pod-b', 'pod-d']);
    for (const job of jobs) {
      expect(job).toMatchObject({ kind: 'batch', submitS: 0, untimed: true, gpuTypes: [] });
      // No run time of its own: it stays as long as the simulator's clock reaches.
      expect(job.totalSteps).toBe(MAX_TIME_S);
      expect(job.traceStatus).toBeUndefined();
    }
    expect(jobs[2]!.roles[0]!.demand).toEqual({ gpus: 1, gpuMilli: 460, cpuMilli: 6000, memMiB: 12288 });
    expect(jobs[0]!.roles[0]!.demand.gpus).toBe(0);
  });

  it('takes gpu_spec when the list has it, and holds the jobs to the native bounds', async () => {
    const file = await writeLines(dir, 'openb_pod_list_notime_spec.csv', [
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec',
      'p1,4000,8192,1,500,V100M16|V100M32',
      'p2,4000,8192,2,1000,',
    ]);
    const jobs = [];
    for await (const job of readCheckedJobs(alibabaGpu2023Format, [file], { limit: Infinity, strict: true, onSkip: () => undefined })) jobs.push(job);
    expect(jobs.map((j) => [j.id, j.gpuTypes, j.submitS])).toEqual([
      ['p1', ['V100M16', 'V100M32'], 0],
      ['p2', [], 0],
    ]);
  });

  it('a list with times is not untimed', async () => {
    const file = await writeLines(dir, 'openb_pod_list_timed.csv', ['name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time', 'p,1000,1024,1,1000,5,65']);
    const { jobs } = await readAllJobs(alibabaGpu2023Format, [file]);
    expect(jobs[0]).toMatchObject({ submitS: 5, totalSteps: 60 });
    expect(jobs[0]!.untimed).toBeUndefined();
  });
});
