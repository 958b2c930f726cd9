import { describe, expect, it } from 'vitest';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { fill } from '../../src/sim/fill.js';
import { scenarioOf } from '../helpers.js';

/** Two nodes of 2 GPUs and 16 cores each. */
const TWO_NODES: ClusterSpec = {
  nodes: ['a', 'b'].map((name) => ({ name, group: 'g', gpuType: 'T4', gpus: 2, cpuMilli: 16_000, memMiB: 262_144, rack: 'r0' })),
};

/** A one-pod job: `gpus` GPUs, each `gpuMilli` thousandths, and `cpuMilli` CPU. */
function pod(id: string, gpus: number, gpuMilli: number, cpuMilli = 2000, gpuTypes: string[] = []): JobSpec {
  return {
    id,
    kind: 'batch',
    submitS: 0,
    user: '',
    gpuTypes,
    roles: [{ role: 'worker', replicas: 1, demand: { gpus, gpuMilli, cpuMilli, memMiB: 1024 } }],
    elastic: null,
    totalSteps: 1,
    speed: { kind: 'fixed' },
    source: `test:${id}`,
  };
}

/** A fill scenario placing `jobs` in the given order with `placement` (first-fit unless told). */
function fillScenario(jobs: JobSpec[], options: { placement?: string; order?: 'submit' | 'shuffle'; coverage?: number; seed?: number } = {}): Scenario {
  return scenarioOf(TWO_NODES, jobs, {
    policies: { placement: { name: options.placement ?? 'first-fit', options: {} } },
    fill: { order: options.order ?? 'submit', coverage: options.coverage ?? 1 },
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
}

// p1 takes 600 of a GPU, p2 a whole GPU, p3 two whole GPUs; p4 (two whole GPUs) finds none; p5 (300 of a GPU) fits in what p1 left.
const P1 = pod('p1', 1, 600);
const P2 = pod('p2', 1, 1000);
const P3 = pod('p3', 2, 1000);
const P4 = pod('p4', 2, 1000);
const P5 = pod('p5', 1, 300);

describe('fill: placement-only replay', () => {
  it('reports the allocation ratio and the fragmentation when the first pod fails, and after every pod', () => {
    const summary = fill(fillScenario([P1, P2, P3, P4, P5]));
    // First-fit: p1 on a's GPU 0 (400 left), p2 on a's GPU 1, p3 on b's two GPUs; p4 fails; p5 on a's GPU 0 (100 left).
    expect(summary.jobs).toEqual({ submitted: 5, placed: 4, failed: 1 });
    expect(summary.firstFailure).toEqual({ position: 4, jobId: 'p4' });
    const totalGpus = 4;
    expect(summary.gpus).toBe(totalGpus);
    expect(summary.atFirstFailure.jobsPlaced).toBe(3);
    expect(summary.atFirstFailure.gpuAllocationRate).toBeCloseTo((0.6 + 1 + 2) / totalGpus, 12);
    expect(summary.final.jobsPlaced).toBe(4);
    expect(summary.final.gpuAllocationRate).toBeCloseTo((0.6 + 1 + 2 + 0.3) / totalGpus, 12);

    // The target workload: the five pods' shapes, each shape's share of the pods.
    const share = { s600: 1 / 5, whole1: 1 / 5, whole2: 2 / 5, s300: 1 / 5 };
    // At the first failure only node a has idle GPU capacity: [400, 0] thousandths, 12 cores free.
    // A shape that cannot run there sees all 400 as fragment; s300 runs (GPU 0 has 400 ≥ 300) and
    // sees as fragment only the GPUs with less than 300 left: GPU 1, with 0.
    const fragAtFailureMilli = share.s600 * 400 + share.whole1 * 400 + share.whole2 * 400 + share.s300 * 0;
    expect(summary.atFirstFailure.idleGpus).toBeCloseTo(0.4, 12);
    expect(summary.atFirstFailure.fragmentationGpus).toBeCloseTo(fragAtFailureMilli / 1000, 12);
    expect(summary.atFirstFailure.fragmentationShareOfIdle).toBeCloseTo(fragAtFailureMilli / 400, 12);
    // At the end node a has [100, 0]: no shape runs, all 100 thousandths are fragment for every one.
    expect(summary.final.idleGpus).toBeCloseTo(0.1, 12);
    expect(summary.final.fragmentationGpus).toBeCloseTo(0.1, 12);
    expect(summary.final.fragmentationShareOfIdle).toBeCloseTo(1, 12);
  });

  it('order matters: the first failure freezes the ratio, later pods still count in the final one', () => {
    // Whole-GPU pods first: p3 and p4 fill both nodes, so p1 (the third pod) is the first to fail.
    const summary = fill(fillScenario([P3, P4, P1, P2, P5]));
    expect(summary.firstFailure).toEqual({ position: 3, jobId: 'p1' });
    expect(summary.atFirstFailure.gpuAllocationRate).toBeCloseTo(1, 12);
    expect(summary.jobs).toEqual({ submitted: 5, placed: 2, failed: 3 });
    // Nothing idle is left: no fragmentation to speak of, and its share of idle capacity is 0, not NaN.
    expect(summary.final.fragmentationGpus).toBe(0);
    expect(summary.final.fragmentationShareOfIdle).toBe(0);

    const other = fill(fillScenario([P1, P2, P3, P4, P5]));
    expect(other.atFirstFailure.gpuAllocationRate).toBeLessThan(summary.atFirstFailure.gpuAllocationRate);
  });

  it('with no failure, the state at the first failure is the final state', () => {
    const summary = fill(fillScenario([P1, P2, P5]));
    expect(summary.firstFailure).toBeNull();
    expect(summary.atFirstFailure).toEqual(summary.final);
    expect(summary.final.gpuAllocationRate).toBeCloseTo((0.6 + 1 + 0.3) / 4, 12);
  });

  it('GPU-sharing pods share a GPU; CPU and GPU types enter the fragmentation as FGD counts them', () => {
    // Two 500-thousandth pods share a's GPU 0; a CPU-only pod takes the 12 cores they leave on a.
    const cpuPod = pod('cpu', 0, 1000, 12_000);
    const halfA = pod('half-a', 1, 500);
    const halfB = pod('half-b', 1, 500);
    const v100 = pod('v100', 1, 1000, 1000, ['V100']);
    const summary = fill(fillScenario([halfA, halfB, cpuPod, v100]));
    // v100 asks for a GPU type no node has: it fails. Everything else is on node a.
    expect(summary.firstFailure).toEqual({ position: 4, jobId: 'v100' });
    expect(summary.final.gpuAllocationRate).toBeCloseTo(1 / 4, 12);
    // Node a: GPUs [0, 1000], 16 − 2 − 2 − 12 = 0 cores free; node b: [1000, 1000], 16 cores.
    const share = 1 / 4;
    // A CPU-only pod uses no GPU: all idle GPU capacity is fragment for it (1000 on a, 2000 on b).
    const cpuOnly = share * (1000 + 2000);
    // half (500 of a GPU, 2 cores): on a no core is free → all 1000; on b it runs and no GPU has under 500 left → 0.
    const half = 2 * share * (1000 + 0);
    // v100: no node has its GPU type → all idle capacity everywhere.
    const typed = share * (1000 + 2000);
    const fragMilli = cpuOnly + half + typed;
    expect(summary.final.idleGpus).toBeCloseTo(3, 12);
    expect(summary.final.fragmentationGpus).toBeCloseTo(fragMilli / 1000, 12);
    expect(summary.final.fragmentationShareOfIdle).toBeCloseTo(fragMilli / 3000, 12);
  });

  it('coverage keeps only the most common shapes as the target workload (FGD typical pods)', () => {
    // Shapes: whole1 ×3, s300 ×1 (3 of 4 pods are whole1): coverage 0.75 keeps whole1 alone.
    const jobs = [pod('w1', 1, 1000), pod('w2', 1, 1000), pod('w3', 1, 1000), pod('s', 1, 300)];
    const all = fill(fillScenario(jobs, { coverage: 1 }));
    const common = fill(fillScenario(jobs, { coverage: 0.75 }));
    expect(all.targetShapes).toBe(2);
    expect(common.targetShapes).toBe(1);
    // End state: a [0, 0], b [0, 700]. whole1 cannot run on b: all 700 is fragment for it.
    expect(common.final.fragmentationGpus).toBeCloseTo(0.7, 12);
    // s300 runs on b's GPU 1; GPU 0 has nothing left, so none is fragment for it.
    expect(all.final.fragmentationGpus).toBeCloseTo(0.75 * 0.7 + 0.25 * 0, 12);
  });

  it('the placement policy decides: spread leaves whole GPUs where first-fit packs', () => {
    const jobs = [pod('s1', 1, 500), pod('s2', 1, 500), pod('w', 2, 1000)];
    const packed = fill(fillScenario(jobs, { placement: 'first-fit' }));
    const spread = fill(fillScenario(jobs, { placement: 'spread' }));
    // first-fit puts both halves on a's GPU 0, so w takes b; spread puts one half on each node and w finds no node with 2 whole GPUs.
    expect(packed.firstFailure).toBeNull();
    expect(spread.firstFailure).toEqual({ position: 3, jobId: 'w' });
    expect(spread.placement).toBe('spread');
  });

  it('is deterministic, and the shuffled order depends on the seed only', () => {
    const jobs: JobSpec[] = [];
    for (let k = 0; k < 12; k++) jobs.push(k % 3 === 0 ? pod(`j${k}`, 2, 1000) : pod(`j${k}`, 1, k % 2 === 0 ? 1000 : 100 + 70 * k));
    const a = fill(fillScenario(jobs, { order: 'shuffle', seed: 5 }));
    const b = fill(fillScenario(jobs, { order: 'shuffle', seed: 5 }));
    expect(b).toEqual(a);
    const outcomes = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const run = fill(fillScenario(jobs, { order: 'shuffle', seed }));
      outcomes.add(JSON.stringify([run.firstFailure, run.final.gpuAllocationRate]));
    }
    // Twenty orders of twelve pods do not all meet their first failure at the same pod with the same ratio.
    expect(outcomes.size).toBeGreaterThan(1);
    // In submission order the seed changes nothing.
    expect(fill(fillScenario(jobs, { seed: 1 }))).toEqual({ ...fill(fillScenario(jobs, { seed: 2 })), seed: 1 });
  });
});
