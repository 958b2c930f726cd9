import { describe, expect, it } from 'vitest';
import type { JobRequest } from '../../src/model/job-spec.js';
import type { UsageSample } from '../../src/model/usage.js';
import type { JobReading } from '../../src/policies/autoscale/brain-plan.js';
import { brainCreate, brainRunning } from '../../src/policies/autoscale/brain-service.js';
import { BRAIN_SERVICE, JOB_MASTER } from '../../src/policies/autoscale/dlrover-constants.js';
import { localCreate, localInitial, localRunning, memoryHotPs } from '../../src/policies/autoscale/local-optimizer.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';
import { join } from 'node:path';
import { folderWith } from '../cli-run.js';

const REQUEST = { id: 'j', kind: 'ps', declaredSteps: null } as unknown as JobRequest;

/** A record of a job with `workers` workers using `workerCpu` cores each and PS using `psCpu` cores and `psMem` MiB of `psHeld` cores and `psMemHeld` MiB. */
function record(atS: number, stepsPerS: number, workers: number, workerCpu: number, ps: readonly { cpu: number; mem: number; heldCpu: number; heldMem: number }[]): UsageSample {
  return {
    atS,
    stepsPerS,
    roles: [
      { role: 'worker', replicas: workers, cpuUsedCores: workerCpu, memUsedMiB: 2000 },
      {
        role: 'ps',
        replicas: ps.length,
        cpuUsedCores: ps.reduce((s, p) => s + p.cpu, 0) / ps.length,
        memUsedMiB: Math.max(...ps.map((p) => p.mem)),
        perReplica: ps.map((p) => ({ cpuUsedCores: p.cpu, memUsedMiB: p.mem, cpuHeldCores: p.heldCpu, memHeldMiB: p.heldMem })),
      },
    ],
  };
}

function reading(records: UsageSample[], overrides: Partial<JobReading> = {}): JobReading {
  return {
    request: REQUEST,
    nowS: 600,
    records,
    workers: 1,
    workerCpuMilli: 3000,
    workerMemMiB: 6000,
    psCpuMilli: [3000],
    psMemMiB: [6000],
    limitCpuMilli: 15_000,
    limitMemMiB: 30_000,
    beforeLastAddition: null,
    progressSteps: 0,
    ...overrides,
  };
}

describe('the local optimizer (single-job mode)', () => {
  it('creates 1 PS and 1 worker of min(ceil(limit/5), 16 cores) and min(ceil(limit/5), 8 GiB)', () => {
    expect(localCreate(15_000, 30_000)).toEqual({ ps: { replicas: 1, cpuMilli: 3000, memMiB: 6000 }, worker: { replicas: 1, cpuMilli: 3000, memMiB: 6000 } });
    expect(localCreate(200_000, 200_000)).toEqual({ ps: { replicas: 1, cpuMilli: 16_000, memMiB: 8192 }, worker: { replicas: 1, cpuMilli: 16_000, memMiB: 8192 } });
  });

  it('estimates workers as limit / (PS CPU per worker + worker CPU) and the PS the rest of the budget takes', () => {
    // The seed's DeepFM: 15 cores, a 3-core chief busy, its PS using 0.3 cores: 4 workers, 1 PS.
    const records = [0, 30, 60, 90, 120].map((t) => record(t, 30, 1, 2.9, [{ cpu: 0.3, mem: 1000, heldCpu: 3, heldMem: 6000 }]));
    const plan = localInitial(reading(records));
    expect(plan.workers?.replicas).toBe(4);
    expect(plan.ps).toBeUndefined();
    // A PS-heavy job: 2 PS cores per worker: 15 / 5 = 3 workers, and (15 - 9) / 3 = 2 PS.
    const heavy = [0, 30, 60].map((t) => record(t, 30, 1, 2.9, [{ cpu: 2, mem: 1000, heldCpu: 3, heldMem: 6000 }]));
    const heavyPlan = localInitial(reading(heavy));
    expect(heavyPlan.workers?.replicas).toBe(3);
    expect(heavyPlan.ps?.replicas).toBe(2);
  });

  it('adds workers towards 0.9 PS utilisation within the budget, none when a PS is busy or the last addition paid little', () => {
    const at = (util: number) => [0, 30, 60].map((t) => record(t, 60, 2, 2.9, [{ cpu: util * 3, mem: 1000, heldCpu: 3, heldMem: 6000 }]));
    expect(localRunning(reading(at(0.3), { workers: 2, limitCpuMilli: 60_000 }), false)?.workers?.replicas).toBe(6);
    expect(localRunning(reading(at(0.3), { workers: 2 }), false)?.workers?.replicas).toBe(4);
    expect(localRunning(reading(at(0.96), { workers: 2, limitCpuMilli: 60_000 }), false)).toBeNull();
    const paidLittle = reading(at(0.3), { workers: 2, limitCpuMilli: 60_000, beforeLastAddition: { stepsPerS: 57, workers: 1 } });
    expect(localRunning(paidLittle, false)).toBeNull();
  });

  it('makes every PS bigger when one is hot, if a PS change is allowed', () => {
    const hot = [0, 30, 60].map((t) => record(t, 60, 2, 2.9, [{ cpu: 2.85, mem: 1000, heldCpu: 3, heldMem: 6000 }]));
    const plan = localRunning(reading(hot, { workers: 2, limitCpuMilli: 60_000 }), true);
    expect(plan?.migrate?.[0]?.cpuMilli).toBeGreaterThan(3000);
    expect(localRunning(reading(hot, { workers: 2, limitCpuMilli: 60_000 }), false)?.migrate).toBeUndefined();
  });

  it('sees OOM risk when a PS used over 0.9 of its memory in each of the last 3 records', () => {
    const near = (mem: number) => record(0, 30, 1, 2.9, [{ cpu: 0.3, mem, heldCpu: 3, heldMem: 6000 }]);
    expect(memoryHotPs(reading([near(5500), near(5500), near(5500)]))).toEqual([{ rank: 0, cpuMilli: 3000, memMiB: 12_000 }]);
    expect(memoryHotPs(reading([near(5000), near(5500), near(5500)]))).toEqual([]);
    expect(memoryHotPs(reading([near(5500), near(5500)]))).toEqual([]);
  });
});

