import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { readAutoscaleCsv, readGanttCsv, readJobsCsv, readTimelineFaults, readUsageCsv } from '../../../src/report/report-readers.js';

const JOBS = [
  'id,kind,state,jctS,queuedS,gpus,productiveS,lostGpuHours,checkpointingS,detectingS,reschedulingS,healthCheckS,loadingS,startingS,resizingS,failureReason',
  'a,batch,completed,300,20,2,3600,0.5,360,36,0,0,0,18,0,',
  'b,batch,completed,100,0,1,0,0,0,0,0,0,0,0,0,',
  'c,batch,failed,,50,4,1800,1,0,900,450,0,90,0,0,"fault, twice"',
].join('\n');

describe('report readers', () => {
  it('read jobs.csv into sorted JCTs and waits of completed jobs and GPU-hours per part', () => {
    const jobs = readJobsCsv(JOBS, 'x/jobs.csv');
    expect(jobs.jobs).toBe(3);
    expect([...jobs.jctS]).toEqual([100, 300]);
    expect([...jobs.waitS]).toEqual([0, 20]);
    expect(jobs.timeSplitGpuH.productive).toBeCloseTo(2 + 2, 9);
    expect(jobs.timeSplitGpuH.lost).toBeCloseTo(1.5, 9);
    expect(jobs.timeSplitGpuH.checkpoint).toBeCloseTo(0.2, 9);
    expect(jobs.timeSplitGpuH.detection).toBeCloseTo(0.02 + 1, 9);
    expect(jobs.timeSplitGpuH.rescheduling).toBeCloseTo(0.5, 9);
    expect(jobs.timeSplitGpuH.loading).toBeCloseTo(0.1, 9);
    expect(jobs.timeSplitGpuH['starting / resizing']).toBeCloseTo(0.01, 9);
  });

  it('name the file and line of a bad value, and the file of a missing column', () => {
    const bad = JOBS.replace('a,batch,completed,300', 'a,batch,completed,soon');
    expect(() => readJobsCsv(bad, 'x/jobs.csv')).toThrow(ConfigError);
    expect(() => readJobsCsv(bad, 'x/jobs.csv')).toThrow(/x\/jobs\.csv:2 \(jctS\)/);
    expect(() => readJobsCsv('id,state\na,completed\n', 'x/jobs.csv')).toThrow(/x\/jobs\.csv: the header lacks jctS/);
    expect(() => readJobsCsv('', 'x/jobs.csv')).toThrow(/empty file/);
    expect(() => readJobsCsv(`${JOBS}\nd,batch,completed,1\n`, 'x/jobs.csv')).toThrow(/x\/jobs\.csv: not a CSV file dlsim wrote/);
  });

  it('read usage.csv, gantt.csv, autoscale.csv and the faults of timeline.csv', () => {
    const usage = readUsageCsv('timeS,binS,allocatedGpus,busyGpus,totalGpus,allocatedCpuMilli,pendingJobs,runningJobs,dataWorkers\n0,30,8,6.5,32,1000,2,1,0\n', 'u.csv');
    expect(usage).toEqual([{ timeS: 0, binS: 30, allocatedGpus: 8, busyGpus: 6.5, totalGpus: 32, allocatedCpuMilli: 1000, pendingJobs: 2, runningJobs: 1, dataWorkers: 0 }]);
    expect(readGanttCsv('jobId,state,fromS,toS\nj,queued,0,5\n', 'g.csv')).toEqual([{ jobId: 'j', state: 'queued', fromS: 0, toS: 5 }]);
    expect(readAutoscaleCsv('jobId,timeS,workers,ps,stepsPerS\nj,30,4,2,1.5\n', 'a.csv')).toEqual([{ jobId: 'j', timeS: 30, workers: 4, ps: 2, stepsPerS: 1.5 }]);
    const timeline = 'timeS,event,faultType,node,gpu,job,detail\n10,fault,xid-79,n1,0,,\n20,repair,xid-79,n1,0,,\n30,data-workers,,,,,3 data workers\n';
    expect(readTimelineFaults(timeline, 't.csv')).toEqual([{ timeS: 10, faultType: 'xid-79' }]);
  });
});
