import { describe, expect, it } from 'vitest';
import { reportHtml } from '../../../src/report/html/page.js';
import { memorySource, runReportData } from '../../../src/report/report-folder.js';
import { MAX_USAGE_BINS } from '../../../src/sim/usage-recorder.js';

const JOB_HEADER = 'id,kind,submitS,startS,endS,jctS,queueS,state,gpus,restarts,queuedS,productiveS,lostGpuHours,checkpointingS,detectingS,reschedulingS,healthCheckS,loadingS,startingS,resizingS';

/** A run folder's files as a big run would leave them: `jobs` rows of jobs.csv, every other file at its cap. */
function bigRun(jobs: number): [string, string][] {
  const lines = [JOB_HEADER];
  for (let i = 0; i < jobs; i++) {
    const wait = (i * 7919) % 86_400;
    const jct = wait + 60 + ((i * 104_729) % 400_000);
    lines.push(`job-${i},batch,${i},${i + wait},${i + jct},${jct},${wait},${i % 97 === 0 ? 'failed' : 'completed'},${1 + (i % 8)},0,${wait},${jct - wait},0.01,5,1,2,0,3,1,0`);
  }
  const usage = ['timeS,binS,allocatedGpus,busyGpus,totalGpus,allocatedCpuMilli,pendingJobs,runningJobs,dataWorkers'];
  for (let b = 0; b < MAX_USAGE_BINS; b++) usage.push(`${b * 480},480,${(b * 37) % 16_000},${(b * 31) % 16_000},16000,${b * 1000},${b % 5000},${b % 3000},${b % 40}`);
  const gantt = ['jobId,state,fromS,toS'];
  const states = ['queued', 'running', 'detecting', 'rescheduling', 'loading', 'running', 'checkpointing'];
  for (let j = 0; j < 200; j++) for (let k = 0; k < 60; k++) gantt.push(`job-${j * 5000},${states[k % states.length]},${j * 100 + k * 1000},${j * 100 + k * 1000 + 900}`);
  const timeline = ['timeS,event,faultType,node,gpu,job,detail'];
  for (let f = 0; f < 100_000; f++) timeline.push(`${f * 9.6},fault,type-${f % 12},node-${f % 2000},${f % 8},,`);
  const autoscale = ['jobId,timeS,workers,ps,stepsPerS'];
  for (let j = 0; j < 50; j++) for (let k = 0; k < 200; k++) autoscale.push(`ps-${j},${k * 300},${1 + (k % 16)},${1 + (k % 4)},${(k % 50) / 3}`);
  const summary = JSON.stringify({ scenario: 'big', policy: 'fifo', seed: 1, jctS: { mean: 1 }, perf: { wallS: 98765.4321, eventsPerS: 13579 } });
  const csv = (rows: string[]): string => `${rows.join('\n')}\n`;
  return [
    ['jobs.csv', csv(lines)],
    ['usage.csv', csv(usage)],
    ['gantt.csv', csv(gantt)],
    ['timeline.csv', csv(timeline)],
    ['autoscale.csv', csv(autoscale)],
    ['summary.json', summary],
  ];
}

describe('report size', () => {
  it('stays under 5 MB for a big run, and does not grow with the jobs (CDFs from quantiles, series binned)', () => {
    const big = reportHtml(runReportData(memorySource(bigRun(300_000)), 'big'));
    const small = reportHtml(runReportData(memorySource(bigRun(3_000)), 'small'));
    console.log(`report of 300,000 jobs: ${big.length} bytes (3,000 jobs: ${small.length})`);
    expect(big.length).toBeLessThan(5_000_000);
    expect(Math.abs(big.length - small.length)).toBeLessThan(0.05 * small.length);
    expect(big).toContain('<svg data-chart="jct-cdf"');
    // The perf of summary.json (wall time) is left out: the report is a pure function of the run.
    expect(big).not.toMatch(/98765|13579/);
  }, 120_000);
});
