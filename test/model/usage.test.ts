import { describe, expect, it } from 'vitest';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { stepsPerS } from '../../src/model/speed.js';
import {
  ALLREDUCE_WORKER_CPU_FRACTION,
  FIXED_CPU_FRACTION,
  MEM_USED_FRACTION,
  trueUsage,
  type JobUsage,
  type RoleShape,
} from '../../src/model/usage.js';
import { allreduceJob, batchJob, psJob } from '../helpers.js';

const PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };

/** The runtime shape of a job at `workers` workers and `ps` PS, each at its requested demand. */
function shapeOf(spec: JobSpec, counts: { worker?: number; ps?: number; chief?: number }): RoleShape[] {
  return spec.roles.map((r) => ({ role: r.role, replicas: counts[r.role] ?? r.replicas, demand: r.demand }));
}

/** True usage at the model's own speed for that shape. */
function usageAt(spec: JobSpec, shape: RoleShape[]): JobUsage {
  const workers = shape.filter((r) => r.role === 'worker').reduce((n, r) => n + r.replicas, 0);
  const ps = shape.filter((r) => r.role === 'ps').reduce((n, r) => n + r.replicas, 0);
  return trueUsage(spec, shape, stepsPerS(spec, { workers, ps }));
}

function roleOf(usage: JobUsage, role: string): JobUsage['roles'][number] {
  const found = usage.roles.find((r) => r.role === role);
  if (!found) throw new Error(`no ${role} in usage`);
  return found;
}

describe('trueUsage, ps-async', () => {
  it('a PS serving twice the workers uses more CPU', () => {
    const spec = psJob('a', 4, { replicas: 1, demand: PS_DEMAND }, 1000);
    const four = roleOf(usageAt(spec, shapeOf(spec, { worker: 4, ps: 1 })), 'ps').cpuUsedCores;
    const eight = roleOf(usageAt(spec, shapeOf(spec, { worker: 8, ps: 1 })), 'ps').cpuUsedCores;
    expect(four).toBeGreaterThan(0);
    expect(eight).toBeGreaterThan(four * 1.2);
  });

  it('a PS CPU use is the update rate it serves times its update cost: more PS, less each', () => {
    const spec = psJob('a', 8, { replicas: 1, demand: PS_DEMAND }, 1000);
    const one = roleOf(usageAt(spec, shapeOf(spec, { worker: 8, ps: 1 })), 'ps').cpuUsedCores;
    const two = roleOf(usageAt(spec, shapeOf(spec, { worker: 8, ps: 2 })), 'ps').cpuUsedCores;
    expect(two).toBeLessThan(one);
  });

  it('a bottleneck PS runs near its CPU demand', () => {
    // The PS-side term t1·w/p dominates the step time: 5 × 40 / 1 = 200 s against 0.1 + 0.08 + 0.005.
    const spec: JobSpec = { ...psJob('b', 40, { replicas: 1, demand: PS_DEMAND }, 1000), speed: { kind: 'ps-async', t0: 0.1, t1: 5, t2: 0.002, t3: 0.005 } };
    const ps = roleOf(usageAt(spec, shapeOf(spec, {})), 'ps');
    expect(ps.cpuUsedCores).toBeGreaterThan(0.95 * 8);
    expect(ps.cpuUsedCores).toBeLessThanOrEqual(8);
    // ... while a PS with a light update cost is far from it.
    const light: JobSpec = { ...spec, speed: { kind: 'ps-async', t0: 1, t1: 0.001, t2: 0.002, t3: 0.005 } };
    expect(roleOf(usageAt(light, shapeOf(light, {})), 'ps').cpuUsedCores).toBeLessThan(0.1 * 8);
  });

  it('a worker uses the compute share of its step time', () => {
    const spec = psJob('a', 4, { replicas: 1, demand: PS_DEMAND }, 1000);
    const { t0, t1, t2, t3 } = { t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 };
    const stepS = t0 + (t1 * 4) / 1 + t2 * 4 + t3 * 1;
    const worker = roleOf(usageAt(spec, shapeOf(spec, {})), 'worker');
    expect(worker.cpuUsedCores).toBeCloseTo((t0 / stepS) * 4, 9);
  });

  it('CPU use follows the steps/s actually run: a stalled job uses none, a half-speed job half', () => {
    const spec = psJob('a', 4, { replicas: 1, demand: PS_DEMAND }, 1000);
    const shape = shapeOf(spec, {});
    const full = trueUsage(spec, shape, stepsPerS(spec, { workers: 4, ps: 1 }));
    const half = trueUsage(spec, shape, stepsPerS(spec, { workers: 4, ps: 1 }) / 2);
    const stalled = trueUsage(spec, shape, 0);
    for (const role of ['worker', 'ps']) {
      expect(roleOf(half, role).cpuUsedCores).toBeCloseTo(roleOf(full, role).cpuUsedCores / 2, 9);
      expect(roleOf(stalled, role).cpuUsedCores).toBe(0);
    }
    expect(half.stepsPerS).toBe(full.stepsPerS / 2);
  });
});

