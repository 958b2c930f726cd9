import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskPlacement } from '../../src/model/allocation.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { presetNames } from '../../src/policies/presets.js';
import { createDrf, dominantShare } from '../../src/policies/scheduling/drf.js';
import { createDrfDynamic, DRF_DYNAMIC_INTERVAL_S } from '../../src/policies/scheduling/drf-dynamic.js';
import type { JobView, SchedulingAction, SchedulingContext } from '../../src/policies/types.js';
import { loadScenario } from '../../src/scenario/load.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { batchJob, gpuCluster, scenarioOf, NO_CHANGES } from '../helpers.js';

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
  const running = runningJobs.map(({ spec: jobSpec, tasks }, index) => {
    cluster.allocate(jobSpec.id, tasks);
    const job = new JobRuntime(jobSpec, 1, { nowS: 0 });
    job.arrivalIndex = index;
    job.phase = 'running';
    job.firstStartS = 0;
    job.workers = tasks.filter((t) => t.role === 'worker').length;
    job.ps = tasks.filter((t) => t.role === 'ps').length;
    return job;
  });
  const queued = queuedSpecs.map((jobSpec, index) => {
    const job = new JobRuntime(jobSpec, 1, { nowS: 0 });
    job.arrivalIndex = running.length + index;
    job.phase = 'queued';
    return job;
  });
  return { nowS: 0, cluster, queued, queuedInOrder: () => queued, running, placement: packPlacement, scratch: () => new CapacityScratch(cluster), changes: NO_CHANGES };
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

  it('drf-dynamic re-runs DRF at its first pass: a running elastic job grows from its minimum (resize, add only); drf does not', () => {
    // A holds 3 tasks (3 cores, 12 GiB) alone: 6 GiB left, so DRF from scratch gives it a 4th task.
    const a = elasticCpuJob('A', 0, 1, 4, 1e6);
    const tasks: TaskPlacement[] = Array.from({ length: 3 }, () => ({ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: a.roles[0]!.demand }));
    expect(createDrf().schedule(contextOf(cpuNode(9, 18), [], [{ spec: a, tasks }]))).toEqual([]);
    const actions = createDrfDynamic().schedule(contextOf(cpuNode(9, 18), [], [{ spec: a, tasks }]));
    expect(actions).toHaveLength(1);
    const resize = actions[0]!;
    expect(resize.kind).toBe('resize');
    if (resize.kind !== 'resize') return;
    expect(resize.remove).toEqual([]);
    expect(resize.add).toHaveLength(1);
    // A job at its maximum is left alone.
    const full = elasticCpuJob('F', 0, 1, 4, 1e6, 3);
    expect(createDrfDynamic().schedule(contextOf(cpuNode(9, 18), [], [{ spec: full, tasks }]))).toEqual([]);
  });

  it('drf-dynamic shrinks a job above its share for a user who holds less (remove only the excess)', () => {
    // A (user A) holds 6 of 9 cores; B (user B) runs 1 task of 1 core and has 2 cores free to grow into.
    // From scratch both users get 4 cores (A first on the submission tie-break: 5 and 4), so A gives back 1.
    const a = elasticCpuJob('A', 0, 1, 1, 1e6);
    const b = elasticCpuJob('B', 1, 1, 1, 1e6);
    const task = (spec: JobSpec): TaskPlacement => ({ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: spec.roles[0]!.demand });
    const actions = createDrfDynamic().schedule(
      contextOf(cpuNode(9, 64), [], [
        { spec: a, tasks: Array.from({ length: 6 }, () => task(a)) },
        { spec: b, tasks: [task(b)] },
      ]),
    );
    const byJob = Object.fromEntries(actions.map((x) => [x.jobId, x]));
    expect(byJob.A).toMatchObject({ kind: 'resize', add: [] });
    expect(byJob.A!.kind === 'resize' && byJob.A!.remove.length).toBe(1);
    expect(byJob.B).toMatchObject({ kind: 'resize', remove: [] });
    expect(byJob.B!.kind === 'resize' && byJob.B!.add.length).toBe(3);
  });

  it('in the simulation, drf-dynamic moves to the DRF example at its interval; drf keeps the allocation of arrival', () => {
    // A alone at t=0 takes 4 tasks (16 of 18 GiB). B arrives at 100 s and starts with 1 task in the
    // 5 cores left. At 600 s drf-dynamic re-runs DRF from the minimum: A 3 tasks, B 2 (the paper's example).
    const a = elasticCpuJob('A', 0, 1, 4, 1e6);
    const b = elasticCpuJob('B', 100, 3, 1, 1e6);
    const run = (policy: string) => {
      const sim = new Simulation(scenarioOf(cpuNode(9, 18), [a, b], { policy, horizonS: 700 }), { checkInvariants: true });
      return { sim, result: sim.run() };
    };
    const dynamic = run('drf-dynamic');
    expect(DRF_DYNAMIC_INTERVAL_S).toBe(600);
    expect(dynamic.result.jobs.map((j) => [j.spec.id, j.workers, j.resizes])).toEqual([
      ['A', 3, 1],
      ['B', 2, 1],
    ]);
    expect(dynamic.result.jobs[1]!.firstStartS).toBe(100);
    // The resize pauses both jobs sim.resizePause (30 s): B's progress is what 1 task did for 500 s,
    // plus 2 tasks for 100 - 30 = 70 s.
    const pausedB = dynamic.result.jobs[1]!.progressSteps;
    const fixed = run('drf');
    expect(fixed.result.jobs.map((j) => [j.spec.id, j.workers, j.resizes])).toEqual([
      ['A', 4, 0],
      ['B', 1, 0],
    ]);
    expect(pausedB).toBeCloseTo(500 + 70 * 2, 6);
  });
});

