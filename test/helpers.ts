import type { FaultEffect, FaultType } from '../src/faults/catalog.js';
import type { ClusterSpec, NodeSpec } from '../src/model/cluster-spec.js';
import type { CheckpointSpec, ElasticSpec, JobSpec, ReplicaDemand, RoleSpec } from '../src/model/job-spec.js';
import type { Decision } from '../src/policies/decision.js';
import type { PolicyHandle } from '../src/policies/registry.js';
import type { RunSummary } from '../src/metrics/summary.js';
import { DEFAULT_SIM_PARAMS, type Scenario } from '../src/scenario/scenario.js';

/** A cluster of `count` identical GPU nodes, `perRack` to a rack. */
export function gpuCluster(count: number, gpus = 8, perRack = 32): ClusterSpec {
  const nodes: NodeSpec[] = [];
  for (let k = 0; k < count; k++) {
    nodes.push({
      name: `n${k}`,
      group: 'g',
      gpuType: 'A100',
      gpus,
      cpuMilli: 96_000,
      memMiB: 1024 * 1024,
      rack: `r${Math.floor(k / perRack)}`,
    });
  }
  return { nodes };
}

/** A demand of whole GPUs with modest CPU and memory. */
export function gpuDemand(gpus: number, cpuMilli = 4000, memMiB = 16_384): ReplicaDemand {
  return { gpus, gpuMilli: 1000, cpuMilli, memMiB };
}

/** A batch job of `replicas` workers of `gpusPerReplica` GPUs that runs `durationS`. */
export function batchJob(id: string, submitS: number, gpusPerReplica: number, durationS: number, replicas = 1): JobSpec {
  return {
    id,
    kind: 'batch',
    submitS,
    user: '',
    gpuTypes: [],
    roles: [{ role: 'worker', replicas, demand: gpuDemand(gpusPerReplica) }],
    elastic: null,
    totalSteps: durationS,
    speed: { kind: 'fixed' },
    source: `test:${id}`,
  };
}

/** Shape of an all-reduce test job; defaults: submitted at 0, 8-GPU workers, 1 s steps of pure compute, rigid. */
export interface AllreduceJobOptions {
  readonly workers: number;
  readonly totalSteps: number;
  readonly submitS?: number;
  readonly gpus?: number;
  readonly computeS?: number;
  readonly commS?: number;
  readonly elastic?: ElasticSpec | null;
  readonly checkpoint?: CheckpointSpec;
}

/** A synchronous all-reduce job: `workers` replicas whose step takes computeS + commS at the requested size. */
export function allreduceJob(id: string, options: AllreduceJobOptions): JobSpec {
  return {
    id,
    kind: 'allreduce',
    submitS: options.submitS ?? 0,
    user: '',
    gpuTypes: [],
    roles: [{ role: 'worker', replicas: options.workers, demand: gpuDemand(options.gpus ?? 8) }],
    elastic: options.elastic ?? null,
    totalSteps: options.totalSteps,
    speed: { kind: 'allreduce', computeS: options.computeS ?? 1, commS: options.commS ?? 0 },
    source: `test:${id}`,
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  };
}

/** A scenario around a cluster and jobs (sorted by submit time), FIFO by default. */
export function scenarioOf(cluster: ClusterSpec, jobs: JobSpec[], overrides: Partial<Scenario> = {}): Scenario {
  return {
    name: 'test',
    file: 'test.yaml',
    seed: 1,
    policy: 'fifo',
    horizonS: Infinity,
    params: DEFAULT_SIM_PARAMS,
    cluster,
    jobs: [...jobs].sort((a, b) => a.submitS - b.submitS),
    faults: null,
    warnings: [],
    ...overrides,
  };
}

/** The Optimus PS speed constants the tests use. */
export const PS_SPEED = { t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 } as const;

/** A CPU-only PS job of `workers` workers (4 cores, 8 GiB) and the given PS role, training at the Optimus async speed. */
export function psJob(id: string, workers: number, ps: Omit<RoleSpec, 'role'>, totalSteps: number): JobSpec {
  return {
    id,
    kind: 'ps',
    submitS: 0,
    user: '',
    gpuTypes: [],
    roles: [
      { role: 'worker', replicas: workers, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 } },
      { role: 'ps', ...ps },
    ],
    elastic: null,
    totalSteps,
    speed: { kind: 'ps-async', ...PS_SPEED },
    source: `test:${id}`,
  };
}

/**
 * A catalog-style fault type with the given effect, for faults a test replays at fixed times (the
 * simulation reads only its name and effect; rates and repair times come with each occurrence).
 */
export function faultType(name: string, effect: FaultEffect): FaultType {
  return {
    name,
    xid: null,
    description: name,
    ratePerGpuDay: 0,
    ratePerNodeDay: 0,
    scope: effect.kind === 'node-down' || effect.kind === 'network-down' ? 'node' : 'gpu',
    effect,
    foundByNodeCheck: effect.kind !== 'crash',
    repair: { kind: 'none' },
    category: effect.kind === 'crash' ? 'software' : 'hardware',
  };
}

/** What a policy factory reads of a run, for tests: default simulation parameters, no user weights, seed 1. */
export const TEST_HANDLE: PolicyHandle = { params: DEFAULT_SIM_PARAMS, userWeights: {}, seed: 1 };

/** A scheduling context's `changes` when a test does not track them. */
export const NO_CHANGES = { queued: [], started: [], stopped: [], resized: [] } as const;

/** A run summary whose every count, time and ratio is `n` (no fault types, wait reasons or users listed), with `fields` in their place. */
export function uniformSummary(n: number, fields: Partial<RunSummary> = {}): RunSummary {
  const quantiles = { mean: n, p50: n, p90: n, p99: n };
  return {
    scenario: 's',
    policy: 'p',
    seed: 0,
    jobs: { submitted: n, completed: n, failed: n, unfinished: n },
    makespanS: n,
    jctS: quantiles,
    queueDelayS: quantiles,
    waitS: quantiles,
    ettr: n,
    runtimeRatio: n,
    gpuAllocationRate: n,
    gpuUtilization: n,
    cpuAllocationRate: n,
    faults: { total: n, byType: {}, daysWithFault: n },
    restarts: n,
    oomKills: n,
    scalePlans: n,
    lostGpuHours: n,
    downtimeGpuHours: n,
    cpuStarvedWaitS: { mean: n, total: n, share: n },
    dataWorkers: { meanPerJob: n },
    waitByReason: {},
    fairness: { users: n, jainSlowdown: n, slowdownMean: n },
    perUser: { top: [], other: null },
    events: n,
    perf: { wallS: n, eventsPerS: n },
    ...fields,
  };
}

/** Decisions without the job views their starts may carry: for comparing the decisions of separate runs, or a policy's with a reference's. */
export function withoutViews(decisions: readonly Decision[]): Decision[] {
  return decisions.map((decision) => {
    if (decision.kind !== 'start' || decision.job === undefined) return decision;
    const { job: _view, ...plain } = decision;
    return plain;
  });
}
