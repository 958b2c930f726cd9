import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { CapacityScratch } from '../../src/model/capacity.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec, ReplicaDemand } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import { spreadPlacement } from '../../src/policies/placement/spread.js';
import { presetNames } from '../../src/policies/presets.js';
import { alignment, createTetris, TETRIS_CANDIDATE_MACHINES } from '../../src/policies/scheduling/tetris.js';
import { loadScenario } from '../../src/scenario/load.js';
import { Simulation } from '../../src/sim/simulation.js';
import { rejection } from '../cli-run.js';
import type { OracleJobView, PlacementPolicy, SchedulingAction, SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { batchJob, gpuCluster, gpuDemand, NO_CHANGES } from '../helpers.js';

/** A batch job with one replica of `demand` running `durationS`. */
function jobOf(id: string, demand: ReplicaDemand, durationS: number, replicas = 1): JobSpec {
  return { ...batchJob(id, 0, 1, durationS, replicas), roles: [{ role: 'worker', replicas, demand }] };
}

function contextOf(cluster: ClusterState, specs: JobSpec[], placement: PlacementPolicy = packPlacement): SchedulingContext<OracleJobView> {
  const queued = specs.map((spec) => {
    const job = new JobRuntime(spec, 1, { nowS: 0 });
    job.phase = 'queued';
    return job;
  });
  return { nowS: 0, cluster, queued, queuedInOrder: () => queued, running: [], placement, scratch: () => new CapacityScratch(cluster), changes: NO_CHANGES };
}

/** Node of each started job's tasks, e.g. {C: [1]}. */
function nodesOf(actions: readonly SchedulingAction[]): Record<string, number[]> {
  return Object.fromEntries(actions.map((a) => [a.jobId, a.kind === 'start' ? a.tasks.map((t) => t.nodeIndex) : []]));
}

const cpuDemand = (cores: number, memGiB: number): ReplicaDemand => ({ gpus: 0, gpuMilli: 1000, cpuMilli: cores * 1000, memMiB: memGiB * 1024 });

describe('tetris scheduling', () => {
  it('measures alignment as the sum of demand x free, both normalised to the node', () => {
    const node = gpuCluster(1, 8).nodes[0]!; // 8 GPUs, 96 cores, 1024 GiB
    const empty = { cpuMilli: 96_000, memMiB: 1024 * 1024, gpuFreeMilli: new Array<number>(8).fill(1000), wholeGpus: 8 };
    expect(alignment(node, empty, gpuDemand(1, 8000, 64 * 1024))).toBeCloseTo(1 / 8 + 8 / 96 + 64 / 1024, 12);
    const half = { cpuMilli: 48_000, memMiB: 512 * 1024, gpuFreeMilli: [1000, 1000, 1000, 1000, 0, 0, 0, 500], wholeGpus: 4 };
    expect(alignment(node, half, gpuDemand(2, 8000, 64 * 1024))).toBeCloseTo((2 / 8) * (4.5 / 8) + (8 / 96) * 0.5 + (64 / 1024) * 0.5, 12);
    const cpuOnly: ClusterSpec['nodes'][number] = { ...node, gpus: 0, gpuType: null };
    expect(alignment(cpuOnly, { ...empty, gpuFreeMilli: [], wholeGpus: 0 }, cpuDemand(48, 0))).toBeCloseTo(0.5, 12);
  });

  it('sends a CPU-heavy task to the CPU-rich node and a GPU-heavy task to the GPU-rich node', () => {
    // n0: 8 GPUs free but only 16 cores; n1: 1 GPU free and 92 cores. Both jobs fit on both nodes.
    const cluster = new ClusterState(gpuCluster(2, 8));
    cluster.allocate('cpuFiller', [{ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: cpuDemand(80, 16) }]);
    cluster.allocate('gpuFiller', [{ role: 'worker', nodeIndex: 1, gpuIndices: [0, 1, 2, 3, 4, 5, 6], demand: gpuDemand(7, 4000, 16 * 1024) }]);
    const gpuHeavy = jobOf('G', gpuDemand(1, 4000, 16 * 1024), 100);
    const cpuHeavy = jobOf('C', cpuDemand(16, 16), 100);
    // Alignments: C on n1 0.175 > G on n0 0.147 > G on n1 0.071 > C on n0 0.043; equal remaining
    // work shifts every score alike. C goes first (best pair), then G still prefers n0.
    const actions = createTetris().schedule(contextOf(cluster, [gpuHeavy, cpuHeavy]));
    expect(actions.map((a) => a.jobId)).toEqual(['C', 'G']);
    expect(nodesOf(actions)).toEqual({ C: [1], G: [0] });
    // Pack would have put the 1-GPU job on the fuller node n1 instead.
    expect(packPlacement.place(new CapacityScratch(cluster), { jobId: 'G', gpuTypes: [], replicas: [{ role: 'worker', demand: gpuHeavy.roles[0]!.demand }] })![0]!.nodeIndex).toBe(1);
  });

  it('lets the remaining-work term break a near-tie in alignment toward the shorter job', () => {
    // One node with a single GPU: only one of the two 1-GPU jobs can start. "L" asks 1 GiB more
    // memory, so it is (slightly) better aligned.
    const cluster = () => new ClusterState(gpuCluster(1, 1));
    const short = jobOf('S', gpuDemand(1, 4000, 16 * 1024), 100);
    const longer = jobOf('L', gpuDemand(1, 4000, 17 * 1024), 1000);
    expect(createTetris().schedule(contextOf(cluster(), [longer, short])).map((a) => a.jobId)).toEqual(['S']);
    // Control: with equal remaining work the better-aligned job wins.
    const sameLength = jobOf('L', gpuDemand(1, 4000, 17 * 1024), 100);
    expect(createTetris().schedule(contextOf(cluster(), [short, sameLength])).map((a) => a.jobId)).toEqual(['L']);
  });

  it('places a gang as one task through the stack placement policy', () => {
    // 2 x 4 GPUs on 3 empty nodes: pack keeps the gang on one node, spread puts it on two.
    const gang = jobOf('gang', gpuDemand(4), 100, 2);
    const packed = createTetris().schedule(contextOf(new ClusterState(gpuCluster(3, 8)), [gang]));
    expect(nodesOf(packed)).toEqual({ gang: [0, 0] });
    const spread = createTetris().schedule(contextOf(new ClusterState(gpuCluster(3, 8)), [gang], spreadPlacement));
    expect(nodesOf(spread)).toEqual({ gang: [0, 1] });
  });

  it('keeps placing until nothing fits and never over-allocates', () => {
    const cluster = new ClusterState(gpuCluster(2, 8));
    const jobs = [
      jobOf('a', gpuDemand(3), 50),
      jobOf('b', gpuDemand(8), 10, 2),
      jobOf('c', gpuDemand(5), 20),
      jobOf('d', gpuDemand(2), 30),
      jobOf('e', cpuDemand(4, 8), 40),
    ];
    const actions = createTetris().schedule(contextOf(cluster, jobs));
    // The 16-GPU gang fits only on an empty cluster, and it is the shortest: it goes first,
    // after which only the CPU job fits.
    expect(actions.map((a) => a.jobId)).toEqual(['b', 'e']);
    for (const a of actions) if (a.kind === 'start') cluster.allocate(a.jobId, a.tasks);
    cluster.checkInvariants();
    expect(cluster.allocatedGpus).toBe(16);
  });

  it('scores a single replica only on its candidateMachines machines standing highest in its GPU group', () => {
    // The same cluster as above: n0 has 8 GPUs free but 16 cores, n1 1 GPU and 92 cores. With one
    // candidate, the CPU-heavy job is scored on n0 alone (most free GPU capacity) and starts there,
    // though n1 aligns better; with two, it starts on n1 as the full scan does.
    const setup = () => {
      const cluster = new ClusterState(gpuCluster(2, 8));
      cluster.allocate('cpuFiller', [{ role: 'worker', nodeIndex: 0, gpuIndices: [], demand: cpuDemand(80, 16) }]);
      cluster.allocate('gpuFiller', [{ role: 'worker', nodeIndex: 1, gpuIndices: [0, 1, 2, 3, 4, 5, 6], demand: gpuDemand(7, 4000, 16 * 1024) }]);
      return cluster;
    };
    const cpuHeavy = jobOf('C', cpuDemand(16, 16), 100);
    expect(nodesOf(createTetris({ candidateMachines: 1 }).schedule(contextOf(setup(), [cpuHeavy])))).toEqual({ C: [0] });
    expect(nodesOf(createTetris({ candidateMachines: 2 }).schedule(contextOf(setup(), [cpuHeavy])))).toEqual({ C: [1] });
    expect(TETRIS_CANDIDATE_MACHINES).toBeGreaterThanOrEqual(2);
  });

  it('takes candidateMachines from a scenario, a whole number of at least 1', async () => {
    const scenarioText = (options: string) => `name: t
cluster:
  nodes:
    - {count: 2, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
workload:
  jobs:
    - {id: a, gpus: 1, duration: 1h}
policies:
  scheduling: {name: tetris, options: {${options}}}
`;
    const file = (text: string) => {
      const path = join(mkdtempSync(join(tmpdir(), 'dlsim-tetris-')), 's.yaml');
      writeFileSync(path, text);
      return path;
    };
    const scenario = await loadScenario(file(scenarioText('candidateMachines: 3')), { knownPolicies: presetNames() });
    expect(scenario.policies?.scheduling).toEqual({ name: 'tetris', options: { candidateMachines: 3 } });
    expect(new Simulation(scenario).run().summary.jobs.completed).toBe(1);
    for (const bad of ['candidateMachines: 0', 'candidateMachines: 1.5']) {
      const error = await rejection(loadScenario(file(scenarioText(bad)), { knownPolicies: presetNames() }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/s\.yaml:\d+: policies\.scheduling\.options\.candidateMachines: expected a whole number of machines, at least 1$/);
    }
  });
});
