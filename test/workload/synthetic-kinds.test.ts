import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { nominalStepsPerS } from '../../src/model/speed.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { convergenceStep } from '../../src/model/observations.js';
import { EDL_MAX_FACTOR, EDL_MIN_TRAINERS, EDL_REQUEST_FACTOR, EDL_TRAINER_GPUS } from '../../src/workload/generators/edl-trainers.js';
import { OPTIMUS_PS_MAX_WORKERS, OPTIMUS_PS_REFERENCE_HOURS } from '../../src/workload/generators/optimus-ps.js';
import { generateSyntheticJobs, type SyntheticSpec } from '../../src/workload/synthetic.js';

const SPEC: SyntheticSpec = {
  jobs: 2000,
  meanInterarrivalS: 60,
  startS: 0,
  backlog: 0,
  durationMedianS: 3600,
  durationSigma: 0.9,
  durationMinS: 60,
  durationMaxS: 2 * 86400,
  gpuMix: [
    { gpus: 1, weight: 0.5 },
    { gpus: 4, weight: 0.3 },
    { gpus: 16, weight: 0.2 },
  ],
  gpusPerNode: 8,
  cpuCoresPerGpu: 8,
  memGiBPerGpu: 64,
  kinds: [
    { kind: 'batch', weight: 0.4 },
    { kind: 'elastic', weight: 0.3 },
    { kind: 'ps', weight: 0.2 },
    { kind: 'llm', weight: 0.1 },
  ],
  gpuTypes: [],
  user: 'synthetic',
  users: 0,
};

function generate(spec: Partial<SyntheticSpec> = {}, seed = 1): JobSpec[] {
  return generateSyntheticJobs({ ...SPEC, ...spec }, new RandomStreams(seed), 'test.yaml: workload.synthetic');
}

/** The generator's kind of a job, read off its shape. */
function kindOf(job: JobSpec): string {
  if (job.kind === 'ps') return 'ps';
  if (job.kind === 'batch') return 'batch';
  return job.checkpoint ? 'llm' : job.elastic ? 'elastic' : 'allreduce';
}