describe('trueUsage, every kind', () => {
  const jobs: JobSpec[] = [
    psJob('ps', 4, { replicas: 2, demand: PS_DEMAND }, 1000),
    { ...psJob('hot', 30, { replicas: 1, demand: PS_DEMAND }, 1000), speed: { kind: 'ps-async', t0: 0.01, t1: 3, t2: 0, t3: 0 } },
    allreduceJob('ar', { workers: 4, totalSteps: 100, computeS: 1, commS: 0.5 }),
    batchJob('batch', 0, 2, 100, 3),
  ];

  it('never uses more CPU than a replica asks for, nor less than none', () => {
    for (const spec of jobs) {
      for (const workers of [1, 2, 4, 8, 30, 60]) {
        for (const ps of [1, 2, 4]) {
          const shape = shapeOf(spec, { worker: workers, ps });
          // Far above the model's speed too: the cap holds whatever steps/s the caller reports.
          for (const rate of [0, stepsPerS(spec, { workers, ps }), 1e6]) {
            const usage = trueUsage(spec, shape, rate);
            for (const r of usage.roles) {
              const demand = shape.find((s) => s.role === r.role)!.demand;
              expect(r.cpuUsedCores).toBeGreaterThanOrEqual(0);
              expect(r.cpuUsedCores).toBeLessThanOrEqual(demand.cpuMilli / 1000);
              expect(r.memUsedMiB).toBeGreaterThan(0);
              expect(r.memUsedMiB).toBeLessThanOrEqual(demand.memMiB);
            }
          }
        }
      }
    }
  });

  it('reports every role of the shape with its replica count', () => {
    const spec = jobs[0]!;
    const usage = trueUsage(spec, shapeOf(spec, { worker: 6, ps: 3 }), 1);
    expect(usage.roles.map((r) => [r.role, r.replicas])).toEqual([
      ['worker', 6],
      ['ps', 3],
    ]);
  });

  it('all-reduce workers and fixed jobs use their stated share of CPU', () => {
    const ar = jobs[2]!;
    const arUsage = usageAt(ar, shapeOf(ar, {}));
    expect(roleOf(arUsage, 'worker').cpuUsedCores).toBeCloseTo(ALLREDUCE_WORKER_CPU_FRACTION * 4, 9);
    expect(roleOf(trueUsage(ar, shapeOf(ar, {}), 0), 'worker').cpuUsedCores).toBe(0);
    const batch = jobs[3]!;
    expect(roleOf(usageAt(batch, shapeOf(batch, {})), 'worker').cpuUsedCores).toBeCloseTo(FIXED_CPU_FRACTION * 4, 9);
  });

  it('memory is memUseMiB when set, else a share of the requested memory that a resize does not change', () => {
    const spec = psJob('m', 2, { replicas: 1, demand: PS_DEMAND, memUseMiB: 6000 }, 1000);
    const shape = shapeOf(spec, {});
    const usage = usageAt(spec, shape);
    expect(roleOf(usage, 'ps').memUsedMiB).toBe(6000);
    expect(roleOf(usage, 'worker').memUsedMiB).toBeCloseTo(MEM_USED_FRACTION * 8192, 9);
    // Twice the memory limit for the workers: their need stays what it was.
    const bigger = shape.map((r) => (r.role === 'worker' ? { ...r, demand: { ...r.demand, memMiB: 16_384 } } : r));
    expect(roleOf(usageAt(spec, bigger), 'worker').memUsedMiB).toBeCloseTo(MEM_USED_FRACTION * 8192, 9);
  });

  it('a role needing more memory than it is given reports its need (the pod will be OOM-killed)', () => {
    const spec = psJob('oom', 2, { replicas: 1, demand: PS_DEMAND, memUseMiB: 20_000 }, 1000);
    expect(roleOf(usageAt(spec, shapeOf(spec, {})), 'ps').memUsedMiB).toBe(20_000);
  });
});

describe('trueUsage, bad input', () => {
  it('rejects a negative or non-finite steps/s as a bug in the caller', () => {
    const spec = batchJob('x', 0, 1, 10);
    const shape = shapeOf(spec, {});
    expect(() => trueUsage(spec, shape, -1)).toThrow(/job x: steps\/s -1/);
    expect(() => trueUsage(spec, shape, NaN)).toThrow(/not a finite/);
  });
});

describe('trueUsage, chief', () => {
  it('a ps-async chief trains like a worker: the same busy share of its own demand', () => {
    const base = psJob('c', 4, { replicas: 1, demand: PS_DEMAND }, 1000);
    const chiefDemand: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };
    const spec: JobSpec = { ...base, roles: [...base.roles, { role: 'chief', replicas: 1, demand: chiefDemand }] };
    const usage = usageAt(spec, shapeOf(spec, {}));
    const workerShare = roleOf(usage, 'worker').cpuUsedCores / 4;
    expect(workerShare).toBeGreaterThan(0);
    expect(roleOf(usage, 'chief').cpuUsedCores).toBeCloseTo(workerShare * 8, 9);
  });
});
