import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterSpec, NodeSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { DEFAULT_SIM_PARAMS } from '../../src/scenario/scenario.js';
import { CpuStarvationMeter } from '../../src/sim/cpu-starvation.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { simulate } from '../../src/sim/simulation.js';
import { batchJob, scenarioOf } from '../helpers.js';

/** A node with `gpus` A100s (none: a CPU-only node), `cores` cores and 1 TiB of memory. */
function node(name: string, gpus: number, cores: number): NodeSpec {
  return { name, group: 'g', gpuType: gpus > 0 ? 'A100' : null, gpus, cpuMilli: cores * 1000, memMiB: 1024 * 1024, rack: 'r0' };
}

/** A batch job of one replica asking for `gpus` whole GPUs and `cores` cores, running `durationS`. */
function job(id: string, submitS: number, gpus: number, cores: number, durationS: number): JobSpec {
  const base = batchJob(id, submitS, gpus, durationS);
  const worker = base.roles[0]!;
  return { ...base, roles: [{ ...worker, demand: { ...worker.demand, cpuMilli: cores * 1000 } }] };
}

/** One 8-GPU node with 16 cores, and a CPU-only node with 96 cores (its CPU cannot serve a GPU job). */
const TWO_NODES: ClusterSpec = { nodes: [node('gpu', 8, 16), node('cpu', 0, 96)] };
const PERIOD_S = DEFAULT_SIM_PARAMS.samplePeriodS;

describe('CPU starvation in a run', () => {
  it("counts a job's wait as CPU-starved while the GPUs it needs are free but a job holds the node's CPU", () => {
    // "hog" takes 2 of the 8 GPUs and all 16 cores for 1000 s; "late" (2 GPUs, 4 cores) waits from 100 s to 1000 s.
    const result = simulate(scenarioOf(TWO_NODES, [job('hog', 0, 2, 16, 1000), job('late', 100, 2, 4, 100)]));
    const late = result.jobs.find((j) => j.spec.id === 'late')!;
    expect(late.phase).toBe('completed');
    expect(late.queuedS).toBeCloseTo(900, 9);
    // The meter samples the cluster at most once a sample period, so the starved time may be off
    // its true value by up to one period at each change of state (here the state holds throughout).
    expect(Math.abs(late.cpuStarvedWaitS - late.queuedS)).toBeLessThanOrEqual(PERIOD_S);
    expect(late.cpuStarvedWaitS).toBeGreaterThan(900 - PERIOD_S);
    expect(result.jobs.find((j) => j.spec.id === 'hog')!.cpuStarvedWaitS).toBe(0);
    expect(result.summary.cpuStarvedWaitS.total).toBeCloseTo(late.cpuStarvedWaitS, 3);
    expect(result.summary.cpuStarvedWaitS.share).toBeCloseTo(late.cpuStarvedWaitS / 900, 6);
  });

  it('gives a job that waits because the GPUs are busy no CPU-starved time', () => {
    // "wide" holds all 8 GPUs but only 1 core: "late" has CPU enough and waits for GPUs.
    const result = simulate(scenarioOf(TWO_NODES, [job('wide', 0, 8, 1, 1000), job('late', 100, 2, 4, 100)]));
    const late = result.jobs.find((j) => j.spec.id === 'late')!;
    expect(late.queuedS).toBeCloseTo(900, 9);
    expect(late.cpuStarvedWaitS).toBe(0);
    expect(result.summary.cpuStarvedWaitS).toEqual({ mean: 0, total: 0, share: 0 });
  });

  it('brings the starved time of jobs still queued at the end of the run up to that end', () => {
    const result = simulate(scenarioOf(TWO_NODES, [job('hog', 0, 2, 16, 1000), job('late', 100, 2, 4, 100)], { horizonS: 500 }));
    const late = result.jobs.find((j) => j.spec.id === 'late')!;
    expect(late.phase).toBe('queued');
    expect(late.queuedS).toBeCloseTo(400, 9);
    expect(Math.abs(late.cpuStarvedWaitS - 400)).toBeLessThanOrEqual(PERIOD_S);
  });

  it('never counts more CPU-starved seconds than a job waited (random small runs)', () => {
    const jobArb = fc.record({
      submitS: fc.integer({ min: 0, max: 2000 }),
      gpus: fc.integer({ min: 1, max: 8 }),
      cores: fc.integer({ min: 0, max: 32 }),
      durationS: fc.integer({ min: 1, max: 1500 }),
    });
    let runsWithStarvation = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 8, max: 40 }), { minLength: 1, maxLength: 3 }),
        fc.array(jobArb, { minLength: 1, maxLength: 12 }),
        fc.constantFrom('fifo', 'fifo-backfill', 'sjf'),
        (coresPerNode, jobs, policy) => {
          const cluster: ClusterSpec = { nodes: coresPerNode.map((cores, k) => node(`n${k}`, 8, cores)) };
          const specs = jobs.map((j, k) => job(`j${k}`, j.submitS, j.gpus, j.cores, j.durationS));
          const result = simulate(scenarioOf(cluster, specs, { policy, horizonS: 10_000 }));
          for (const j of result.jobs) {
            expect(j.cpuStarvedWaitS).toBeGreaterThanOrEqual(0);
            expect(j.cpuStarvedWaitS).toBeLessThanOrEqual(j.queuedS + 1e-6);
          }
          expect(result.summary.cpuStarvedWaitS.share).toBeLessThanOrEqual(1);
          if (result.jobs.some((j) => j.cpuStarvedWaitS > 0)) runsWithStarvation++;
        },
      ),
      { numRuns: 60, seed: 20240611 },
    );
    // The runs exercise the meter: some of them do starve a job of CPU.
    expect(runsWithStarvation).toBeGreaterThan(0);
  });
});

