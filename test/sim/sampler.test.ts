import { describe, expect, it } from 'vitest';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { SPEED_NOISE } from '../../src/model/observations.js';
import { stepsPerS } from '../../src/model/speed.js';
import { trueUsage, type RoleShape } from '../../src/model/usage.js';
import type { UsageSample } from '../../src/model/usage.js';
import { CPU_USAGE_NOISE, MEM_USAGE_NOISE, Sampler, SAMPLES_KEPT, type UsageTruth, type TruthSource } from '../../src/sim/sampler.js';
import { allreduceJob, psJob } from '../helpers.js';

const PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };

/** A truth source over fixed jobs, each at its requested shape and model speed, counting reads. */
class FixedTruth implements TruthSource {
  reads = 0;
  private readonly truths = new Map<string, UsageTruth>();

  constructor(specs: readonly JobSpec[]) {
    for (const spec of specs) {
      const shape: RoleShape[] = spec.roles.map((r) => ({ role: r.role, replicas: r.replicas, demand: r.demand }));
      const workers = shape.filter((r) => r.role === 'worker').reduce((n, r) => n + r.replicas, 0);
      const ps = shape.filter((r) => r.role === 'ps').reduce((n, r) => n + r.replicas, 0);
      this.truths.set(spec.id, { jobId: spec.id, spec, shape, stepsPerS: stepsPerS(spec, { workers, ps }) });
    }
  }

  truthOf(jobId: string): UsageTruth {
    this.reads++;
    const truth = this.truths.get(jobId);
    if (!truth) throw new Error(`no job ${jobId}`);
    return truth;
  }
}

function jobs(count: number): JobSpec[] {
  const specs: JobSpec[] = [];
  for (let k = 0; k < count; k++) specs.push(psJob(`j${k}`, 2 + (k % 5), { replicas: 1 + (k % 2), demand: PS_DEMAND }, 1000));
  return specs;
}

/** `count` samples of the listened jobs, one every period. */
function run(sampler: Sampler, count: number, fromS = 0): void {
  for (let i = 0; i < count; i++) sampler.sampleAt(fromS + i * sampler.periodS);
}

