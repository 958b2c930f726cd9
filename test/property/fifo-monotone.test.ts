import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/simulation.js';
import { nodeGroupArb, ScenarioFiles, type ScenarioDoc } from './scenarios.js';

const files = new ScenarioFiles();
afterAll(() => files.remove());

/** A rigid job: a batch job, or an all-reduce or PS job without elastic bounds; no pod short of memory. */
const rigidJobArb = fc.oneof(
  fc.record({
    kind: fc.constant('batch'),
    submit: fc.integer({ min: 0, max: 20_000 }),
    replicas: fc.integer({ min: 1, max: 3 }),
    gpus: fc.constantFrom(0, 1, 2, 4, 8),
    cpuCores: fc.integer({ min: 1, max: 16 }),
    memGiB: fc.integer({ min: 1, max: 64 }),
    duration: fc.integer({ min: 60, max: 20_000 }),
  }),
  fc.record({
    kind: fc.constant('allreduce'),
    submit: fc.integer({ min: 0, max: 20_000 }),
    replicas: fc.integer({ min: 1, max: 4 }),
    gpus: fc.constantFrom(1, 2, 4, 8),
    cpuCores: fc.integer({ min: 1, max: 16 }),
    memGiB: fc.integer({ min: 1, max: 64 }),
    duration: fc.integer({ min: 60, max: 20_000 }),
    stepTime: fc.constantFrom(0.5, 1, 2),
  }),
);

function fifoDoc(nodes: readonly object[], jobs: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): ScenarioDoc {
  return {
    policy: 'fifo',
    cluster: { nodes: nodes.map((group, i) => ({ group: `g${i}`, ...group })) },
    workload: { jobs: jobs.map((job, i) => ({ id: `j${i}`, ...job })) },
    ...extra,
  };
}

/** A job's speed does not depend on the racks its workers are on. */
const SPEED_BY_RACKS_OFF = { sim: { crossRackSlowdown: 1 } };

async function run(doc: ScenarioDoc) {
  return simulate(await files.load(doc)).summary;
}

/**
 * Setting: the fifo preset (strict arrival order, gang start, packed placement), rigid jobs (an
 * elastic job's size depends on timing), no faults (a fault hits what runs when it strikes) and no
 * horizon. There every job that fits the cluster completes, so more capacity only adds jobs that
 * fit. With a horizon it fails, two ways (the examples below, which fast-check found): a job the
 * smaller cluster could never run now fits, holds the head of the queue and blocks the rest; or the
 * larger cluster places an all-reduce job across racks, where it runs slower and misses the horizon.
 *
 * Shrinking durations: with the default cross-rack slowdown it fails (the example below, which
 * fast-check found): a job that ends sooner leaves the cluster empty when an all-reduce gang
 * arrives, and best fit then spreads the gang across racks, where it runs slower. So the property
 * is asserted where a job's speed does not depend on its racks (`sim.crossRackSlowdown: 1`); there
 * fast-check found no counterexample for strict FIFO in 20,000 runs of the property below.
 * Asserted, not proved for every placement.
 */
