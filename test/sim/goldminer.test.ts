/** GoldMiner in the simulation: speed from the input supply, data workers that grow and yield, CPU never over-allocated. */
import { describe, expect, it } from 'vitest';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { Simulation, simulate } from '../../src/sim/simulation.js';
import { batchJob, scenarioOf } from '../helpers.js';

/** The seed's machine: 8 V100s and 64 vCPU. */
function seedMachines(count: number): ClusterSpec {
  return {
    nodes: Array.from({ length: count }, (_, k) => ({ name: `v${k}`, group: 'v100', gpuType: 'V100', gpus: 8, cpuMilli: 64_000, memMiB: 512 * 1024, rack: 'r0' })),
  };
}

/** A batch job of `gpus` GPUs asking `cpuMilli`, `durationS` at full speed, needing `needMilliPerGpu` per GPU for it. */
function inputJob(id: string, submitS: number, gpus: number, cpuMilli: number, durationS: number, needMilliPerGpu: number): JobSpec {
  const job = batchJob(id, submitS, gpus, durationS);
  const worker = job.roles[0]!;
  return { ...job, roles: [{ ...worker, demand: { ...worker.demand, cpuMilli } }], preprocessing: { cpuMilliPerGpu: needMilliPerGpu } };
}

const HOUR_S = 3600;

describe('one input-bound job (the seed single-job case)', () => {
  const job = inputJob('video', 0, 1, 8_000, 10 * HOUR_S, 64_000);

  it('coupled trains at 8/64 of its GPU speed', () => {
    const { jobs } = simulate(scenarioOf(seedMachines(1), [job], { policy: 'fifo' }), { checkInvariants: true });
    expect(jobs[0]!.endS).toBeCloseTo(80 * HOUR_S, 6);
  });

  it('goldminer brings it near full speed with data workers on the idle CPUs', () => {
    const coupled = simulate(scenarioOf(seedMachines(1), [job], { policy: 'fifo' })).jobs[0]!.endS!;
    const { jobs } = simulate(scenarioOf(seedMachines(1), [job], { policy: 'goldminer' }), { checkInvariants: true });
    const speedup = coupled / jobs[0]!.endS!;
    console.log(`goldminer single job: ${speedup.toFixed(2)}x faster than coupled (bound: 64/8 = 8x; the paper: up to 12.1x)`);
    // 2 vCPU kept + 15 data workers of 4 = 62 of the 64 it needs, after a few ticks of growth.
    expect(speedup).toBeGreaterThan(7);
    expect(speedup).toBeLessThanOrEqual(8);
  });
});

describe('data-worker growth', () => {
  it('stops once the input queue stays full', () => {
    // Needs 16 vCPU per GPU: reachable on one machine, so its queue fills and stays full.
    const job = inputJob('image', 0, 1, 8_000, 20 * HOUR_S, 16_000);
    const workersAt = (horizonS: number): number => {
      const sim = new Simulation(scenarioOf(seedMachines(1), [job], { policy: 'goldminer', horizonS }), { checkInvariants: true });
      sim.run();
      return sim.cluster.auxOf('image').length;
    };
    const early = workersAt(1 * HOUR_S);
    expect(early).toBeGreaterThan(0);
    expect(workersAt(5 * HOUR_S)).toBe(early);
    expect(workersAt(15 * HOUR_S)).toBe(early);
    // Full speed: the job takes its duration plus the growth's first minutes.
    const { jobs } = simulate(scenarioOf(seedMachines(1), [job], { policy: 'goldminer' }));
    expect(jobs[0]!.endS!).toBeGreaterThan(20 * HOUR_S);
    expect(jobs[0]!.endS!).toBeLessThan(20 * HOUR_S + 600);
  });

  it('yields CPUs to a newly placed training task in the same instant', () => {
    // The first job's data workers take the machine's idle CPU; the second asks for 7 GPUs and 56
    // vCPU (goldminer leaves it 14): it starts on arrival, taking CPU back from the data workers.
    const first = inputJob('video', 0, 1, 8_000, 20 * HOUR_S, 64_000);
    const second = inputJob('big', 2 * HOUR_S, 7, 56_000, HOUR_S, 8_000);
    const sim = new Simulation(scenarioOf(seedMachines(1), [first, second], { policy: 'goldminer', horizonS: 2 * HOUR_S }), { checkInvariants: true });
    sim.run();
    const before = sim.cluster.auxOf('video').length;
    expect(before).toBeGreaterThanOrEqual(12);
    const { jobs } = simulate(scenarioOf(seedMachines(1), [first, second], { policy: 'goldminer' }), { checkInvariants: true });
    const big = jobs.find((j) => j.spec.id === 'big')!;
    expect(big.firstStartS).toBe(2 * HOUR_S);
    // The first job kept training (slower) while the second ran: it still ends, later than alone.
    const alone = simulate(scenarioOf(seedMachines(1), [first], { policy: 'goldminer' })).jobs[0]!.endS!;
    expect(jobs.find((j) => j.spec.id === 'video')!.endS!).toBeGreaterThan(alone);
  });
});