describe('synthetic job kinds', () => {
  it('draws kinds by their weights (shares within ±4.5 points, 4 binomial sd, on each of 20 seeds)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const jobs = generate({}, seed);
      const share = (kind: string) => jobs.filter((j) => kindOf(j) === kind).length / jobs.length;
      for (const { kind, weight } of SPEC.kinds) {
        expect(share(kind)).toBeGreaterThan(weight - 0.045);
        expect(share(kind)).toBeLessThan(weight + 0.045);
      }
    }
  });

  it('elastic all-reduce jobs run from half to twice their requested workers (1-GPU workers up to a node, whole nodes above)', () => {
    const elastic = generate().filter((j) => kindOf(j) === 'elastic');
    expect(elastic.length).toBeGreaterThan(400);
    for (const job of elastic) {
      const worker = job.roles[0]!;
      expect(job.speed.kind).toBe('allreduce');
      const gpus = worker.replicas * worker.demand.gpus;
      expect([1, 4, 16]).toContain(gpus);
      expect(worker.demand.gpus).toBe(gpus > 8 ? 8 : 1);
      expect(job.elastic).toEqual({ minReplicas: Math.ceil(worker.replicas / 2), maxReplicas: 2 * worker.replicas, unit: 1 });
    }
  });

  it('edl jobs draw trainer size, minimum and maximum from their tables (shares within 4 binomial sd) and train the drawn duration at twice their minimum', () => {
    const edl = generate({ kinds: [{ kind: 'edl', weight: 1 }] });
    const share = (values: number[], value: number) => values.filter((v) => v === value).length / values.length;
    const sd4 = (p: number) => 4 * Math.sqrt((p * (1 - p)) / edl.length);
    const trainerGpus = edl.map((j) => j.roles[0]!.demand.gpus);
    const mins = edl.map((j) => j.elastic!.minReplicas);
    const factors = edl.map((j) => j.elastic!.maxReplicas / j.elastic!.minReplicas);
    for (const [values, table] of [[trainerGpus, EDL_TRAINER_GPUS], [mins, EDL_MIN_TRAINERS], [factors, EDL_MAX_FACTOR]] as const) {
      for (const [value, weight] of table) expect(Math.abs(share(values, value) - weight)).toBeLessThan(sd4(weight));
    }
    const plain = generate({ kinds: [{ kind: 'batch', weight: 1 }] });
    edl.forEach((job, i) => {
      expect(job.roles[0]!.replicas).toBe(EDL_REQUEST_FACTOR * job.elastic!.minReplicas);
      expect(job.elastic!.unit).toBe(1);
      expect(job.totalSteps / nominalStepsPerS(job)).toBeCloseTo(Math.round(plain[i]!.totalSteps), 6);
      expect(job.roles[0]!.demand.cpuMilli).toBe(SPEC.cpuCoresPerGpu * job.roles[0]!.demand.gpus * 1000);
    });
  });

  it('a backlog submits the first jobs at the start and leaves the later arrivals where they were', () => {
    const without = generate({ startS: 100 });
    const withBacklog = generate({ startS: 100, backlog: 10 });
    expect(withBacklog.slice(0, 10).every((j) => j.submitS === 100)).toBe(true);
    const gapsWithout = without.slice(10).map((j, i) => j.submitS - without[i + 9]!.submitS);
    const gapsWith = withBacklog.slice(10).map((j, i) => j.submitS - withBacklog[i + 9]!.submitS);
    gapsWith.slice(1).forEach((gapS, i) => expect(gapS).toBeCloseTo(gapsWithout[i + 1]!, 6));
    expect(withBacklog.map((j) => j.totalSteps)).toEqual(without.map((j) => j.totalSteps));
  });

  it('PS jobs follow the Optimus validation generator: 4 workers + 2 PS, 1-16 workers, loss curves, 1-8 h at the request', () => {
    const ps = generate().filter((j) => kindOf(j) === 'ps');
    let gpuJobs = 0;
    for (const job of ps) {
      const [worker, server] = job.roles;
      expect(worker).toMatchObject({ role: 'worker', replicas: 4 });
      expect(server).toMatchObject({ role: 'ps', replicas: 2, demand: { cpuMilli: 8000, memMiB: 32 * 1024, gpus: 0 } });
      expect(job.elastic).toEqual({ minReplicas: 1, maxReplicas: OPTIMUS_PS_MAX_WORKERS, unit: 1 });
      if (worker!.demand.gpus === 1) gpuJobs++;
      const loss = job.loss!;
      expect(job.totalSteps).toBe(convergenceStep(loss));
      const hours = job.totalSteps / nominalStepsPerS(job) / 3600;
      // Rounding of the loss parameters moves the convergence step by < 1%.
      expect(hours).toBeGreaterThan(OPTIMUS_PS_REFERENCE_HOURS.min * 0.99);
      expect(hours).toBeLessThan(OPTIMUS_PS_REFERENCE_HOURS.max * 1.01);
      if (job.speed.kind !== 'ps-async') throw new Error('expected ps-async speed');
      const { t0, t1 } = job.speed;
      expect(t0).toBeGreaterThanOrEqual(0.1 * 0.995);
      expect(t0).toBeLessThanOrEqual(0.6 * 1.005);
      expect(t1 / t0).toBeGreaterThan(0.05 * 0.9);
      expect(t1 / t0).toBeLessThan(2 * 1.1);
    }
    // 60% GPU jobs (the rest CPU jobs): within ±6 points for ~400 jobs.
    expect(gpuJobs / ps.length).toBeGreaterThan(0.54);
    expect(gpuJobs / ps.length).toBeLessThan(0.66);
  });

  it('LLM jobs are 16-node elastic all-reduce jobs (8-16 nodes in units of 8) that checkpoint', () => {
    const llm = generate().filter((j) => kindOf(j) === 'llm');
    expect(llm.length).toBeGreaterThan(100);
    for (const job of llm) {
      expect(job.roles[0]).toMatchObject({ replicas: 16, demand: { gpus: 8 } });
      expect(job.elastic).toEqual({ minReplicas: 8, maxReplicas: 16, unit: 8 });
      expect(job.checkpoint).toEqual({ intervalS: 'auto', saveS: 600, loadS: 480, flash: false });
      if (job.speed.kind !== 'allreduce') throw new Error('expected allreduce speed');
      const stepS = job.speed.computeS + job.speed.commS;
      expect(stepS).toBeGreaterThanOrEqual(2 * 0.999);
      expect(stepS).toBeLessThanOrEqual(10 * 1.001);
      expect(job.speed.commS / stepS).toBeGreaterThan(0.1 * 0.99);
      expect(job.speed.commS / stepS).toBeLessThan(0.3 * 1.01);
    }
  });

  it('spreads jobs over `users` users with Zipf activity: user 1 submits about twice as many as user 2', () => {
    const ratios: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const jobs = generate({ users: 4 }, seed);
      const count = (user: string) => jobs.filter((j) => j.user === user).length;
      expect(new Set(jobs.map((j) => j.user))).toEqual(new Set(['user-1', 'user-2', 'user-3', 'user-4']));
      ratios.push(count('user-1') / count('user-2'));
    }
    // ~960 and ~480 jobs: the ratio's sd is ~0.11, so 2 ± 0.45 is 4 sd.
    for (const ratio of ratios) {
      expect(ratio).toBeGreaterThan(1.55);
      expect(ratio).toBeLessThan(2.45);
    }
    const meanRatio = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    expect(meanRatio).toBeGreaterThan(1.9);
    expect(meanRatio).toBeLessThan(2.1);
    expect(new Set(generate({ users: 0 }).map((j) => j.user))).toEqual(new Set(['synthetic']));
  });

  it('keeps arrivals when the kind mix changes, and a single-kind batch mix draws what it drew before', () => {
    const base = generate();
    const other = generate({ kinds: [{ kind: 'ps', weight: 1 }] });
    expect(other.map((j) => j.submitS)).toEqual(base.map((j) => j.submitS));
    const batch = generate({ kinds: [{ kind: 'batch', weight: 1 }] });
    const batchAndPs = generate({ kinds: [{ kind: 'batch', weight: 1 }, { kind: 'ps', weight: 1 }] });
    const asBatch = batchAndPs.filter((j) => j.kind === 'batch');
    // A batch job's duration and shape do not depend on what the other jobs are.
    for (const job of asBatch) expect(batch.find((b) => b.id === job.id)).toEqual(job);
  });
});

