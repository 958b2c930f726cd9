import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, LossCurveSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { convergenceStep } from '../../src/model/observations.js';
import { fitLossCurve, predictConvergenceStep } from '../../src/policies/fitting/loss-curve.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import {
  allocateByMarginalGain,
  marginalGain,
  type AllocationJob,
  type ResourceVector,
} from '../../src/policies/scheduling/optimus-allocation.js';
import { EvenSpreadIndex } from '../../src/policies/scheduling/optimus-placement.js';
import {
  createOptimus,
  estimateRemainingSteps,
  estimateSpeedModel,
  fittedTotalSteps,
  MIN_LOSS_SAMPLES,
} from '../../src/policies/scheduling/optimus.js';
import type { JobView, SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, gpuDemand, scenarioOf, NO_CHANGES } from '../helpers.js';

const WORKER: ReplicaDemand = gpuDemand(1, 4000, 16_384);
const PS: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16_384 };

/** An elastic async-PS job (1-16 workers) that ends when its loss curve reaches the target. */
function psJob(id: string, submitS: number, loss: LossCurveSpec, speed = { t0: 0.3, t1: 0.06, t2: 0.006, t3: 0.01 }): JobSpec {
  return {
    id,
    kind: 'ps',
    submitS,
    user: '',
    gpuTypes: [],
    roles: [
      { role: 'worker', replicas: 4, demand: WORKER },
      { role: 'ps', replicas: 2, demand: PS },
    ],
    elastic: { minReplicas: 1, maxReplicas: 16, unit: 1 },
    totalSteps: convergenceStep(loss),
    speed: { kind: 'ps-async', ...speed },
    source: `test:${id}`,
    loss,
  };
}

const CURVE: LossCurveSpec = { b0: 2e-4, b1: 0.5, b2: 0.3, noise: 0.01, targetLoss: 0.36 };

function vector(d: ReplicaDemand): ResourceVector {
  return [d.gpus * d.gpuMilli, d.cpuMilli, d.memMiB];
}

function allocJob(id: string, remainingSteps: number, stepsPerS: (p: number, w: number) => number, worker = WORKER): AllocationJob {
  return { id, minWorkers: 1, workerUnit: 1, maxWorkers: 16, maxPs: 16, workerDemand: vector(worker), psDemand: vector(PS), remainingSteps, stepsPerS };
}

/** A view of a job with only what a plain policy may read: its request and observations, no spec and no truth. */
function blindView(job: JobRuntime): JobView {
  const samples = job.lossSamples();
  return {
    request: job.request,
    shape: job.shape,
    psRanked: job.psRanked,
    phase: job.phase,
    queuePosition: job.queuePosition,
    arrivalIndex: job.arrivalIndex,
    firstStartS: job.firstStartS,
    progressSteps: job.progressSteps,
    workers: job.workers,
    ps: job.ps,
    gpus: job.gpus,
    attainedGpuS: job.attainedGpuS,
    paused: job.paused,
    speedSamples: job.speedSamples,
    lossSamples: () => samples,
  };
}

