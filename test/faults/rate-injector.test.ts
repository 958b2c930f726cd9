import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { ConfigError } from '../../src/errors.js';
import type { FaultCatalog, FaultType } from '../../src/faults/catalog.js';
import { repairSeconds, type FaultOccurrence } from '../../src/faults/occurrence.js';
import { RateInjector, SECONDS_PER_DAY } from '../../src/faults/rate-injector.js';
import type { ClusterSpec, NodeSpec } from '../../src/model/cluster-spec.js';
import { gpuCluster } from '../helpers.js';

/** A fault type for these tests (the shipped catalogs are not used, so these tests do not move when they change). */
function faultType(name: string, fields: Partial<FaultType> = {}): FaultType {
  return {
    name,
    xid: null,
    description: `test type ${name}`,
    ratePerGpuDay: 0,
    ratePerNodeDay: 0,
    scope: 'gpu',
    effect: { kind: 'gpu-down' },
    foundByNodeCheck: true,
    repair: { kind: 'none' },
    category: 'hardware',
    ...fields,
  };
}

function catalogOf(...types: FaultType[]): FaultCatalog {
  return { name: 'test', description: 'inline test catalog', source: 'test', types };
}

/** Every fault before `horizonS`. */
function faultsUntil(injector: RateInjector, horizonS: number): FaultOccurrence[] {
  const faults: FaultOccurrence[] = [];
  for (let fault = injector.next(); fault !== null && fault.timeS < horizonS; fault = injector.next()) faults.push(fault);
  return faults;
}

/** z of a two-sided 99.9% normal interval. */
const Z_999 = 3.2905;

/** Two-sided 99.9% interval of a Poisson count of this mean (normal approximation; the means here are in the thousands). */
function poissonInterval999(mean: number): [number, number] {
  return [mean - Z_999 * Math.sqrt(mean), mean + Z_999 * Math.sqrt(mean)];
}

/** Upper 0.1% points of chi-square, by degrees of freedom (from tables). */
const CHI_SQUARE_999: Record<number, number> = { 1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515 };

/** Pearson's chi-square of observed counts against expected counts. */
function chiSquare(observed: readonly number[], expected: readonly number[]): number {
  return observed.reduce((sum, o, i) => sum + (o - expected[i]!) ** 2 / expected[i]!, 0);
}

function node(name: string, gpus: number): NodeSpec {
  return { name, group: 'g', gpuType: gpus > 0 ? 'A100' : null, gpus, cpuMilli: 64_000, memMiB: 512 * 1024, rack: 'r0' };
}

const ANT_RATE_PER_GPU_DAY = 0.0027;
const DAYS = 2000;