describe('workload.synthetic kinds and users in a scenario', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-synthetic-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let count = 0;
  const load = (synthetic: string) => {
    const file = join(dir, `s${++count}.yaml`);
    writeFileSync(file, `cluster:\n  nodes:\n    - {count: 2, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}\nworkload:\n  synthetic:\n    jobs: 20\n    meanInterarrival: 5m\n${synthetic}`);
    return { file, loading: loadScenario(file, { knownPolicies: presetNames() }) };
  };

  it('reads a kind mix and a user count; PS-only mixes need neither duration nor gpus', async () => {
    const scenario = await load('    kinds: {ps: 1}\n    users: 3\n').loading;
    expect(scenario.jobs.every((j) => j.kind === 'ps' && j.loss !== undefined)).toBe(true);
    expect(new Set(scenario.jobs.map((j) => j.user)).size).toBeGreaterThan(1);
  });

  it('rejects an unknown kind, kind with kinds, and a mix that needs a duration without one', async () => {
    const unknown = load('    kinds: {rigid: 1}\n    duration: {median: 1h}\n    gpus: {1: 1}\n');
    await expect(unknown.loading).rejects.toThrow(`${unknown.file}:8: workload.synthetic.kinds`);
    const both = load('    kind: batch\n    kinds: {batch: 1}\n    duration: {median: 1h}\n    gpus: {1: 1}\n');
    await expect(both.loading).rejects.toThrow(`${both.file}:9: workload.synthetic.kinds: give either kind or kinds, not both`);
    const noDuration = load('    kinds: {ps: 1, llm: 1}\n');
    await expect(noDuration.loading).rejects.toThrow(`${noDuration.file}:5: workload.synthetic: needs duration (for llm jobs)`);
    const noGpus = load('    kinds: {elastic: 1}\n    duration: {median: 1h}\n');
    await expect(noGpus.loading).rejects.toThrow(`${noGpus.file}:5: workload.synthetic: needs gpus (for elastic jobs)`);
  });
});
