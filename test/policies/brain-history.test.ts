import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/io/history-db.js';
import { brainHistoryOf, historyUsageOf } from '../../src/policies/autoscale/brain-history.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { RunHistory } from '../../src/sim/history.js';
import { simulate } from '../../src/sim/simulation.js';
import { folderWith } from '../cli-run.js';

const NO_ROLE = { replicas: 0, cpuMilli: 0, memMiB: 0 };

/** A record with the given sampled usage. */
function recordWith(usage: HistoryRecord['usage'], psTotals: HistoryRecord['psTotals']): HistoryRecord {
  return {
    jobId: 'j',
    user: 'alice',
    dataset: 'criteo',
    finishedAtS: 100,
    runLabel: 'r',
    shape: { ps: NO_ROLE, worker: NO_ROLE, chief: NO_ROLE },
    usage,
    psTotals,
    meanStepsPerS: 1,
    finalStepsPerS: 1,
    totalSteps: 1,
    samples: [],
  };
}

describe('the brain service reads the history', () => {
  it('takes the PS totals, one PS at its largest and the larger of worker and chief', () => {
    const record = recordWith(
      { ps: { maxCpuCores: 5, meanCpuCores: 4, maxMemMiB: 900 }, worker: { maxCpuCores: 2, meanCpuCores: 1, maxMemMiB: 3000 }, chief: { maxCpuCores: 3, meanCpuCores: 2, maxMemMiB: 1000 } },
      { meanCpuCores: 8, maxCpuCores: 10, maxMemMiB: 1800 },
    );
    expect(historyUsageOf(record)).toEqual({ meanTotalPsCpuCores: 8, maxPsCpuCores: 5, maxTotalPsMemMiB: 1800, maxWorkerCpuCores: 3, maxWorkerMemMiB: 3000 });
  });

  it('leaves out records without sampled PS or workers', () => {
    const ps = { maxCpuCores: 5, meanCpuCores: 4, maxMemMiB: 900 };
    const totals = { meanCpuCores: 8, maxCpuCores: 10, maxMemMiB: 1800 };
    const unsampled = recordWith({ ps: null, worker: null, chief: null }, null);
    const noWorkers = recordWith({ ps, worker: null, chief: null }, totals);
    const chiefOnly = recordWith({ ps, worker: null, chief: { maxCpuCores: 3, meanCpuCores: 2, maxMemMiB: 1000 } }, totals);
    expect(historyUsageOf(unsampled)).toBeNull();
    expect(historyUsageOf(noWorkers)).toBeNull();
    const view = { similar: () => [unsampled, noWorkers, chiefOnly] };
    expect(brainHistoryOf(view).similar('alice', 'criteo', 1, 0)).toEqual([historyUsageOf(chiefOnly)]);
  });

  it('sizes a cluster-mode job from the previous run of the same user and dataset', async () => {
    const dir = folderWith({
      'deepfm.yaml': [
        'name: deepfm-days',
        'policy: dlrover',
        'history: history.sqlite',
        'cluster:',
        '  nodes: [{group: cpu, count: 4, cpuCores: 32, memGiB: 128}]',
        'workload:',
        '  jobs:',
        '    - {id: deepfm, kind: ps, user: alice, dataset: criteo, optimizeMode: cluster, replicas: 1, cpuCores: 3, memGiB: 4,',
        '       ps: {cpuCores: 3, memGiB: 4}, elastic: {min: 1, max: 60}, steps: 200000, speed: {t0: 0.033, t1: 0.00033, t2: 0, t3: 0}}',
        '',
      ].join('\n'),
    });
    const scenario = await loadScenario(join(dir, 'deepfm.yaml'), { knownPolicies: presetNames() });
    const createReasons: string[] = [];
    for (const label of ['day 1', 'day 2']) {
      const history = await RunHistory.open(scenario.history!);
      const result = simulate(scenario, { history: history.view });
      expect(result.summary.jobs.completed).toBe(1);
      createReasons.push(result.scalePlans.find((plan) => plan.ownerJob === 'deepfm' && plan.seq === 0)!.reason);
      history.record(result, label);
      history.save();
      history.close();
    }
    expect(createReasons).toEqual(['create: cold plan: no job of this user and dataset in the last 7 days', 'create: from 1 job(s) of this user and dataset in the last 7 days']);
  });
});
