import { CapacityScratch } from '../model/capacity.js';
import type { NodeSpec } from '../model/cluster-spec.js';
import { ClusterState } from '../model/cluster-state.js';
import type { ReplicaDemand } from '../model/job-spec.js';
import { asyncStepsPerS, type AsyncSpeedParams } from '../policies/fitting/speed-model.js';
import { allocateByMarginalGain, type AllocationJob, type ResourceVector } from '../policies/scheduling/optimus-allocation.js';
import { EvenSpreadIndex } from '../policies/scheduling/optimus-placement.js';

/** What one timed Optimus round did. */
export interface OptimusRoundBench {
  /** Wall seconds of one allocation + placement round. */
  readonly seconds: number;
  readonly jobs: number;
  /** Replicas (PS + workers) the round placed. */
  readonly tasks: number;
  readonly nodes: number;
}

/** Largest shape of a benchmark job: 16 workers and 4 PS, so `tasks / 20` jobs fill `tasks` replicas. */
const MAX_WORKERS = 16;
const MAX_PS = 4;
const GIB = 1024;

/**
 * Times ONE Optimus round at the scale of the paper's claim (REFERENCE §5: 100,000 tasks on 16,000
 * nodes in ~5 s): `tasks / 20` jobs with already fitted speed models and remaining steps, the
 * marginal-gain allocation over the whole cluster, then the even-spread placement of every job
 * on `nodes` empty 8-GPU servers. Job models vary deterministically (no random draws), so every
 * call does the same work; jobs end up with at most 20 replicas each, `tasks` in all when the
 * cluster has room. Building the state is not timed.
 */
export function benchOptimusRound(tasks = 100_000, nodes = 16_000): OptimusRoundBench {
  const nodeSpecs: NodeSpec[] = [];
  for (let i = 0; i < nodes; i++) {
    nodeSpecs.push({ name: `n${i}`, group: 'gpu', gpuType: 'V100', gpus: 8, cpuMilli: 64_000, memMiB: 512 * GIB, rack: `r${Math.floor(i / 32)}` });
  }
  const cluster = new ClusterState({ nodes: nodeSpecs });
  const workerDemand: ReplicaDemand = { gpus: 1, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16 * GIB };
  const psDemand: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16 * GIB };
  const jobCount = Math.max(1, Math.floor(tasks / (MAX_WORKERS + MAX_PS)));
  const jobs: AllocationJob[] = [];
  for (let j = 0; j < jobCount; j++) {
    // A spread of fitted models and remaining work, from compute-bound to communication-bound.
    const t0 = 0.1 + 0.5 * ((j * 7919) % 1000) / 1000;
    const params: AsyncSpeedParams = { t0, t1: t0 * (0.05 + ((j * 104_729) % 1000) / 1000), t2: t0 * 0.01, t3: t0 * 0.03 };
    jobs.push({
      id: `bench-${j}`,
      minWorkers: 1,
      workerUnit: 1,
      maxWorkers: MAX_WORKERS,
      maxPs: MAX_PS,
      workerDemand: [workerDemand.gpus * workerDemand.gpuMilli, workerDemand.cpuMilli, workerDemand.memMiB],
      psDemand: [0, psDemand.cpuMilli, psDemand.memMiB],
      remainingSteps: 10_000 + ((j * 31_337) % 90_000),
      stepsPerS: (ps, workers) => asyncStepsPerS(params, ps, workers),
    });
  }
  const capacity: ResourceVector = [cluster.totalGpus * 1000, cluster.totalCpuMilli, cluster.totalMemMiB];

  // performance.now() is allowed here: this is a benchmark, not part of any simulation's results.
  const startMs = performance.now();
  const shapes = allocateByMarginalGain(jobs, capacity, capacity);
  const index = new EvenSpreadIndex(new CapacityScratch(cluster));
  let placed = 0;
  jobs.forEach((job, k) => {
    const shape = shapes[k];
    if (!shape) return;
    const gang = index.place({ jobId: job.id, gpuTypes: [], workerDemand, psDemand, workers: shape.workers, ps: shape.ps });
    if (gang) placed += gang.length;
  });
  const seconds = (performance.now() - startMs) / 1000;
  return { seconds, jobs: jobCount, tasks: placed, nodes };
}