/** A rigid 1-GPU batch job of `user` running `durationS`. */
function gpuJobOf(user: string, index: number, durationS: number): JobSpec {
  return { ...batchJob(`${user}-${String(index).padStart(3, '0')}`, 0, 1, durationS), user };
}

describe('drf shares per user', () => {
  it("counts what a user's running jobs hold: a queued job of a user who holds nothing goes first", () => {
    // 9 cores; user X runs a job holding 6. X's queued job (earlier) and Y's both need the 3 free cores.
    const running = rigidCpuJob('X-run', 0, 1, 6, 1, 1000);
    const tasks: TaskPlacement[] = [{ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: running.roles[0]!.demand }];
    const x = { ...rigidCpuJob('X-next', 1, 1, 3, 1, 100), user: 'X' };
    const y = { ...rigidCpuJob('Y-first', 2, 1, 3, 1, 100), user: 'Y' };
    const actions = createDrf().schedule(contextOf(cpuNode(9, 64), [x, y], [{ spec: { ...running, user: 'X' }, tasks }]));
    expect(counts(actions)).toEqual({ 'Y-first': { worker: 1 } });
  });

  it('sums the shares of all jobs of a user: two jobs of one user split what one job of another user gets', () => {
    // 12 cores, 1-core tasks: user U has jobs u1 and u2, user V has v1. DRF by user: U 6 (3 + 3), V 6.
    const u1 = { ...elasticCpuJob('u1', 0, 1, 1, 1e6), user: 'U' };
    const u2 = { ...elasticCpuJob('u2', 0, 1, 1, 1e6), user: 'U' };
    const v1 = { ...elasticCpuJob('v1', 0, 1, 1, 1e6), user: 'V' };
    expect(counts(createDrf().schedule(contextOf(cpuNode(12, 64), [u1, u2, v1])))).toEqual({
      u1: { worker: 3 },
      u2: { worker: 3 },
      v1: { worker: 6 },
    });
  });

  it('divides a share by the user weight: weights 2:1 give 6 and 3 of 9 cores', () => {
    const alice = { ...elasticCpuJob('a', 0, 1, 1, 1e6), user: 'alice' };
    const bob = { ...elasticCpuJob('b', 0, 1, 1, 1e6), user: 'bob' };
    const actions = createDrf({ userWeights: { alice: 2 } }).schedule(contextOf(cpuNode(9, 64), [alice, bob]));
    expect(counts(actions)).toEqual({ a: { worker: 6 }, b: { worker: 3 } });
  });

  it('in the simulation, shares of two users with weights 2:1 converge to 2:1', async () => {
    // 12 GPUs; both users keep a backlog of rigid 1-GPU jobs of random lengths. Every freed GPU goes
    // to the user with the lower weighted share, so GPU-time held converges to 2:1 (checked over 20 seeds).
    const ratios: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const jobs: JobSpec[] = [];
      let state = seed;
      const next = () => ((state = (state * 48271) % 2147483647) / 2147483647);
      for (let i = 0; i < 200; i++) {
        jobs.push(gpuJobOf('alice', i, 600 + Math.round(3000 * next())));
        jobs.push(gpuJobOf('bob', i, 600 + Math.round(3000 * next())));
      }
      const scenario = scenarioOf(gpuCluster(1, 12), jobs, { policy: 'drf', horizonS: 6 * 3600, userWeights: { alice: 2, bob: 1 } });
      const result = new Simulation(scenario, { checkInvariants: true }).run();
      const gpuS = (user: string) => result.jobs.filter((j) => j.spec.user === user).reduce((sum, j) => sum + j.attainedGpuS, 0);
      ratios.push(gpuS('alice') / gpuS('bob'));
    }
    for (const ratio of ratios) {
      expect(ratio).toBeGreaterThan(1.7);
      expect(ratio).toBeLessThan(2.3);
    }
    const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    expect(mean).toBeGreaterThan(1.9);
    expect(mean).toBeLessThan(2.1);
  });

  it('treats jobs without a user as users of their own', () => {
    // 6 cores: anonymous a and b and user N's job n are three users, 2 cores each (one user "" would get 3).
    const a = { ...elasticCpuJob('a', 0, 1, 1, 1e6), user: '' };
    const b = { ...elasticCpuJob('b', 1, 1, 1, 1e6), user: '' };
    const n = { ...elasticCpuJob('n', 2, 1, 1, 1e6), user: 'N' };
    expect(counts(createDrf().schedule(contextOf(cpuNode(6, 64), [a, b, n])))).toEqual({ a: { worker: 2 }, b: { worker: 2 }, n: { worker: 2 } });
  });
});