describe('FIFO with rigid jobs, no faults and no horizon', () => {
  it('more capacity (an extra node group) never lowers the number of completed jobs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(nodeGroupArb, { minLength: 1, maxLength: 2 }),
        nodeGroupArb,
        fc.array(rigidJobArb, { minLength: 1, maxLength: 10 }),
        async (nodes, extra, jobs) => {
          const less = await run(fifoDoc(nodes, jobs));
          const more = await run(fifoDoc([...nodes, extra], jobs));
          expect(more.jobs.completed).toBeGreaterThanOrEqual(less.jobs.completed);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("shrinking every job's duration never raises the makespan", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(nodeGroupArb, { minLength: 1, maxLength: 2 }),
        fc.array(fc.tuple(rigidJobArb, fc.double({ min: 0.05, max: 1, noNaN: true })), { minLength: 1, maxLength: 10 }),
        async (nodes, jobsWithFactors) => {
          const jobs = jobsWithFactors.map(([job]) => job);
          const shorter = jobsWithFactors.map(([job, factor]) => ({ ...job, duration: Math.max(1, Math.floor(job.duration * factor)) }));
          const before = await run(fifoDoc(nodes, jobs, SPEED_BY_RACKS_OFF));
          const after = await run(fifoDoc(nodes, shorter, SPEED_BY_RACKS_OFF));
          expect(after.makespanS).toBeLessThanOrEqual(before.makespanS);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('FIFO with a horizon: more capacity can lower the number of completed jobs', () => {
  const cpuNode = { count: 1, gpus: 0, cpuCores: 16, memGiB: 128, nodesPerRack: 1 };
  const horizon = { sim: { horizon: 3600 } };

  it('a job the smaller cluster could never run blocks the queue in the larger one', async () => {
    const jobs = [
      { kind: 'batch', submit: 0, replicas: 2, gpus: 1, cpuCores: 1, memGiB: 1, duration: 3601 },
      { kind: 'batch', submit: 0, replicas: 3, gpus: 1, cpuCores: 1, memGiB: 1, duration: 60 },
      { kind: 'batch', submit: 0, replicas: 1, gpus: 0, cpuCores: 1, memGiB: 1, duration: 60 },
    ];
    const gpuNodes = { count: 2, gpus: 2, gpuType: 'A100', cpuCores: 16, memGiB: 128, nodesPerRack: 1 };
    const less = await run(fifoDoc([cpuNode], jobs, horizon));
    const more = await run(fifoDoc([cpuNode, gpuNodes], jobs, horizon));
    expect(less.jobs).toMatchObject({ completed: 1, failed: 2 });
    expect(more.jobs).toMatchObject({ completed: 0, failed: 0 });
  });

  it('an all-reduce job placed across racks in the larger cluster runs slower and misses the horizon', async () => {
    const jobs = [
      { kind: 'allreduce', submit: 0, replicas: 3, gpus: 4, cpuCores: 1, memGiB: 1, duration: 2881 },
      { kind: 'batch', submit: 0, replicas: 1, gpus: 0, cpuCores: 1, memGiB: 1, duration: 60 },
    ];
    const rack = { count: 2, gpus: 8, gpuType: 'A100', cpuCores: 16, memGiB: 128, nodesPerRack: 2 };
    const otherRack = { count: 1, gpus: 4, gpuType: 'A100', cpuCores: 16, memGiB: 128, nodesPerRack: 1 };
    const less = await run(fifoDoc([rack], jobs, horizon));
    const more = await run(fifoDoc([rack, otherRack], jobs, horizon));
    expect(less.jobs.completed).toBe(2);
    expect(more.jobs.completed).toBe(1);
  });
});

describe('FIFO with racks: shrinking a job can raise the makespan', () => {
  it('a job that ends sooner leaves an arriving all-reduce gang an empty cluster, and best fit spreads it across racks', async () => {
    // One rack of two nodes with many cores, and a rack of one node with few.
    const nodes = [
      { count: 2, gpus: 2, gpuType: 'A100', cpuCores: 96, memGiB: 128, nodesPerRack: 2 },
      { count: 1, gpus: 2, gpuType: 'A100', cpuCores: 16, memGiB: 128, nodesPerRack: 1 },
    ];
    const cpuJob = { kind: 'batch', submit: 0, replicas: 2, gpus: 0, cpuCores: 2, memGiB: 1 };
    const gang = { kind: 'allreduce', submit: 3, replicas: 3, gpus: 1, cpuCores: 13, memGiB: 1, duration: 60, stepTime: 0.5 };
    const shorter = [{ ...cpuJob, duration: 3 }, { ...gang, duration: 49 }];
    const before = await run(fifoDoc(nodes, [{ ...cpuJob, duration: 60 }, gang]));
    const after = await run(fifoDoc(nodes, shorter));
    // Before, the CPU job holds cores of the small node, so the gang's third worker goes to the
    // first rack; after, the small node is free and best fit puts it there, on the other rack.
    expect(after.makespanS).toBeGreaterThan(before.makespanS);
    // Without the slowdown the shorter jobs end no later, as the property above asserts.
    const beforeSameSpeed = await run(fifoDoc(nodes, [{ ...cpuJob, duration: 60 }, gang], SPEED_BY_RACKS_OFF));
    const afterSameSpeed = await run(fifoDoc(nodes, shorter, SPEED_BY_RACKS_OFF));
    expect(afterSameSpeed.makespanS).toBeLessThanOrEqual(beforeSameSpeed.makespanS);
  });
});