describe('optimus marginal-gain allocation', () => {
  const capacity: ResourceVector = [8000, 64_000, 131_072];
  // Both jobs start at 1 PS + 1 worker; the budget then holds exactly one more worker (or PS).
  const budget: ResourceVector = [3000, 20_000, 81_920];

  it('gives the next worker to the job whose remaining time drops most per dominant share', () => {
    // A: Q = 100, f = w: 100 s -> 50 s, gain 50 / 0.125 = 400. B: Q = 300, f = w/(1 + 0.5w): 450 s -> 300 s, gain 1200.
    const a = allocJob('a', 100, (_p, w) => w);
    const b = allocJob('b', 300, (_p, w) => w / (1 + 0.5 * w));
    expect(marginalGain(a, 1, 1, 'worker', capacity)).toBeCloseTo(400, 9);
    expect(marginalGain(b, 1, 1, 'worker', capacity)).toBeCloseTo(1200, 9);
    expect(marginalGain(a, 1, 1, 'ps', capacity)).toBe(0);
    expect(allocateByMarginalGain([a, b], budget, capacity)).toEqual([{ ps: 1, workers: 1 }, { ps: 1, workers: 2 }]);
  });

  it('divides by the dominant share: a job with half-size workers can win with a smaller time gain', () => {
    // A': Q = 200, f = w, a worker of half a GPU and half the memory: 100 s saved / 0.0625 = 1600 > 1200.
    const half: ReplicaDemand = { gpus: 1, gpuMilli: 500, cpuMilli: 4000, memMiB: 8192 };
    const a = allocJob('a', 200, (_p, w) => w, half);
    const b = allocJob('b', 300, (_p, w) => w / (1 + 0.5 * w));
    expect(marginalGain(a, 1, 1, 'worker', capacity)).toBeCloseTo(1600, 9);
    const shapes = allocateByMarginalGain([a, b], [2500, 20_000, 73_728], capacity);
    expect(shapes).toEqual([{ ps: 1, workers: 2 }, { ps: 1, workers: 1 }]);
  });

  it('adds a PS when that helps more, and stops when every gain is <= 0', () => {
    // f = w / (1 + 2w/p), Q = 100: 300 s at (1,1); one more PS makes it 200 s, one more worker 250 s.
    const comm = allocJob('comm', 100, (p, w) => w / (1 + (2 * w) / p));
    expect(marginalGain(comm, 1, 1, 'ps', capacity)).toBeCloseTo(100 / 0.125, 9);
    expect(marginalGain(comm, 1, 1, 'worker', capacity)).toBeCloseTo(50 / 0.125, 9);
    // After 1 PS + 1 worker, 4 cores and 16 GiB are left: one more PS fits (and helps), a worker does not.
    expect(allocateByMarginalGain([comm], [1000, 12_000, 49_152], capacity)).toEqual([{ ps: 2, workers: 1 }]);
    const slower = allocJob('slower', 100, (_p, w) => 1 / w);
    expect(allocateByMarginalGain([slower], capacity, capacity)).toEqual([{ ps: 1, workers: 1 }]);
  });

  it('leaves a job out (null) when even 1 PS + its minimum workers do not fit', () => {
    const a = allocJob('a', 100, (_p, w) => w);
    const b = allocJob('b', 100, (_p, w) => w);
    expect(allocateByMarginalGain([a, b], [1000, 8000, 32_768], capacity)).toEqual([{ ps: 1, workers: 1 }, null]);
  });

  it('respects the worker and PS bounds', () => {
    const job: AllocationJob = { ...allocJob('a', 1e6, (p, w) => w / (1 + w / p)), maxWorkers: 3, maxPs: 2 };
    expect(allocateByMarginalGain([job], [1e9, 1e9, 1e9], capacity)).toEqual([{ ps: 2, workers: 3 }]);
  });
});

describe('optimus even-spread placement', () => {
  function countsByNode(tasks: readonly { role: string; nodeIndex: number }[]): Map<number, { workers: number; ps: number }> {
    const counts = new Map<number, { workers: number; ps: number }>();
    for (const t of tasks) {
      const c = counts.get(t.nodeIndex) ?? { workers: 0, ps: 0 };
      if (t.role === 'worker') c.workers++;
      else c.ps++;
      counts.set(t.nodeIndex, c);
    }
    return counts;
  }

  it('uses the fewest servers with the same number of each role on each', () => {
    const cluster = new ClusterState(gpuCluster(4, 8));
    const index = new EvenSpreadIndex(new CapacityScratch(cluster));
    // 12 workers do not fit one 8-GPU server; on two, each gets 6 workers and 1 PS.
    const tasks = index.place({ jobId: 'a', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 12, ps: 2 })!;
    expect([...countsByNode(tasks).values()]).toEqual([{ workers: 6, ps: 1 }, { workers: 6, ps: 1 }]);
    cluster.allocate('a', tasks);
    cluster.checkInvariants();
  });

  it('tries k = 1, 2, 3 … and splits as evenly as the counts allow', () => {
    // 30-core workers: 3 fit a 96-core server, so 7 workers need 3 servers (3, 2, 2) and 3 PS go 1 per server.
    const big: ReplicaDemand = gpuDemand(1, 30_000, 16_384);
    const index = new EvenSpreadIndex(new CapacityScratch(new ClusterState(gpuCluster(5, 8))));
    const tasks = index.place({ jobId: 'a', gpuTypes: [], workerDemand: big, psDemand: { ...PS, cpuMilli: 2000 }, workers: 7, ps: 3 })!;
    const counts = [...countsByNode(tasks).values()];
    expect(counts).toEqual([{ workers: 3, ps: 1 }, { workers: 2, ps: 1 }, { workers: 2, ps: 1 }]);
  });

  it('prefers the tightest fitting servers, keeping empty ones for large gangs', () => {
    const cluster = new ClusterState(gpuCluster(3, 8));
    const scratch = new CapacityScratch(cluster);
    const index = new EvenSpreadIndex(scratch);
    const first = index.place({ jobId: 'a', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 6, ps: 1 })!;
    const firstNode = first[0]!.nodeIndex;
    expect(new Set(first.map((t) => t.nodeIndex)).size).toBe(1);
    // 2 workers + 1 PS fit the 2 GPUs left next to job a: that server, not an empty one.
    const second = index.place({ jobId: 'b', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 2, ps: 1 })!;
    expect(second.every((t) => t.nodeIndex === firstNode)).toBe(true);
    // The index and the scratch agree: 8 more workers still fit one empty server.
    const third = index.place({ jobId: 'c', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 8, ps: 2 })!;
    expect(new Set(third.map((t) => t.nodeIndex)).size).toBe(1);
    expect(third[0]!.nodeIndex).not.toBe(firstNode);
    expect(index.place({ jobId: 'd', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 9, ps: 1 })).toBeNull();
  });

  it('falls back to an uneven packing when no even spread exists, and reserves nothing when nothing fits', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    // Server 0 keeps 3 GPUs free, server 1 keeps 2: 5 workers fit only as 3 + 2.
    cluster.allocate('x', [
      { role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3, 4], demand: gpuDemand(5) },
      { role: 'worker', nodeIndex: 1, gpuIndices: [0, 1, 2, 3, 4, 5], demand: gpuDemand(6) },
    ]);
    const scratch = new CapacityScratch(cluster);
    const index = new EvenSpreadIndex(scratch);
    const tasks = index.place({ jobId: 'a', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 5, ps: 1 })!;
    expect(tasks.filter((t) => t.role === 'worker')).toHaveLength(5);
    expect(index.place({ jobId: 'b', gpuTypes: [], workerDemand: WORKER, psDemand: PS, workers: 1, ps: 1 })).toBeNull();
    expect(scratch.freeGpuMilli(0) + scratch.freeGpuMilli(1)).toBe(0);
  });
});