describe('drf-dynamic between re-allocations', () => {
  it('counts what users hold after changes a re-allocation pass was told of', () => {
    // A (user u) starts at 1 s; the re-allocation at 10 s is told of that start; at 11 s B (u)
    // and C (v) arrive and only one fits: u holds half the cluster, so C goes first although B was submitted earlier.
    const cluster = new ClusterState(cpuNode(4, 64));
    const job = (id: string, user: string, submitS: number): JobView =>
      ({ request: { ...rigidCpuJob(id, submitS, 1, 2, 1, 100), user }, phase: 'queued', queuePosition: submitS, arrivalIndex: submitS, paused: false, workers: 0, ps: 0 }) as unknown as JobView;
    const [a, b, c] = [job('A', 'u', 1), job('B', 'u', 2), job('C', 'v', 3)];
    const policy = createDrfDynamic({ intervalS: 10 });
    const pass = (nowS: number, queued: JobView[], running: JobView[], changes: Partial<SchedulingContext['changes']>): readonly SchedulingAction[] =>
      policy.schedule({ nowS, cluster, queued, queuedInOrder: () => queued, running, placement: packPlacement, scratch: () => new CapacityScratch(cluster), changes: { ...NO_CHANGES, ...changes } });
    expect(pass(0, [], [], {})).toEqual([]);
    const started = pass(1, [a], [], { queued: [a] });
    expect(started.map((s) => s.jobId)).toEqual(['A']);
    cluster.allocate('A', started[0]!.kind === 'start' ? started[0]!.tasks : []);
    Object.assign(a, { phase: 'running', workers: 1 });
    expect(pass(10, [], [a], { started: [a] })).toEqual([]);
    expect(pass(11, [b, c], [a], { queued: [b, c] }).map((s) => s.jobId)).toEqual(['C']);
  });
});

describe('scenario users', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-drf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const BODY = `cluster:\n  nodes:\n    - {count: 1, cpuCores: 9, memGiB: 18}\nworkload:\n  jobs:\n    - {id: a, user: alice, duration: 1h}\n`;

  it('reads user weights (default 1) into the scenario', async () => {
    const scenario = await loadScenario(write('ok.yaml', `users:\n  alice: {weight: 2}\n  bob: {}\n${BODY}`), { knownPolicies: presetNames() });
    expect(scenario.userWeights).toEqual({ alice: 2, bob: 1 });
    expect(scenario.jobs[0]!.user).toBe('alice');
  });

  it('rejects a weight that is not positive with its YAML path and line', async () => {
    const file = write('bad.yaml', `users:\n  alice: {weight: 0}\n${BODY}`);
    await expect(loadScenario(file, { knownPolicies: presetNames() })).rejects.toThrow(`${file}:2: users.alice.weight: expected a positive number`);
    const unknown = write('unknown.yaml', `users:\n  alice: {share: 2}\n${BODY}`);
    await expect(loadScenario(unknown, { knownPolicies: presetNames() })).rejects.toThrow(`${unknown}:2: users.alice: unknown key "share"`);
  });
});
