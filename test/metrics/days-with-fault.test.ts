import { describe, expect, it } from 'vitest';
import { loadCatalog, totalRatePerGpuDay } from '../../src/faults/catalog.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { simulate } from '../../src/sim/simulation.js';
import { allreduceJob, faultType, gpuCluster, scenarioOf } from '../helpers.js';

const DAY_S = 86_400;
const CRASH = faultType('software-bug', { kind: 'crash' });
const HANG = faultType('nccl-timeout', { kind: 'hang' });
const SLOW = faultType('thermal', { kind: 'slowdown', factor: 0.9 });
const GPU_DOWN = faultType('gpu-dbe', { kind: 'gpu-down' });

/** An 8-GPU all-reduce job (one worker) of `days` days of 1 s steps that checkpoints every 10 min. */
function job(days: number) {
  return allreduceJob('job', { workers: 1, totalSteps: days * DAY_S, checkpoint: { intervalS: 600, saveS: 10, loadS: 60, flash: false } });
}

describe('faults.daysWithFault: the share of a job\'s days on which a fault hit it', () => {
  it('counts crashes, hangs and slowdowns on the job, over the job\'s own life, and not faults on idle hardware', () => {
    // The job holds node 0 and lives about 10 days of a 30-day horizon. Faults hit it on days
    // 1, 3 and 5 (a crash, a hang, a slowdown); node 1 is idle and loses GPUs on days 2, 4, 6 and 20.
    const onJob = [
      { timeS: 1.5 * DAY_S, type: CRASH, nodeIndex: 0, gpuIndex: 0, repairS: 0 },
      { timeS: 3.5 * DAY_S, type: HANG, nodeIndex: 0, gpuIndex: 1, repairS: 0 },
      { timeS: 5.5 * DAY_S, type: SLOW, nodeIndex: 0, gpuIndex: 2, repairS: 3600 },
    ];
    const idle = [2, 4, 6, 20].map((day) => ({ timeS: (day + 0.5) * DAY_S, type: GPU_DOWN, nodeIndex: 1, gpuIndex: 0, repairS: 3600 }));
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(2, 8), [job(10)], { policy: 'dlrover', horizonS: 30 * DAY_S }),
      faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [...onJob, ...idle].sort((a, b) => a.timeS - b.timeS), hangTimeoutS: 600 },
    };
    const result = simulate(scenario);
    const [j] = result.jobs;
    expect(j!.phase).toBe('completed');
    expect(result.summary.faults.total).toBe(7);
    const wholeDays = Math.floor((j!.endS! - j!.firstStartS!) / DAY_S);
    expect(wholeDays).toBeGreaterThanOrEqual(10);
    expect(result.endS).toBeGreaterThan(20 * DAY_S);
    expect(result.summary.faults.daysWithFault).toBeCloseTo(3 / wholeDays, 6);
  });

  it('is 0 when no job lived a whole day', () => {
    const crash = { timeS: 100, type: CRASH, nodeIndex: 0, gpuIndex: 0, repairS: 0 };
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(1, 8), [job(0.5)], { policy: 'dlrover' }),
      faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [crash], hangTimeoutS: 600 },
    };
    expect(simulate(scenario).summary.faults.daysWithFault).toBe(0);
  });

  it('for an 8-GPU job on a 1,000-GPU cluster under ant-2023, matches 1 - exp(-8 x the catalog\'s rate per GPU-day) over 30 seeds', () => {
    const catalog = loadCatalog('ant-2023');
    const expected = 1 - Math.exp(-8 * totalRatePerGpuDay(catalog, 8));
    const days = 60;
    let withFault = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const scenario: Scenario = {
        ...scenarioOf(gpuCluster(125, 8, 125), [job(1000)], { policy: 'dlrover', seed, horizonS: days * DAY_S }),
        faults: { catalog, replay: [], hangTimeoutS: 600 },
      };
      const { summary } = simulate(scenario);
      // Dozens of faults take effect in the cluster; the job meets only those on its node.
      expect(summary.faults.total).toBeGreaterThan(30);
      withFault += summary.faults.daysWithFault * days;
    }
    const share = withFault / (30 * days);
    // 1,800 job-days: binomial sd ~ sqrt(p(1-p)/1800) ~ 0.34 points; the range is about +-4 sd.
    const sd = Math.sqrt((expected * (1 - expected)) / (30 * days));
    expect(share).toBeGreaterThan(expected - 4 * sd);
    expect(share).toBeLessThan(expected + 4 * sd);
  });
});