describe('the brain service (cluster mode)', () => {
  it('starts from the cold plan without history, and from history otherwise', () => {
    const cold = brainCreate([]);
    expect(cold.ps).toEqual({ replicas: BRAIN_SERVICE.coldPs, cpuMilli: 12_000, memMiB: 16_384 });
    const warm = brainCreate([{ meanTotalPsCpuCores: 10, maxPsCpuCores: 4, maxTotalPsMemMiB: 8000, maxWorkerCpuCores: 6, maxWorkerMemMiB: 4000 }]);
    // PS CPU = 4 + 4 = 8; total = 10 x 1.5 = 15: 2 PS; memory 8000 / 2 x 1.2.
    expect(warm.ps).toEqual({ replicas: 2, cpuMilli: 8000, memMiB: 4800 });
    expect(warm.worker.cpuMilli).toBe(12_000);
  });

  it('removes 4 workers when a PS is exhausted and adds at most 4 a round under 0.8', () => {
    const at = (util: number) => [0, 30, 60].map((t) => record(t, 60, 8, 2.9, [{ cpu: util * 12, mem: 1000, heldCpu: 12, heldMem: 16_384 }]));
    const base = { workers: 8, psCpuMilli: [12_000], psMemMiB: [16_384], limitCpuMilli: Infinity };
    expect(brainRunning(reading(at(0.97), base), false)?.workers?.replicas).toBe(8 - BRAIN_SERVICE.workersRemoved);
    expect(brainRunning(reading(at(0.2), base), false)?.workers?.replicas).toBe(8 + BRAIN_SERVICE.maxWorkersAdded);
    expect(brainRunning(reading(at(0.7), base), false)?.workers?.replicas).toBe(Math.ceil((0.8 / 0.7) * 8));
    expect(brainRunning(reading(at(0.2), { ...base, workers: JOB_MASTER.maxWorkers }), false)).toBeNull();
  });
});