describe('optimus learns and never peeks', () => {
  function runningJob(seed: number, progressFraction: number): JobRuntime {
    const job = new JobRuntime(psJob('p', 0, CURVE), seed, { nowS: 0 });
    job.phase = 'running';
    job.firstStartS = 0;
    job.progressSteps = job.spec.totalSteps * progressFraction;
    return job;
  }

  it('estimates the remaining steps from the fitted loss curve of the noisy reports', () => {
    const job = runningJob(1, 0.4);
    const estimate = estimateRemainingSteps(job, 123);
    expect(estimate.source).toBe('loss-fit');
    const fit = fitLossCurve(job.lossSamples())!;
    expect(estimate.steps).toBeCloseTo(predictConvergenceStep(fit, CURVE.targetLoss) - job.progressSteps, 6);
    const truth = job.spec.totalSteps - job.progressSteps;
    expect(estimate.steps).not.toBe(truth);
    expect(Math.abs(estimate.steps / truth - 1)).toBeLessThan(0.3);
    // Other noise draws (another seed) give another estimate: it follows the samples, not the truth.
    const other = estimateRemainingSteps(runningJob(2, 0.4), 123);
    expect(other.steps).not.toBeCloseTo(estimate.steps, 0);
  });

  it('uses the prior before MIN_LOSS_SAMPLES reports', () => {
    const job = runningJob(1, 0.035);
    expect(job.lossSamples().length).toBeLessThan(MIN_LOSS_SAMPLES);
    expect(fittedTotalSteps(job)).toBeNull();
    expect(estimateRemainingSteps(job, 50_000)).toEqual({ steps: 50_000 - job.progressSteps, source: 'prior' });
  });

  it('counts down the declared steps of a job without a loss curve, ignoring the prior', () => {
    const { loss: _loss, ...spec } = psJob('d', 0, CURVE);
    const job = new JobRuntime({ ...spec, totalSteps: 7000 }, 1, { nowS: 0 });
    job.progressSteps = 2500;
    expect(job.request.declaredSteps).toBe(7000);
    expect(fittedTotalSteps(blindView(job))).toBeNull();
    expect(estimateRemainingSteps(blindView(job), 123)).toEqual({ steps: 4500, source: 'declared' });
  });

  it('reads neither the true curve, nor totalSteps, nor the true speed model', () => {
    const job = runningJob(3, 0.5);
    job.addSpeedSample({ ps: 1, workers: 1, stepsPerS: 2.1 });
    job.addSpeedSample({ ps: 2, workers: 4, stepsPerS: 7.3 });
    const blind = blindView(job);
    expect(Object.keys(blind)).not.toContain('spec');
    expect(Object.keys(blind)).not.toContain('truth');
    expect(estimateRemainingSteps(blind, 1).steps).toBe(estimateRemainingSteps(job, 1).steps);
    expect(estimateSpeedModel(blind).source).toBe('scaled-prior');

    // A whole scheduling pass on blind views: it starts the queued job without touching the truth.
    const cluster = new ClusterState(gpuCluster(2, 8));
    const queued = new JobRuntime(psJob('q', 0, CURVE), 1, { nowS: 0 });
    queued.arrivalIndex = 0;
    queued.phase = 'queued';
    const context: SchedulingContext = {
      nowS: 0,
      cluster,
      queued: [blindView(queued)],
      queuedInOrder() {
        return this.queued;
      },
      running: [],
      placement: packPlacement,
      scratch: () => new CapacityScratch(cluster),
      changes: NO_CHANGES,
    };
    const actions = createOptimus().schedule(context);
    expect(actions.map((a) => [a.kind, a.jobId])).toEqual([['start', 'q']]);
  });
});

