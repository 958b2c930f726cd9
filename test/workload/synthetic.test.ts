import { mean, median } from 'd3-array';
import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { ConfigError } from '../../src/errors.js';
import { generateSyntheticJobs, type SyntheticSpec } from '../../src/workload/synthetic.js';

const SPEC: SyntheticSpec = {
  jobs: 200,
  meanInterarrivalS: 90,
  startS: 0,
  backlog: 0,
  durationMedianS: 3600,
  durationSigma: 1.2,
  durationMinS: 60,
  durationMaxS: 3 * 86400,
  gpuMix: [
    { gpus: 1, weight: 0.45 },
    { gpus: 2, weight: 0.15 },
    { gpus: 8, weight: 0.3 },
    { gpus: 16, weight: 0.1 },
  ],
  gpusPerNode: 8,
  cpuCoresPerGpu: 8,
  memGiBPerGpu: 64,
  kinds: [{ kind: 'batch', weight: 1 }],
  gpuTypes: [],
  user: 'synthetic',
  users: 0,
};

const SOURCE = 'test.yaml: workload.synthetic';

function generate(spec: Partial<SyntheticSpec> = {}, seed = 1) {
  return generateSyntheticJobs({ ...SPEC, ...spec }, new RandomStreams(seed), SOURCE);
}

function totalGpus(job: ReturnType<typeof generate>[number]): number {
  const worker = job.roles[0]!;
  return worker.replicas * worker.demand.gpus;
}

describe('generateSyntheticJobs', () => {
  it('is a pure function of the spec and the seed', () => {
    expect(generate()).toEqual(generate());
  });

  it('gives different jobs for a different seed', () => {
    const a = generate({}, 1);
    const b = generate({}, 2);
    expect(a.map((job) => job.submitS)).not.toEqual(b.map((job) => job.submitS));
    expect(a.map((job) => job.totalSteps)).not.toEqual(b.map((job) => job.totalSteps));
  });

  it('draws arrivals, durations and shapes from separate streams', () => {
    const base = generate();
    const otherMix = generate({ gpuMix: [{ gpus: 4, weight: 1 }, { gpus: 32, weight: 3 }] });
    expect(otherMix.map((job) => job.submitS)).toEqual(base.map((job) => job.submitS));
    expect(otherMix.map((job) => job.totalSteps)).toEqual(base.map((job) => job.totalSteps));
    expect(otherMix.map(totalGpus)).not.toEqual(base.map(totalGpus));
    const otherDurations = generate({ durationMedianS: 60, durationSigma: 0.1 });
    expect(otherDurations.map((job) => job.submitS)).toEqual(base.map((job) => job.submitS));
    expect(otherDurations.map(totalGpus)).toEqual(base.map(totalGpus));
  });

  it('numbers jobs syn-00001, ... and submits them in order after start', () => {
    const jobs = generate({ jobs: 12, startS: 1000 });
    expect(jobs.map((job) => job.id)).toEqual(Array.from({ length: 12 }, (_, i) => `syn-${String(i + 1).padStart(5, '0')}`));
    expect(jobs[0]!.submitS).toBeGreaterThan(1000);
    for (let i = 1; i < jobs.length; i++) expect(jobs[i]!.submitS).toBeGreaterThanOrEqual(jobs[i - 1]!.submitS);
    expect(jobs.every((job) => job.source === SOURCE && job.user === 'synthetic')).toBe(true);
  });

  it('has a mean interarrival close to the configured one over 5,000 jobs', () => {
    const jobs = generate({ jobs: 5000, meanInterarrivalS: 90 });
    const gaps = jobs.map((job, i) => job.submitS - (i === 0 ? 0 : jobs[i - 1]!.submitS));
    // Standard error is 90 / sqrt(5000) ~ 1.3 s; allow about 4 of them.
    expect(mean(gaps)!).toBeGreaterThan(85);
    expect(mean(gaps)!).toBeLessThan(95);
  });

  it('draws GPU counts with frequencies close to the weights', () => {
    const jobs = generate({ jobs: 5000 });
    const totalWeight = SPEC.gpuMix.reduce((sum, entry) => sum + entry.weight, 0);
    for (const entry of SPEC.gpuMix) {
      const share = jobs.filter((job) => totalGpus(job) === entry.gpus).length / jobs.length;
      // Standard error is at most sqrt(0.25 / 5000) ~ 0.007.
      expect(Math.abs(share - entry.weight / totalWeight)).toBeLessThan(0.03);
    }
  });

  it('draws log-normal durations around the median, clamped to [min, max]', () => {
    const jobs = generate({ jobs: 5000, durationMinS: 600, durationMaxS: 20000 });
    const durations = jobs.map((job) => job.totalSteps);
    expect(Math.min(...durations)).toBe(600);
    expect(Math.max(...durations)).toBe(20000);
    expect(median(durations)!).toBeGreaterThan(3600 * 0.9);
    expect(median(durations)!).toBeLessThan(3600 * 1.1);
    const fixed = generate({ jobs: 10, durationSigma: 0 });
    expect(fixed.every((job) => job.totalSteps === 3600)).toBe(true);
  });

  it('splits jobs larger than a node into whole-node workers', () => {
    const shape = (gpus: number) => generate({ jobs: 1, gpuMix: [{ gpus, weight: 1 }] })[0]!.roles;
    expect(shape(16)).toEqual([
      { role: 'worker', replicas: 2, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 64000, memMiB: 64 * 8 * 1024 } },
    ]);
    expect(shape(8)).toEqual([
      { role: 'worker', replicas: 1, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 64000, memMiB: 64 * 8 * 1024 } },
    ]);
    expect(shape(6)).toEqual([
      { role: 'worker', replicas: 1, demand: { gpus: 6, gpuMilli: 1000, cpuMilli: 48000, memMiB: 64 * 6 * 1024 } },
    ]);
    expect(shape(0)).toEqual([{ role: 'worker', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 } }]);
  });

  it('rejects a GPU count above a node that is not a multiple of gpusPerNode', () => {
    expect(() => generate({ gpuMix: [{ gpus: 12, weight: 1 }] })).toThrow(ConfigError);
    expect(() => generate({ gpuMix: [{ gpus: 12, weight: 1 }] })).toThrowError(
      `${SOURCE}: a 12-GPU job spans whole nodes: expected a multiple of gpusPerNode (8)`,
    );
  });

  it('makes batch jobs fixed-speed and allreduce jobs 1 s steps with a 10% communication share', () => {
    const batch = generate({ jobs: 3 });
    expect(batch.every((job) => job.kind === 'batch' && job.speed.kind === 'fixed' && job.elastic === null)).toBe(true);
    const allreduce = generate({ jobs: 3, kinds: [{ kind: 'allreduce', weight: 1 }], gpuTypes: ['A100'] });
    for (const [i, job] of allreduce.entries()) {
      expect(job.kind).toBe('allreduce');
      expect(job.speed).toEqual({ kind: 'allreduce', computeS: 0.9, commS: 0.1 });
      expect(job.totalSteps).toBe(batch[i]!.totalSteps);
      expect(job.gpuTypes).toEqual(['A100']);
    }
  });
});