describe('RateInjector: counts match rate x exposure', () => {
  it('1,000 GPUs x 0.27%/GPU-day over 2,000 days: the count is in the 99.9% Poisson interval', () => {
    const injector = new RateInjector(catalogOf(faultType('any', { ratePerGpuDay: ANT_RATE_PER_GPU_DAY })), gpuCluster(125, 8), new RandomStreams(1));
    const expected = 1000 * ANT_RATE_PER_GPU_DAY * DAYS; // 5,400
    expect(injector.totalRatePerS * SECONDS_PER_DAY).toBeCloseTo(1000 * ANT_RATE_PER_GPU_DAY, 12);
    const count = faultsUntil(injector, DAYS * SECONDS_PER_DAY).length;
    const [low, high] = poissonInterval999(expected);
    expect(count).toBeGreaterThanOrEqual(low);
    expect(count).toBeLessThanOrEqual(high);
  });

  it('per-type counts follow the types rates (chi-square at a fixed seed), per-GPU and per-node alike', () => {
    const cluster = gpuCluster(100, 8); // 800 GPUs, 100 nodes
    const types = [
      faultType('xid-79', { ratePerGpuDay: 0.002 }),
      faultType('ecc', { ratePerGpuDay: 0.0005 }),
      faultType('psu', { ratePerNodeDay: 0.004, scope: 'node', effect: { kind: 'node-down' } }),
      faultType('nic', { ratePerNodeDay: 0.01, scope: 'link', effect: { kind: 'network-down' }, category: 'network' }),
      faultType('process', { ratePerNodeDay: 0.002, scope: 'job', effect: { kind: 'crash' }, category: 'software' }),
    ];
    const days = 1000;
    const faults = faultsUntil(new RateInjector(catalogOf(...types), cluster, new RandomStreams(42)), days * SECONDS_PER_DAY);
    const expected = types.map((t) => (t.ratePerGpuDay * 800 + t.ratePerNodeDay * 100) * days);
    const observed = types.map((t) => faults.filter((f) => f.type === t).length);
    const [low, high] = poissonInterval999(expected.reduce((a, b) => a + b, 0));
    expect(faults.length).toBeGreaterThanOrEqual(low);
    expect(faults.length).toBeLessThanOrEqual(high);
    // Given the total, the per-type counts are multinomial: compare with the expected shares.
    const scaled = expected.map((e) => (e / expected.reduce((a, b) => a + b, 0)) * faults.length);
    expect(chiSquare(observed, scaled)).toBeLessThan(CHI_SQUARE_999[types.length - 1]!);
  });

  it('a node with more GPUs takes proportionally more per-GPU faults; per-node faults hit nodes evenly', () => {
    const cluster: ClusterSpec = { nodes: [node('big', 8), node('mid', 4), node('small', 2), node('cpu', 0)] };
    const perGpu = faultType('per-gpu', { ratePerGpuDay: 1 });
    const perNode = faultType('per-node', { ratePerNodeDay: 1, scope: 'node', effect: { kind: 'node-down' } });
    const perNodeGpu = faultType('per-node-gpu', { ratePerNodeDay: 1 });
    const faults = faultsUntil(new RateInjector(catalogOf(perGpu, perNode, perNodeGpu), cluster, new RandomStreams(7)), 2000 * SECONDS_PER_DAY);
    const counts = new Map<FaultType, number[]>([perGpu, perNode, perNodeGpu].map((t) => [t, cluster.nodes.map(() => 0)]));
    for (const f of faults) counts.get(f.type)![f.nodeIndex]!++;
    const byNode = (type: FaultType): number[] => counts.get(type)!;

    const gpuCounts = byNode(perGpu);
    expect(gpuCounts[3]).toBe(0); // a CPU node has no GPU to fail
    const gpuTotal = gpuCounts.reduce((a, b) => a + b, 0);
    expect(chiSquare(gpuCounts.slice(0, 3), [8, 4, 2].map((g) => (g / 14) * gpuTotal))).toBeLessThan(CHI_SQUARE_999[2]!);
    expect(gpuCounts[0]! / gpuCounts[2]!).toBeGreaterThan(3); // 4 expected

    const nodeCounts = byNode(perNode);
    const nodeTotal = nodeCounts.reduce((a, b) => a + b, 0);
    expect(chiSquare(nodeCounts, [1, 1, 1, 1].map(() => nodeTotal / 4))).toBeLessThan(CHI_SQUARE_999[3]!);

    // A GPU-scope type's per-node part only hits nodes that have GPUs.
    const nodeGpuCounts = byNode(perNodeGpu);
    expect(nodeGpuCounts[3]).toBe(0);
    const nodeGpuTotal = nodeGpuCounts.reduce((a, b) => a + b, 0);
    expect(nodeGpuTotal / 2000).toBeCloseTo(3, 0); // 3 GPU nodes x 1/day
    expect(chiSquare(nodeGpuCounts.slice(0, 3), [1, 1, 1].map(() => nodeGpuTotal / 3))).toBeLessThan(CHI_SQUARE_999[2]!);

    // And the GPU a GPU-scope fault names is one of its node's; a node-scope fault names none.
    const misplaced = faults.filter((f) =>
      f.type === perNode ? f.gpuIndex !== null : f.gpuIndex === null || f.gpuIndex < 0 || f.gpuIndex >= cluster.nodes[f.nodeIndex]!.gpus,
    );
    expect(misplaced).toEqual([]);
    // Per-GPU faults spread over all 8 GPUs of the big node.
    expect(new Set(faults.filter((f) => f.type === perGpu && f.nodeIndex === 0).map((f) => f.gpuIndex)).size).toBe(8);
  });

  it('a 1,000-GPU (125 x 8) cluster at 0.27%/GPU-day has at least one fault on 93% ± 3 points of 2,000 days', () => {
    const injector = new RateInjector(catalogOf(faultType('ant', { ratePerGpuDay: ANT_RATE_PER_GPU_DAY })), gpuCluster(125, 8), new RandomStreams(2024));
    const daysWithFault = new Set(faultsUntil(injector, DAYS * SECONDS_PER_DAY).map((f) => Math.floor(f.timeS / SECONDS_PER_DAY)));
    const fraction = daysWithFault.size / DAYS;
    // REFERENCE §1: 1 - (1 - 0.0027)^1000 = 93.3%; the Poisson form 1 - e^-2.7 = 93.3% too.
    expect(fraction).toBeGreaterThanOrEqual(0.9);
    expect(fraction).toBeLessThanOrEqual(0.96);
  });
});