describe('Sampler', () => {
  it('reads only listened jobs: cost per sample is proportional to them, not to all jobs', () => {
    const truth = new FixedTruth(jobs(100));
    const sampler = new Sampler({ periodS: 30, seed: 1 }, truth);
    run(sampler, 10);
    expect(truth.reads).toBe(0);
    for (const id of ['j1', 'j2', 'j3']) sampler.listen(id);
    run(sampler, 10, 300);
    expect(truth.reads).toBe(30);
    for (const id of ['j4', 'j5', 'j6']) sampler.listen(id);
    sampler.listen('j6'); // listening twice samples once
    run(sampler, 10, 600);
    expect(truth.reads).toBe(30 + 60);
    sampler.unlisten('j1');
    run(sampler, 10, 900);
    expect(truth.reads).toBe(90 + 50);
    expect(sampler.samplesOf('j7')).toEqual([]);
  });

  it('gives the same samples for the same seed, others for another seed', () => {
    const take = (seed: number): readonly UsageSample[] => {
      const sampler = new Sampler({ periodS: 30, seed }, new FixedTruth(jobs(3)));
      sampler.listen('j2');
      run(sampler, 20);
      return sampler.samplesOf('j2');
    };
    expect(take(7)).toEqual(take(7));
    expect(take(7)).not.toEqual(take(8));
  });

  it("does not change job A's samples when job B is listened too, before or part-way", () => {
    const alone = new Sampler({ periodS: 30, seed: 3 }, new FixedTruth(jobs(3)));
    alone.listen('j0');
    run(alone, 20);
    const together = new Sampler({ periodS: 30, seed: 3 }, new FixedTruth(jobs(3)));
    together.listen('j1');
    together.listen('j0');
    run(together, 10);
    together.listen('j2');
    together.unlisten('j1');
    run(together, 10, 300);
    expect(together.samplesOf('j0')).toEqual(alone.samplesOf('j0'));
    expect(together.samplesOf('j1')).toHaveLength(10);
  });

  it(`keeps the last ${SAMPLES_KEPT} records of a job, oldest first`, () => {
    const sampler = new Sampler({ periodS: 30, seed: 1 }, new FixedTruth(jobs(1)));
    sampler.listen('j0');
    run(sampler, 120);
    const samples = sampler.samplesOf('j0');
    expect(samples).toHaveLength(50);
    expect(samples[0]!.atS).toBe(70 * 30);
    expect(samples.at(-1)!.atS).toBe(119 * 30);
    for (let i = 1; i < samples.length; i++) expect(samples[i]!.atS - samples[i - 1]!.atS).toBe(30);
  });

  it('keeps a job\'s history after unlisten and drops it on forget', () => {
    const sampler = new Sampler({ periodS: 30, seed: 1 }, new FixedTruth(jobs(1)));
    sampler.listen('j0');
    run(sampler, 5);
    sampler.unlisten('j0');
    run(sampler, 5, 150);
    expect(sampler.samplesOf('j0').map((s) => s.atS)).toEqual([0, 30, 60, 90, 120]);
    sampler.forget('j0');
    expect(sampler.samplesOf('j0')).toEqual([]);
  });

  it('records each role with its replica count', () => {
    const sampler = new Sampler({ periodS: 30, seed: 1 }, new FixedTruth(jobs(2)));
    sampler.listen('j1');
    sampler.sampleAt(0);
    const [sample] = sampler.samplesOf('j1');
    expect(sample!.roles.map((r) => [r.role, r.replicas])).toEqual([
      ['worker', 3],
      ['ps', 2],
    ]);
  });

  it('rejects a sample time before the last one', () => {
    const sampler = new Sampler({ periodS: 30, seed: 1 }, new FixedTruth(jobs(1)));
    sampler.sampleAt(60);
    expect(() => sampler.sampleAt(30)).toThrow(/30 s is before the last sample at 60 s/);
  });

  it('never reports negative values nor CPU above the demand, even with large noise or a saturated PS', () => {
    const hot: JobSpec = { ...psJob('hot', 40, { replicas: 1, demand: PS_DEMAND }, 1000), speed: { kind: 'ps-async', t0: 0.1, t1: 5, t2: 0, t3: 0 } };
    const specs = [hot, allreduceJob('ar', { workers: 2, totalSteps: 10, computeS: 1, commS: 0.2 })];
    let clampedAtDemand = 0;
    let clampedAtZero = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const sampler = new Sampler({ periodS: 30, seed, cpuNoise: 1.5, memNoise: 1.5 }, new FixedTruth(specs));
      sampler.listen('hot');
      sampler.listen('ar');
      run(sampler, 50);
      for (const spec of specs) {
        for (const sample of sampler.samplesOf(spec.id)) {
          expect(sample.stepsPerS).toBeGreaterThanOrEqual(0);
          for (const r of sample.roles) {
            const demandCores = spec.roles.find((s) => s.role === r.role)!.demand.cpuMilli / 1000;
            expect(r.cpuUsedCores).toBeGreaterThanOrEqual(0);
            expect(r.cpuUsedCores).toBeLessThanOrEqual(demandCores);
            expect(r.memUsedMiB).toBeGreaterThanOrEqual(0);
            if (r.cpuUsedCores === demandCores) clampedAtDemand++;
            if (r.cpuUsedCores === 0 || r.memUsedMiB === 0) clampedAtZero++;
          }
        }
      }
    }
    // The bounds were reached, so the checks above tested them.
    expect(clampedAtDemand).toBeGreaterThan(0);
    expect(clampedAtZero).toBeGreaterThan(0);
  });

  it('is unbiased: over 30 seeds the mean of each sampled value is within a narrow band of the truth, its spread the stated noise', () => {
    // The PS job's usage stays well inside its demand, so no sample is clamped.
    const spec = psJob('j', 4, { replicas: 2, demand: PS_DEMAND }, 1000);
    const shape: RoleShape[] = spec.roles.map((r) => ({ role: r.role, replicas: r.replicas, demand: r.demand }));
    const truth = trueUsage(spec, shape, stepsPerS(spec, { workers: 4, ps: 2 }));
    const ratios: Record<string, number[]> = { steps: [], cpu: [], mem: [] };
    for (let seed = 1; seed <= 30; seed++) {
      const sampler = new Sampler({ periodS: 30, seed }, new FixedTruth([spec]));
      sampler.listen('j');
      run(sampler, SAMPLES_KEPT);
      for (const sample of sampler.samplesOf('j')) {
        ratios.steps!.push(sample.stepsPerS / truth.stepsPerS);
        sample.roles.forEach((r, i) => {
          ratios.cpu!.push(r.cpuUsedCores / truth.roles[i]!.cpuUsedCores);
          ratios.mem!.push(r.memUsedMiB / truth.roles[i]!.memUsedMiB);
        });
      }
    }
    const noise: Record<string, number> = { steps: SPEED_NOISE, cpu: CPU_USAGE_NOISE, mem: MEM_USAGE_NOISE };
    for (const [name, values] of Object.entries(ratios)) {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
      const level = noise[name]!;
      // Six standard errors either side of 1: a bias of that size would be a bug, chance almost never.
      const band = (6 * level) / Math.sqrt(values.length);
      expect(mean, name).toBeGreaterThan(1 - band);
      expect(mean, name).toBeLessThan(1 + band);
      expect(sd, name).toBeGreaterThan(0.85 * level);
      expect(sd, name).toBeLessThan(1.15 * level);
    }
  });
});
