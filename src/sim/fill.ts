/**
 * A fill run: the placement-only replay of the FGD simulator (hkust-adsl/kubernetes-scheduler-simulator,
 * pkg/simulator/simulator.go `SchedulePods`). Every job of the workload is placed once, in order, by
 * the stack's placement policy, and kept: no time, no faults, no scheduling policy. A job that does
 * not fit is counted as failed and the run goes on with the next one, as FGD does; the state when the
 * first job failed and the state after every job was tried are both reported.
 */
import { InvariantError } from '../errors.js';
import { RandomStreams } from '../engine/random.js';
import { CapacityScratch } from '../model/capacity.js';
import { ClusterState } from '../model/cluster-state.js';
import { someNameGpuModels, type JobSpec } from '../model/job-spec.js';
import { policyEntry, type PolicyEntry } from '../policies/registry.js';
import { placementRequestOf, type PlacementPolicy } from '../policies/types.js';
import type { FillOrder, FillSettings, Scenario } from '../scenario/scenario.js';
import { clusterFragmentation, targetShapes, type TargetShape } from './fragmentation.js';
import { invariantChecksByDefault } from './invariants.js';
import { stackOf } from './policy-host.js';

/** The cluster as a fill run leaves it at one moment. */
export interface FillState {
  /** Jobs placed so far. */
  readonly jobsPlaced: number;
  /** Allocated GPU capacity ÷ installed GPUs (a shared GPU counts by the share allocated). */
  readonly gpuAllocationRate: number;
  /** Allocated GPU capacity, in GPUs. */
  readonly allocatedGpus: number;
  /** Idle GPU capacity, in GPUs. */
  readonly idleGpus: number;
  /** Idle GPU capacity the target workload cannot use (FGD's fragmentation), in GPUs. */
  readonly fragmentationGpus: number;
  /** fragmentationGpus ÷ idleGpus (0 when nothing is idle). */
  readonly fragmentationShareOfIdle: number;
}

/** What a fill run reports. */
export interface FillSummary {
  readonly scenario: string;
  readonly mode: 'fill';
  /** The preset whose placement policy ran. */
  readonly policy: string;
  /** The placement policy that placed the jobs. */
  readonly placement: string;
  readonly seed: number;
  readonly order: FillOrder;
  readonly jobs: { readonly submitted: number; readonly placed: number; readonly failed: number };
  /** Installed GPUs. */
  readonly gpus: number;
  /** Shapes in the target workload the fragmentation is measured against. */
  readonly targetShapes: number;
  /** The first job that did not fit: its 1-based position in the order, and its id; null when every job fit. */
  readonly firstFailure: { readonly position: number; readonly jobId: string } | null;
  /** The cluster when the first job failed (before any later job was tried); the final state when none failed. */
  readonly atFirstFailure: FillState;
  /** The cluster after every job was tried. */
  readonly final: FillState;
}

/** Options for tests and tools. */
export interface FillOptions {
  /** Check the cluster's accounting at the end (absent: invariantChecksByDefault()). */
  readonly checkInvariants?: boolean;
}

/** Settings of a scenario without a fill section run as a fill: submission order, every shape. */
const DEFAULT_FILL: FillSettings = { order: 'submit', coverage: 1 };

/** Places every job of the scenario once, in its fill order, and reports the allocation and the fragmentation. */
export function fill(scenario: Scenario, options: FillOptions = {}): FillSummary {
  const settings = scenario.fill ?? DEFAULT_FILL;
  const placementChoice = stackOf(scenario).placement;
  const placement = placementPolicy(scenario, placementChoice.name, placementChoice.options);
  const cluster = new ClusterState(scenario.cluster);
  // Pods that name no GPU model may use any: one group of GPU nodes answers each in one scan.
  cluster.groupFitByGpuModel(someNameGpuModels(scenario.jobs));
  const shapes = targetShapes(scenario.jobs, settings.coverage);
  const jobs = settings.order === 'shuffle' ? shuffled(scenario.jobs, new RandomStreams(scenario.seed)) : scenario.jobs;

  let placed = 0;
  let firstFailure: FillSummary['firstFailure'] = null;
  let atFirstFailure: FillState | null = null;
  jobs.forEach((job, index) => {
    // A fresh scratch per pod: it copies only the nodes the placement changes, and the cluster's fit index answers the rest.
    const tasks = placement.place(new CapacityScratch(cluster), placementRequestOf(job));
    if (tasks !== null) {
      cluster.allocate(job.id, tasks);
      placed++;
    } else if (firstFailure === null) {
      firstFailure = { position: index + 1, jobId: job.id };
      atFirstFailure = stateOf(cluster, shapes, placed);
    }
  });
  if (options.checkInvariants ?? invariantChecksByDefault()) cluster.checkInvariants();
  const final = stateOf(cluster, shapes, placed);
  return {
    scenario: scenario.name,
    mode: 'fill',
    policy: scenario.policy,
    placement: placement.name,
    seed: scenario.seed,
    order: settings.order,
    jobs: { submitted: jobs.length, placed, failed: jobs.length - placed },
    gpus: cluster.totalGpus,
    targetShapes: shapes.length,
    firstFailure,
    atFirstFailure: atFirstFailure ?? final,
    final,
  };
}

/** The placement policy the scenario's stack names (an InvariantError for an id the loader should have refused). */
function placementPolicy(scenario: Scenario, name: string, options: Readonly<Record<string, unknown>>): PlacementPolicy {
  const entry = policyEntry('placement', name) as PolicyEntry<PlacementPolicy> | undefined;
  if (!entry) throw new InvariantError(`unknown placement policy ${name}`);
  return entry.create({ params: scenario.params, userWeights: scenario.userWeights ?? {}, seed: scenario.seed }, options);
}

/** The jobs in a random order drawn from the seed's `fill-order` stream (Fisher-Yates). */
function shuffled(jobs: readonly JobSpec[], streams: RandomStreams): JobSpec[] {
  const random = streams.stream('fill-order');
  const out = [...jobs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The allocation and fragmentation of the cluster now. */
function stateOf(cluster: ClusterState, shapes: readonly TargetShape[], jobsPlaced: number): FillState {
  const { fragmentedGpus, idleGpus } = clusterFragmentation(cluster, shapes);
  const allocatedGpus = cluster.allocatedGpus;
  return {
    jobsPlaced,
    gpuAllocationRate: cluster.totalGpus > 0 ? allocatedGpus / cluster.totalGpus : 0,
    allocatedGpus,
    idleGpus,
    fragmentationGpus: fragmentedGpus,
    fragmentationShareOfIdle: idleGpus > 0 ? fragmentedGpus / idleGpus : 0,
  };
}
