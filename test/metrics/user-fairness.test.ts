import { describe, expect, it } from 'vitest';
import { zeroJobRecord, type JobRecord } from '../../src/metrics/job-record.js';
import { roundRatio, roundS } from '../../src/metrics/summary.js';
import { jainIndex, MAX_LISTED_USERS, userFairness } from '../../src/metrics/user-fairness.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

/** A job of `user` submitted at `submitS` that ran alone `aloneS` and ended at `endS` (null: unfinished). */
function job(user: string, submitS: number, aloneS: number, endS: number | null): JobRecord {
  return zeroJobRecord({ phase: endS === null ? 'running' : 'completed', spec: { submitS, user }, firstStartS: submitS, endS, runAloneS: () => aloneS });
}

describe("Jain's fairness index", () => {
  it('is 1 for equal shares and 1/n when one of n gets everything', () => {
    expect(jainIndex([3, 3, 3, 3])).toBe(1);
    expect(jainIndex([5, 0, 0, 0])).toBe(1 / 4);
    expect(jainIndex([7])).toBe(1);
    expect(jainIndex([])).toBe(1);
    // (1 + 3)^2 / (2 (1 + 9)) = 16 / 20.
    expect(jainIndex([1, 3])).toBeCloseTo(0.8, 12);
  });
});

describe('per-user JCT and fairness', () => {
  it("averages each user's JCT and slowdown (JCT / run time alone) and takes Jain's index over users' slowdowns", () => {
    const { fairness, perUser } = userFairness(
      [
        job('alice', 0, 100, 100), // slowdown 1
        job('alice', 0, 100, 300), // slowdown 3
        job('bob', 50, 100, 250), // slowdown 2
        job('bob', 0, 100, null), // unfinished: counted as a job, not in the times
      ],
      roundS,
      roundRatio,
    );
    // Users' slowdowns 2 and 2: even.
    expect(fairness).toEqual({ users: 2, jainSlowdown: 1, slowdownMean: 2 });
    expect(perUser.top).toEqual([
      { user: 'alice', jobs: 2, completed: 2, jctMeanS: 200, slowdownMean: 2 },
      { user: 'bob', jobs: 2, completed: 1, jctMeanS: 200, slowdownMean: 2 },
    ]);
    expect(perUser.other).toBeNull();
    // carol slowed down 10x, the others not at all: (1 + 1 + 10)^2 / (3 (1 + 1 + 100)).
    const skewed = userFairness([job('a', 0, 10, 10), job('b', 0, 10, 10), job('carol', 0, 10, 100)], roundS, roundRatio).fairness;
    expect(skewed.jainSlowdown).toBeCloseTo(144 / 306, 6);
  });

  it(`lists at most ${MAX_LISTED_USERS} users, most jobs first, and sums up the rest as "other"`, () => {
    const jobs: JobRecord[] = [];
    for (let u = 0; u < MAX_LISTED_USERS + 3; u++) for (let k = 0; k <= (u < MAX_LISTED_USERS ? 1 : 0); k++) jobs.push(job(`u${String(u).padStart(2, '0')}`, 0, 10, 20));
    const { fairness, perUser } = userFairness(jobs, roundS, roundRatio);
    expect(perUser.top).toHaveLength(MAX_LISTED_USERS);
    expect(perUser.top[0]).toEqual({ user: 'u00', jobs: 2, completed: 2, jctMeanS: 20, slowdownMean: 2 });
    expect(perUser.other).toEqual({ users: 3, jobs: 3, completed: 3, jctMeanS: 20, slowdownMean: 2 });
    expect(fairness.users).toBe(MAX_LISTED_USERS + 3);
  });

  it('is in the summary of a simulated run: a job alone on the cluster has slowdown 1', () => {
    const summary = simulate(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100), batchJob('b', 0, 8, 100)])).summary;
    // a runs 0-100 (slowdown 1), b waits and runs 100-200 (slowdown 2); both of user "".
    expect(summary.fairness).toEqual({ users: 1, jainSlowdown: 1, slowdownMean: 1.5 });
    expect(summary.perUser.top).toEqual([{ user: '', jobs: 2, completed: 2, jctMeanS: 150, slowdownMean: 1.5 }]);
  });
});
