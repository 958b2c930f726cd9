/** GoldMiner in the simulation: speed from the input supply, data workers that grow and yield, CPU never over-allocated. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { Simulation, simulate } from '../../src/sim/simulation.js';
import { batchJob, psJob, scenarioOf } from '../helpers.js';

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
    const { jobs, timeline } = simulate(scenarioOf(seedMachines(1), [job], { policy: 'goldminer' }), { checkInvariants: true });
    const speedup = coupled / jobs[0]!.endS!;
    // The timeline says each change of the cluster's data workers: growth, then all given back at the end.
    const counts = timeline.filter((row) => row.event === 'data-workers').map((row) => Number.parseInt(row.detail, 10));
    expect(counts.length).toBeGreaterThan(2);
    expect(Math.max(...counts)).toBe(15);
    expect(counts[counts.length - 1]).toBe(0);
    console.log(`goldminer single job: ${speedup.toFixed(2)}x faster than coupled (bound: 64/8 = 8x; the paper: up to 12.1x)`);
    // 2 vCPU kept + 15 data workers of 4 = 62 of the 64 it needs, after a few ticks of growth.
    expect(speedup).toBeGreaterThan(7);
    expect(speedup).toBeLessThanOrEqual(8);
  });
});

describe('data-worker growth', () => {
  it('stops once the input queue stays full, and settles at the smallest count that keeps it so', () => {
    // Needs 16 vCPU per GPU: reachable on one machine, so its queue fills and stays full.
    const job = inputJob('image', 0, 1, 8_000, 20 * HOUR_S, 16_000);
    const workersAt = (horizonS: number): number => {
      const sim = new Simulation(scenarioOf(seedMachines(1), [job], { policy: 'goldminer', horizonS }), { checkInvariants: true });
      sim.run();
      return sim.cluster.auxOf('image').length;
    };
    // 2 vCPU kept + 4 workers of 4 = 18 >= 16: the smallest count that keeps up, found within the first hour.
    const settled = workersAt(1 * HOUR_S);
    expect(settled).toBe(4);
    expect(workersAt(5 * HOUR_S)).toBe(settled);
    expect(workersAt(15 * HOUR_S)).toBe(settled);
    // It then stays: the timeline has no change of the workers between the first hour and the end.
    const { timeline } = simulate(scenarioOf(seedMachines(1), [job], { policy: 'goldminer' }));
    const changes = timeline.filter((row) => row.event === 'data-workers');
    expect(changes.filter((row) => row.timeS > HOUR_S && row.detail !== '0 data workers')).toEqual([]);
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

describe('coupled', () => {
  // A holds 4 GPUs and 32 vCPU of the machine for 10 h; B asks for 1 GPU and all 64 vCPU its input needs.
  const a = inputJob('a', 0, 4, 32_000, 10 * HOUR_S, 8_000);
  const b = inputJob('b', 1, 1, 64_000, HOUR_S, 64_000);

  it('makes a job wait for its CPU although GPUs are free', () => {
    const { jobs } = simulate(scenarioOf(seedMachines(1), [a, b], { policy: 'fifo' }), { checkInvariants: true });
    const waiting = jobs.find((j) => j.spec.id === 'b')!;
    expect(waiting.firstStartS).toBe(10 * HOUR_S);
    expect(waiting.endS).toBe(11 * HOUR_S);
  });

  it('with maxCpuCoresPerGpu, starts it at once with that CPU, starved', () => {
    const policies = { data: { name: 'coupled', options: { maxCpuCoresPerGpu: 8 } } };
    const { jobs } = simulate(scenarioOf(seedMachines(1), [a, b], { policy: 'fifo', policies }), { checkInvariants: true });
    const starved = jobs.find((j) => j.spec.id === 'b')!;
    expect(starved.firstStartS).toBe(1);
    // 8 of the 64 vCPU its input needs: an eighth of its speed.
    expect(starved.endS! - 1).toBeCloseTo(8 * HOUR_S, 6);
  });
});

describe('no CPU is ever over-allocated between training tasks and data workers', () => {
  it('holds after every instant of random goldminer runs (the invariant checker re-derives every node)', () => {
    const jobArb = fc.record({
      submitS: fc.integer({ min: 0, max: 4 * HOUR_S }),
      gpus: fc.constantFrom(1, 2, 4, 8),
      cpuCores: fc.integer({ min: 1, max: 64 }),
      durationS: fc.integer({ min: 60, max: 6 * HOUR_S }),
      needCores: fc.constantFrom(4, 12, 16, 24, 32, 64),
    });
    fc.assert(
      fc.property(fc.array(jobArb, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (drawn, machines) => {
        const jobs = drawn.map((j, k) => inputJob(`j${k}`, j.submitS, j.gpus, Math.min(64, j.cpuCores) * 1000, j.durationS, j.needCores * 1000));
        const result = simulate(scenarioOf(seedMachines(machines), jobs, { policy: 'goldminer' }), { checkInvariants: true });
        expect(result.summary.jobs.completed).toBe(jobs.length);
      }),
      { numRuns: 40, seed: 14 },
    );
  });
});

describe('a tracked parameter-server job', () => {
  it("keeps its PS truth in its samples, with its input queue's fill", () => {
    // A PS job whose two workers train on one GPU each.
    const cpuOnly = psJob('ps-gpu', 2, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16_384 } }, 1e6);
    const worker = cpuOnly.roles[0]!;
    const spec: JobSpec = {
      ...cpuOnly,
      roles: [{ ...worker, demand: { ...worker.demand, gpus: 1 } }, cpuOnly.roles[1]!],
      psTruth: { variableSizes: [1], psMemBaseMiB: 4096, psMemGrowthMiBPerStep: 0, workerMemMiB: 2048, workerCpuMilli: 4000, psCpuMilli: 4000 },
      preprocessing: { cpuMilliPerGpu: 16_000 },
    };
    const result = simulate(scenarioOf(seedMachines(1), [spec], { policy: 'goldminer', horizonS: HOUR_S }), { checkInvariants: true });
    const samples = result.samplesOf('ps-gpu');
    const last = samples[samples.length - 1]!;
    expect(last.inputQueueLevel).toBeDefined();
    const ps = last.roles.find((role) => role.role === 'ps')!;
    // Per-replica PS records come only from the PS truth's own measurement.
    expect(ps.perReplica?.length).toBe(1);
  });
});