describe('optimus between re-plans', () => {
  it("fits a waiting job's loss curve once, and again only when its progress moves", () => {
    // The only node is full: the elastic job waits through every pass.
    const cluster = new ClusterState(gpuCluster(1, 8));
    cluster.allocate('filler', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0, 1, 2, 3, 4, 5, 6, 7], demand: gpuDemand(8) }]);
    const job = new JobRuntime(psJob('q', 0, CURVE), 1, { nowS: 0 });
    job.arrivalIndex = 0;
    job.phase = 'queued';
    job.progressSteps = 9000;
    let reads = 0;
    const view = {
      ...blindView(job),
      lossSamples: () => {
        reads++;
        return job.lossSamples();
      },
    };
    expect(job.lossSamples().length).toBeGreaterThanOrEqual(MIN_LOSS_SAMPLES);
    const contextAt = (nowS: number): SchedulingContext => ({
      nowS,
      cluster,
      queued: [view],
      queuedInOrder: () => [view],
      running: [],
      placement: packPlacement,
      scratch: () => new CapacityScratch(cluster),
      changes: NO_CHANGES,
    });
    const policy = createOptimus();
    for (const nowS of [0, 10, 20, 700]) expect(policy.schedule(contextAt(nowS))).toEqual([]);
    expect(reads).toBe(1);
    job.progressSteps = 9500;
    (view as { progressSteps: number }).progressSteps = 9500;
    expect(policy.schedule(contextAt(730))).toEqual([]);
    expect(reads).toBe(2);
  });
});

describe('optimus in the simulation', () => {
  const jobs = [
    psJob('a', 0, { b0: 4e-4, b1: 0.5, b2: 0.2, noise: 0.01, targetLoss: 0.26 }),
    psJob('b', 120, { b0: 1e-3, b1: 1, b2: 0.1, noise: 0.01, targetLoss: 0.15 }, { t0: 0.5, t1: 0.3, t2: 0.005, t3: 0.02 }),
    psJob('c', 900, { b0: 5e-4, b1: 0.8, b2: 0.4, noise: 0.01, targetLoss: 0.47 }, { t0: 0.2, t1: 0.01, t2: 0.004, t3: 0.01 }),
    psJob('d', 1800, { b0: 3e-4, b1: 0.6, b2: 0.25, noise: 0.01, targetLoss: 0.31 }),
  ];

  it('runs elastic PS jobs to convergence, resizing them, within capacity and deterministically', () => {
    const run = () => new Simulation(scenarioOf(gpuCluster(3, 8), jobs, { policy: 'optimus' }), { checkInvariants: true }).run();
    const first = run();
    expect(first.summary.jobs.completed).toBe(4);
    expect(first.jobs.some((j) => j.resizes > 0)).toBe(true);
    // Resizes record speed samples: the policy learns from them.
    expect(first.jobs.some((j) => new Set(j.speedSamples.map((s) => `${s.ps}:${s.workers}`)).size >= 3)).toBe(true);
    expect(JSON.stringify(run().summary)).toBe(JSON.stringify(first.summary));
  });

  it('holds back capacity for a rigid job that does not fit, so that elastic jobs shrink for it', () => {
    const rigid = batchJob('rigid', 700, 6, 600);
    const result = new Simulation(scenarioOf(gpuCluster(1, 8), [jobs[0]!, rigid], { policy: 'optimus' }), { checkInvariants: true }).run();
    const [elastic, batch] = [result.jobs.find((j) => j.spec.id === 'a')!, result.jobs.find((j) => j.spec.id === 'rigid')!];
    expect(batch.phase).toBe('completed');
    // It started while the elastic job still ran (which shrank for it), not after it ended.
    expect(batch.firstStartS!).toBeLessThan(elastic.endS!);
    expect(elastic.resizes).toBeGreaterThan(0);
  });
});
