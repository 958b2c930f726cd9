import { describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { presetNames } from '../../src/policies/presets.js';
import { createDrf, dominantShare } from '../../src/policies/scheduling/drf.js';
import type { SchedulingAction, SchedulingContext } from '../../src/policies/types.js';
import { loadScenario } from '../../src/scenario/load.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { scenarioOf } from '../helpers.js';

/** One CPU-only node of `cores` cores and `memGiB` GiB. */
function cpuNode(cores: number, memGiB: number): ClusterSpec {
  return { nodes: [{ name: 'c0', group: 'cpu', gpuType: null, gpus: 0, cpuMilli: cores * 1000, memMiB: memGiB * 1024, rack: 'r0' }] };
}

function cpuDemand(cores: number, memGiB: number): ReplicaDemand {
  return { gpus: 0, gpuMilli: 1000, cpuMilli: cores * 1000, memMiB: memGiB * 1024 };
}

/** An elastic CPU-only all-reduce job whose worker is one DRF task (1 step/s at 1 worker). */
function elasticCpuJob(id: string, submitS: number, cores: number, memGiB: number, steps: number, max = 100): JobSpec {
  return {
    id,
    kind: 'allreduce',
    submitS,
    user: id,
    gpuTypes: [],
    roles: [{ role: 'worker', replicas: 1, demand: cpuDemand(cores, memGiB) }],
    elastic: { minReplicas: 1, maxReplicas: max, unit: 1 },
    totalSteps: steps,
    speed: { kind: 'allreduce', computeS: 1, commS: 0 },
    source: `test:${id}`,
  };
}

/** A rigid CPU-only batch job of `replicas` workers. */
function rigidCpuJob(id: string, submitS: number, replicas: number, cores: number, memGiB: number, durationS: number): JobSpec {
  return {
    id,
    kind: 'batch',
    submitS,
    user: id,
    gpuTypes: [],
    roles: [{ role: 'worker', replicas, demand: cpuDemand(cores, memGiB) }],
    elastic: null,
    totalSteps: durationS,
    speed: { kind: 'fixed' },
    source: `test:${id}`,
  };
}

/** A context with the given queued jobs and running jobs (each with the tasks it holds). */
function contextOf(
  spec: ClusterSpec,
  queuedSpecs: JobSpec[],
  runningJobs: { spec: JobSpec; tasks: TaskPlacement[] }[] = [],
): SchedulingContext {
  const cluster = new ClusterState(spec);
  const running = runningJobs.map(({ spec: jobSpec, tasks }) => {
    cluster.allocate(jobSpec.id, tasks);
    const job = new JobRuntime(jobSpec, 1);
    job.phase = 'running';
    job.firstStartS = 0;
    job.workers = tasks.filter((t) => t.role === 'worker').length;
    job.ps = tasks.filter((t) => t.role === 'ps').length;
    return job;
  });
  const queued = queuedSpecs.map((jobSpec) => {
    const job = new JobRuntime(jobSpec, 1);
    job.phase = 'queued';
    return job;
  });
  return { nowS: 0, cluster, queued, running, placement: packPlacement, scratch: () => new CapacityScratch(cluster) };
}

/** Tasks per job and role that a decision gives, e.g. {A: {worker: 3}}. */
function counts(actions: readonly SchedulingAction[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const action of actions) {
    const tasks = action.kind === 'start' ? action.tasks : action.kind === 'resize' ? action.add : [];
    const byRole: Record<string, number> = {};
    for (const task of tasks) byRole[task.role] = (byRole[task.role] ?? 0) + 1;
    out[action.jobId] = byRole;
  }
  return out;
}

describe('drf scheduling', () => {
  it('reproduces the DRF paper example from its validation scenario: A 3 tasks, B 2 after the first pass', async () => {
    const scenario = await loadScenario('scenarios/validation/drf-example.yaml', { knownPolicies: presetNames() });
    expect(scenario.policy).toBe('drf');
    expect(scenario.cluster.nodes).toEqual([expect.objectContaining({ cpuMilli: 9000, memMiB: 18 * 1024, gpus: 0 })]);
    // Stop right after the first pass at t=0 (both jobs run for hours).
    const sim = new Simulation({ ...scenario, horizonS: 60 }, { checkInvariants: true });
    const result = sim.run();
    expect(sim.cluster.tasksOf('A')).toHaveLength(3);
    expect(sim.cluster.tasksOf('B')).toHaveLength(2);
    expect(result.jobs.map((j) => [j.spec.id, j.workers])).toEqual([
      ['A', 3],
      ['B', 2],
    ]);
    // Both dominant shares are 2/3: A's memory 12/18 GiB, B's CPU 6/9 cores; all 9 cores are used.
    expect(sim.cluster.freeCpuMilli(0)).toBe(0);
    expect(sim.cluster.freeMemMiB(0)).toBe(4 * 1024);
  });

  it('the validation scenario ends with both jobs together at 17160 s (only true at 3 and 2 workers)', async () => {
    const scenario = await loadScenario('scenarios/validation/drf-example.yaml', { knownPolicies: presetNames() });
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    expect(result.jobs.map((j) => j.endS)).toEqual([17160, 17160]);
    expect(result.summary.cpuAllocationRate).toBe(1);
  });

  it('computes weighted dominant shares over GPU, CPU and memory', () => {
    const capacity = { gpuMilli: 0, cpuMilli: 9000, memMiB: 18 * 1024 };
    expect(dominantShare({ gpuMilli: 0, cpuMilli: 3000, memMiB: 12 * 1024 }, capacity, 1)).toBeCloseTo(2 / 3, 12);
    expect(dominantShare({ gpuMilli: 0, cpuMilli: 6000, memMiB: 2 * 1024 }, capacity, 1)).toBeCloseTo(2 / 3, 12);
    expect(dominantShare({ gpuMilli: 0, cpuMilli: 6000, memMiB: 0 }, capacity, 2)).toBeCloseTo(1 / 3, 12);
    expect(dominantShare({ gpuMilli: 4000, cpuMilli: 1000, memMiB: 0 }, { gpuMilli: 8000, cpuMilli: 96_000, memMiB: 1 }, 1)).toBe(0.5);
  });

  it('gives the same example on a context: one start per job with 3 and 2 workers', () => {
    const actions = createDrf().schedule(contextOf(cpuNode(9, 18), [elasticCpuJob('A', 0, 1, 4, 1e6), elasticCpuJob('B', 0, 3, 1, 1e6)]));
    expect(actions.map((a) => a.kind)).toEqual(['start', 'start']);
    expect(counts(actions)).toEqual({ A: { worker: 3 }, B: { worker: 2 } });
  });

  it('breaks share ties by earlier submission, then by id', () => {
    // 3 cores, two identical elastic jobs of 1-core tasks: whoever wins the tie gets 2 of 3.
    const bySubmit = createDrf().schedule(contextOf(cpuNode(3, 64), [elasticCpuJob('a', 1, 1, 1, 1e6), elasticCpuJob('b', 0, 1, 1, 1e6)]));
    expect(counts(bySubmit)).toEqual({ a: { worker: 1 }, b: { worker: 2 } });
    const byId = createDrf().schedule(contextOf(cpuNode(3, 64), [elasticCpuJob('b', 0, 1, 1, 1e6), elasticCpuJob('a', 0, 1, 1, 1e6)]));
    expect(counts(byId)).toEqual({ a: { worker: 2 }, b: { worker: 1 } });
  });

  it('starts a rigid job only with its whole gang, as one task', () => {
    // 6 cores. E (elastic, 1-core tasks) gets 1, R (rigid 2 x 2 cores) its gang (4/6), E one more.
    const actions = createDrf().schedule(contextOf(cpuNode(6, 64), [elasticCpuJob('E', 0, 1, 1, 1e6), rigidCpuJob('R', 1, 2, 2, 1, 100)]));
    expect(counts(actions)).toEqual({ E: { worker: 2 }, R: { worker: 2 } });
    // With 3 cores the gang (4 cores) never fits and is skipped; E takes everything instead.
    const skipped = createDrf().schedule(contextOf(cpuNode(3, 64), [rigidCpuJob('R', 0, 2, 2, 1, 100), elasticCpuJob('E', 1, 1, 1, 1e6)]));
    expect(counts(skipped)).toEqual({ E: { worker: 3 } });
  });

  it('grows an elastic PS job by a worker plus a PS per task, from 1 worker and 1 PS', () => {
    const ps: JobSpec = {
      id: 'P',
      kind: 'ps',
      submitS: 0,
      user: '',
      gpuTypes: [],
      roles: [
        { role: 'worker', replicas: 2, demand: cpuDemand(1, 1) },
        { role: 'ps', replicas: 2, demand: cpuDemand(1, 1) },
      ],
      elastic: { minReplicas: 1, maxReplicas: 4, unit: 1 },
      totalSteps: 1e6,
      speed: { kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 },
      source: 'test:P',
    };
    // 5 cores: 1w+1ps, then +1w+1ps = 4 cores; the next task needs 2 and only 1 is free.
    expect(counts(createDrf().schedule(contextOf(cpuNode(5, 64), [ps])))).toEqual({ P: { worker: 2, ps: 2 } });
    // Growth stops at maxReplicas (4 workers) even with room to spare.
    expect(counts(createDrf().schedule(contextOf(cpuNode(64, 64), [ps])))).toEqual({ P: { worker: 4, ps: 4 } });
  });

  it('drf-elastic grows a running elastic job (resize, add only) when capacity is free; drf does not', () => {
    // A holds 3 tasks (3 cores, 12 GiB) after B finished: 6 GiB left, so one more 4 GiB task fits.
    const a = elasticCpuJob('A', 0, 1, 4, 1e6);
    const tasks: TaskPlacement[] = Array.from({ length: 3 }, () => ({ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: a.roles[0]!.demand }));
    expect(createDrf({ growRunning: false }).schedule(contextOf(cpuNode(9, 18), [], [{ spec: a, tasks }]))).toEqual([]);
    const actions = createDrf({ growRunning: true }).schedule(contextOf(cpuNode(9, 18), [], [{ spec: a, tasks }]));
    expect(actions).toHaveLength(1);
    const resize = actions[0]!;
    expect(resize.kind).toBe('resize');
    if (resize.kind !== 'resize') return;
    expect(resize.remove).toEqual([]);
    expect(resize.add).toHaveLength(1);
    // A job at its maximum is left alone.
    const full = elasticCpuJob('F', 0, 1, 4, 1e6, 3);
    expect(createDrf({ growRunning: true }).schedule(contextOf(cpuNode(9, 18), [], [{ spec: full, tasks }]))).toEqual([]);
  });

  it('in the simulation, drf-elastic grows the elastic job when the other finishes; drf keeps its allocation', () => {
    // A and B as in the paper; B ends after 1000 steps at 2 workers (step time 1/2 s: 500 s).
    // C needs the whole node (9 cores) and waits, so the finish of B triggers a pass: C still does
    // not fit next to A, so DRF gives A one more task (memory: 16 of 18 GiB).
    const a = elasticCpuJob('A', 0, 1, 4, 100_000);
    const b = elasticCpuJob('B', 0, 3, 1, 1000);
    const c = rigidCpuJob('C', 0, 1, 9, 1, 100);
    const sim = new Simulation(scenarioOf(cpuNode(9, 18), [a, b, c], { policy: 'drf-elastic', horizonS: 600 }), { checkInvariants: true });
    const result = sim.run();
    const [ja, jb, jc] = result.jobs;
    expect(jb!.endS).toBe(500);
    expect(ja!.workers).toBe(4);
    expect(ja!.resizes).toBe(1);
    expect(jc!.phase).toBe('queued');
    const fixed = new Simulation(scenarioOf(cpuNode(9, 18), [a, b, c], { policy: 'drf', horizonS: 600 }), { checkInvariants: true }).run();
    expect(fixed.jobs[0]!.workers).toBe(3);
    expect(fixed.jobs[0]!.resizes).toBe(0);
  });
});