describe('dlrover-brain on the seed\'s DeepFM job', () => {
  it('starts at ~30 steps/s, adds 3 workers after ~3 minutes of training and reaches >= 90 steps/s; static stays at its user\'s sizes', async () => {
    const load = (policy: string) => loadScenario('scenarios/validation/dlrover-deepfm-autoscale.yaml', { policy, knownPolicies: presetNames() });
    const result = simulate(await load('dlrover'));
    const job = result.jobs[0]!;
    const plans = result.scalePlans;
    expect(plans[0]!.reason).toMatch(/^create/);
    expect(plans[0]!.replicaResourceSpecs.ps).toEqual({ replicas: 1, resource: { cpuMilli: 3000, memMiB: 6000 } });
    const added = plans.find((p) => p.createPods.length > 0)!;
    expect(added.atS).toBeGreaterThanOrEqual(180);
    expect(added.atS).toBeLessThanOrEqual(360);
    expect(added.createPods.map((p) => p.name)).toEqual(['deepctr-auto-scale-edljob-worker-0', 'deepctr-auto-scale-edljob-worker-1', 'deepctr-auto-scale-edljob-worker-2']);
    expect(job.maxWorkers).toBe(4);
    expect(job.firstStepsPerS).toBeGreaterThan(28);
    expect(job.firstStepsPerS).toBeLessThan(32);
    expect(job.lastRateStepsPerS).toBeGreaterThanOrEqual(90);
    const staticJob = simulate(await load('static')).jobs[0]!;
    expect(staticJob.maxWorkers).toBe(2);
    expect(staticJob.lastRateStepsPerS).toBeLessThan(90);
    expect(staticJob.endS!).toBeGreaterThan(job.endS!);
  });

  it('over seeds 1-20 (the noise of the sampled records varies) adds its workers within 3-6 minutes and reaches 90-130 steps/s from ~30', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const scenario = await loadScenario('scenarios/validation/dlrover-deepfm-autoscale.yaml', { policy: 'dlrover', seed, knownPolicies: presetNames() });
      const result = simulate(scenario);
      const job = result.jobs[0]!;
      const added = result.scalePlans.find((p) => p.createPods.length > 0)!;
      expect(added.atS).toBeGreaterThanOrEqual(180);
      expect(added.atS).toBeLessThanOrEqual(360);
      expect(job.firstStepsPerS).toBeGreaterThan(28);
      expect(job.firstStepsPerS).toBeLessThan(32);
      expect(job.lastRateStepsPerS).toBeGreaterThanOrEqual(90);
      expect(job.lastRateStepsPerS).toBeLessThanOrEqual(130);
    }
  });

  it('runs at ~30 steps/s before its first workers join', async () => {
    const scenario = await loadScenario('scenarios/validation/dlrover-deepfm-autoscale.yaml', { policy: 'dlrover', knownPolicies: presetNames(), sets: ['sim.horizon=150s'] });
    const job = simulate(scenario).jobs[0]!;
    expect(job.maxWorkers).toBe(1);
    expect(job.lastRateStepsPerS).toBeGreaterThan(28);
    expect(job.lastRateStepsPerS).toBeLessThan(32);
  });
});

describe('dlrover-brain on a job without a modelled truth', () => {
  it('starts a cluster-mode job with only its chief training (the chief counts as a worker in the speed model) and grows it', async () => {
    const dir = folderWith({
      's.yaml': [
        'name: chief-only',
        'policy: dlrover',
        'cluster:',
        '  nodes: [{group: cpu, count: 4, cpuCores: 64, memGiB: 256}]',
        'workload:',
        '  jobs:',
        '    - {id: j, kind: ps, user: u, optimizeMode: cluster, resourceLimits: {cpuCores: 64, memGiB: 256}, replicas: 1, cpuCores: 4, memGiB: 8,',
        '       chief: {replicas: 1, cpuCores: 4, memGiB: 8}, ps: {replicas: 1, cpuCores: 4, memGiB: 8}, elastic: {min: 0, max: 60},',
        '       steps: 100000, speed: {t0: 0.1, t1: 0.01, t2: 0, t3: 0}}',
        '',
      ].join('\n'),
    });
    const result = simulate(await loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() }));
    expect(result.summary.jobs.completed).toBe(1);
    const create = result.scalePlans[0]!;
    expect(create.replicaResourceSpecs.worker?.replicas).toBe(0);
    expect(create.psHosts).toEqual(['j-edljob-ps-0.dlrover.svc:2222', 'j-edljob-ps-1.dlrover.svc:2222', 'j-edljob-ps-2.dlrover.svc:2222', 'j-edljob-ps-3.dlrover.svc:2222']);
    expect(result.jobs[0]!.maxWorkers).toBeGreaterThan(1);
  });
});