describe('CpuStarvationMeter', () => {
  /** A meter over TWO_NODES, the cluster it reads, and a job maker. */
  function setup(): { meter: CpuStarvationMeter; cluster: ClusterState; runtime: (spec: JobSpec) => JobRuntime } {
    const cluster = new ClusterState(TWO_NODES);
    const meter = new CpuStarvationMeter(cluster, { periodS: PERIOD_S });
    return { meter, cluster, runtime: (spec) => new JobRuntime(spec, 1, { nowS: 0 }) };
  }

  it('groups jobs by request at its look and drops a class when its last member leaves', () => {
    const { meter, runtime } = setup();
    const a = runtime(job('a', 0, 2, 4, 10));
    const b = runtime(job('b', 0, 2, 4, 10));
    const c = runtime(job('c', 0, 4, 4, 10));
    meter.joined(a, 0);
    meter.joined(b, 0);
    meter.look(0);
    expect(meter.classCount).toBe(1);
    meter.joined(c, 1);
    // A job enters its class at the look after it joined.
    expect(meter.classCount).toBe(1);
    meter.look(1);
    expect(meter.classCount).toBe(2);
    meter.left(a, 5);
    expect(meter.classCount).toBe(2);
    meter.left(b, 5);
    expect(meter.classCount).toBe(1);
    meter.left(c, 5);
    expect(meter.classCount).toBe(0);
  });

  it('holds what it saw until a period passed, then sees the change', () => {
    const { meter, cluster, runtime } = setup();
    const hog = { role: 'worker' as const, nodeIndex: 0, gpuIndices: [0], demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 } };
    cluster.allocate('hog', [hog]);
    const a = runtime(job('a', 0, 2, 4, 10));
    const b = runtime(job('b', 0, 2, 4, 10));
    meter.joined(a, 0);
    meter.joined(b, 0);
    meter.look(0);
    // The CPU comes back at 10 s: a look within the period sees nothing new.
    cluster.release('hog');
    meter.look(10);
    meter.left(a, 20);
    meter.look(20);
    expect(a.cpuStarvedWaitS).toBe(20);
    // At 30 s a period has passed: the class is judged again, no longer starved.
    meter.look(30);
    meter.left(b, 50);
    expect(b.cpuStarvedWaitS).toBe(30);
  });

  it('judges a class made between periodic looks at the look after it was made', () => {
    const { meter, cluster, runtime } = setup();
    meter.look(0);
    cluster.allocate('hog', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0], demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 } }]);
    const a = runtime(job('a', 5, 2, 4, 10));
    meter.joined(a, 5);
    meter.look(5);
    meter.left(a, 25);
    expect(a.cpuStarvedWaitS).toBe(20);
  });

  it('enters a job that joined, left and joined again before a look once, as of its last joining', () => {
    const { meter, cluster, runtime } = setup();
    cluster.allocate('hog', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0], demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 } }]);
    const a = runtime(job('a', 0, 2, 4, 10));
    const b = runtime(job('b', 0, 2, 4, 10));
    meter.joined(a, 0);
    meter.joined(b, 0);
    meter.look(0);
    meter.left(a, 10);
    expect(a.cpuStarvedWaitS).toBe(10);
    meter.joined(a, 10);
    meter.left(a, 10);
    meter.joined(a, 12);
    meter.look(12);
    expect(meter.classCount).toBe(1);
    meter.left(b, 20);
    meter.left(a, 20);
    expect(meter.classCount).toBe(0);
    expect(b.cpuStarvedWaitS).toBe(20);
    expect(a.cpuStarvedWaitS).toBe(10 + 8);
  });

  it('settles the jobs still queued at the end, and only those, up to the end', () => {
    const { meter, cluster, runtime } = setup();
    cluster.allocate('hog', [{ role: 'worker', nodeIndex: 0, gpuIndices: [0], demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 16_000, memMiB: 1024 } }]);
    // Three jobs of one request: two queued from 0 s, one from 30 s.
    const [a, b, late] = ['a', 'b', 'late'].map((id) => runtime(job(id, 0, 2, 4, 10))) as [JobRuntime, JobRuntime, JobRuntime];
    for (const queued of [a, b]) meter.joined(queued, 0);
    meter.look(0);
    meter.left(a, 10);
    // Joined after the last look: it enters its class at the settling, as of when it joined.
    meter.joined(late, 30);
    meter.settle(40, [b, late]);
    expect(a.cpuStarvedWaitS).toBe(10);
    expect(b.cpuStarvedWaitS).toBe(40);
    expect(late.cpuStarvedWaitS).toBe(10);
    // Settled jobs stay queued: a later leave adds only what accrued since.
    meter.left(b, 45);
    expect(b.cpuStarvedWaitS).toBe(45);
  });

  it('never counts a job asking for no GPU as CPU-starved', () => {
    const { meter, cluster, runtime } = setup();
    cluster.allocate('hog', [{ role: 'worker', nodeIndex: 1, gpuIndices: [], demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 96_000, memMiB: 1024 } }]);
    const cpuOnly = runtime(job('cpu-only', 0, 0, 32, 10));
    meter.joined(cpuOnly, 0);
    meter.look(0);
    meter.left(cpuOnly, 100);
    expect(cpuOnly.cpuStarvedWaitS).toBe(0);
  });
});