describe('RateInjector: behaviour', () => {
  const types = [
    faultType('gpu', { ratePerGpuDay: 0.01, repair: { kind: 'exponential', meanS: 3600 } }),
    faultType('node', { ratePerNodeDay: 0.05, scope: 'node', effect: { kind: 'node-down' }, repair: { kind: 'fixed', seconds: 600 } }),
  ];

  function firstFaults(seed: number, catalog = catalogOf(...types), n = 200): FaultOccurrence[] {
    const injector = new RateInjector(catalog, gpuCluster(16, 8), new RandomStreams(seed));
    return Array.from({ length: n }, () => injector.next()!);
  }

  it('is deterministic per seed and differs between seeds', () => {
    expect(firstFaults(5)).toEqual(firstFaults(5));
    expect(firstFaults(6).map((f) => f.timeS)).not.toEqual(firstFaults(5).map((f) => f.timeS));
  });

  it('returns faults in strictly increasing time, with repair times from each type', () => {
    const faults = firstFaults(9, catalogOf(...types), 2000);
    for (let i = 1; i < faults.length; i++) expect(faults[i]!.timeS).toBeGreaterThan(faults[i - 1]!.timeS);
    const nodeFaults = faults.filter((f) => f.type === types[1]);
    expect(nodeFaults.length).toBeGreaterThan(0);
    for (const f of nodeFaults) expect(f.repairS).toBe(600);
    const gpuRepairs = faults.filter((f) => f.type === types[0]).map((f) => f.repairS);
    const meanS = gpuRepairs.reduce((a, b) => a + b, 0) / gpuRepairs.length;
    expect(meanS).toBeGreaterThan(3600 * 0.85);
    expect(meanS).toBeLessThan(3600 * 1.15);
  });

  it('returns null when nothing can fail', () => {
    expect(new RateInjector(catalogOf(), gpuCluster(4), new RandomStreams(1)).next()).toBeNull();
    expect(new RateInjector(catalogOf(faultType('zero')), gpuCluster(4), new RandomStreams(1)).next()).toBeNull();
    // Per-GPU rates on a cluster without GPUs expose nothing.
    const cpuOnly: ClusterSpec = { nodes: [node('c0', 0), node('c1', 0)] };
    expect(new RateInjector(catalogOf(faultType('g', { ratePerGpuDay: 1 })), cpuOnly, new RandomStreams(1)).next()).toBeNull();
  });

  it('draws only from its own streams: other streams do not move', () => {
    const used = new RandomStreams(3);
    const injector = new RateInjector(catalogOf(...types), gpuCluster(8), used);
    for (let i = 0; i < 500; i++) injector.next();
    const fresh = new RandomStreams(3);
    for (const name of ['arrivals', 'durations']) {
      expect(Array.from({ length: 5 }, () => used.stream(name).uniform())).toEqual(Array.from({ length: 5 }, () => fresh.stream(name).uniform()));
    }
  });

  it('a change of catalog rescales the fault times (R changes) but draws the same gaps', () => {
    const before = new RateInjector(catalogOf(...types), gpuCluster(16, 8), new RandomStreams(11));
    const extra = faultType('extra', { ratePerGpuDay: 0.02 });
    const after = new RateInjector(catalogOf(...types, extra), gpuCluster(16, 8), new RandomStreams(11));
    expect(after.totalRatePerS).toBeGreaterThan(before.totalRatePerS);
    for (let i = 0; i < 50; i++) {
      const a = before.next()!;
      const b = after.next()!;
      expect(b.timeS * after.totalRatePerS).toBeCloseTo(a.timeS * before.totalRatePerS, 6);
    }
  });

  it('rejects a negative or non-finite rate with a ConfigError naming the type', () => {
    expect(() => new RateInjector(catalogOf(faultType('bad', { ratePerGpuDay: -1 })), gpuCluster(2), new RandomStreams(1))).toThrow(ConfigError);
    expect(() => new RateInjector(catalogOf(faultType('nan', { ratePerNodeDay: NaN })), gpuCluster(2), new RandomStreams(1))).toThrow(/types\[0\] \(nan\)\.ratePerNodeDay/);
  });
});

describe('repairSeconds', () => {
  it('gives 0 for none, the value for fixed, and draws with the right centre for exponential and lognormal', () => {
    const stream = new RandomStreams(1).stream('repairs');
    expect(repairSeconds({ kind: 'none' }, stream)).toBe(0);
    expect(repairSeconds({ kind: 'fixed', seconds: 300 }, stream)).toBe(300);
    const n = 20_000;
    const exponential = Array.from({ length: n }, () => repairSeconds({ kind: 'exponential', meanS: 1800 }, stream));
    expect(exponential.reduce((a, b) => a + b, 0) / n).toBeCloseTo(1800, -2);
    const lognormal = Array.from({ length: n }, () => repairSeconds({ kind: 'lognormal', medianS: 7200, sigma: 1 }, stream)).sort((a, b) => a - b);
    expect(lognormal[n / 2]! / 7200).toBeGreaterThan(0.95);
    expect(lognormal[n / 2]! / 7200).toBeLessThan(1.05);
    expect(Math.min(...exponential, ...lognormal)).toBeGreaterThanOrEqual(0);
  });
});
