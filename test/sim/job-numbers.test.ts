import { describe, expect, it } from 'vitest';
import { JobNumbers, JobRuntime } from '../../src/sim/job-runtime.js';
import { batchJob } from '../helpers.js';

const clock = { nowS: 0 };

describe('job numbers', () => {
  it('reads the first values of the numbers only some jobs need until a job changes one', () => {
    const job = new JobRuntime(batchJob('a', 0, 1, 100), 1, clock, new JobNumbers(1));
    expect(job.lastFaultDay).toBe(-1);
    expect(job.checkpointIntervalS).toBe(Infinity);
    expect(job.preprocessingFactor).toBe(1);
    expect(job.restarts).toBe(0);
    expect(job.lostGpuS).toBe(0);
    expect(job.pausedS).toBe(0);
  });

  it('keeps each job its own cold numbers, over more jobs than one chunk of them holds', () => {
    const count = 2500;
    const store = new JobNumbers(count);
    const jobs = Array.from({ length: count }, (_, k) => new JobRuntime(batchJob(`j${k}`, 0, 1, 100), 1, clock, store));
    // Every third job changes its numbers; setting a number to its first value takes no block.
    jobs.forEach((job, k) => {
      if (k % 3 === 0) {
        job.restarts = k;
        job.lastFaultDay = k + 1;
        job.pausedS = k / 2;
      } else {
        job.lastFaultDay = -1;
      }
      job.queuePosition = k;
    });
    jobs.forEach((job, k) => {
      expect(job.queuePosition).toBe(k);
      expect(job.restarts).toBe(k % 3 === 0 ? k : 0);
      expect(job.lastFaultDay).toBe(k % 3 === 0 ? k + 1 : -1);
      expect(job.pausedS).toBe(k % 3 === 0 ? k / 2 : 0);
      expect(job.checkpointIntervalS).toBe(Infinity);
      expect(job.preprocessingFactor).toBe(1);
    });
  });
});

describe('job extras', () => {
  it('reads the first values of what only some jobs use, and keeps each job its own once changed', () => {
    const store = new JobNumbers(3);
    const [a, b, c] = ['a', 'b', 'c'].map((id) => new JobRuntime(batchJob(id, 0, 1, 100), 1, clock, store)) as [JobRuntime, JobRuntime, JobRuntime];
    a.hung = true;
    a.failureReason = 'fault';
    a.pauseSteps = [{ kind: 'detecting', seconds: 5 }];
    // Set to its first value: nothing changes.
    b.crashed = false;
    b.shards = null;
    for (const job of [b, c]) {
      expect(job.hung).toBe(false);
      expect(job.crashed).toBe(false);
      expect(job.failureReason).toBeNull();
      expect(job.pauseSteps).toEqual([]);
      expect(job.shards).toBeNull();
      expect(job.psRanked).toEqual([]);
    }
    expect(a.hung).toBe(true);
    expect(a.crashed).toBe(false);
    expect(a.failureReason).toBe('fault');
    expect(a.pauseSteps).toEqual([{ kind: 'detecting', seconds: 5 }]);
  });
});

describe('what an ended job keeps', () => {
  it('keeps its request while it lives, and makes it afresh for each read once it ended', () => {
    const job = new JobRuntime(batchJob('a', 0, 1, 100), 1, clock, new JobNumbers(1));
    const living = job.request;
    expect(job.request).toBe(living);
    job.phase = 'completed';
    const first = job.request;
    expect(first).toEqual(living);
    // Not kept: a policy reading an ended job's request leaves nothing behind for a million jobs.
    expect(job.request).not.toBe(first);
    expect(job.truth).toEqual(job.truth);
    expect(job.truth).not.toBe(job.truth);
  });
});
