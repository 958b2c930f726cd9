/**
 * `goldminer`: elastic data workers on idle CPUs (GoldMiner, SIGMOD'23; seed 003, REFERENCE §4).
 * dlsim's reconstruction: only the paper's abstract and the seed describe the algorithm, so every
 * rule below that they do not give is dlsim's own, named as such.
 *
 * - Training workers keep a small CPU share (`trainingCpuCoresPerGpu`); the rest of a job's input
 *   preprocessing runs in data workers (DWs): stateless CPU tasks on any node's idle CPUs (the seed).
 * - Per job, the signal is the input queue between DWs and training workers (the seed: its state
 *   shows the two sides' relative speed and what another DW would bring). Every tick (dlsim's
 *   rules, a search for the job's size): a job whose queue reads empty asks for as many DWs as
 *   double the CPU working on its input; one whose queue fell since the previous sample asks for
 *   one more; one whose queue reads full stops growing, and after two full samples in a row gives
 *   one DW back (its newest remote one first), until a give-back makes its queue fall: it then
 *   takes that one again and keeps its size (at most one DW over its need).
 * - Across the cluster, idle CPUs go one DW at a time to the job with the highest speed gain per DW,
 *   weighted by its GPUs: GPUs × DW CPU ÷ CPU already on its input (a starving job's speed grows in
 *   proportion to that CPU). The seed names the objective (e.g. job completion time) but not the
 *   rule; this weighting is REFERENCE §4's [approx].
 * - A DW goes first to a node of the job's own GPU tasks (its output then does not cross the
 *   network), else to the node with the most idle CPU (dlsim's choice).
 * - When a training task needs the CPU, the simulation takes DWs back in the same instant (no
 *   progress is lost: the job slows down); the policy places them again on other idle CPUs, if any.
 */
import type { AuxTask, Eviction } from '../../model/allocation.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { Decision } from '../decision.js';
import type { JobView, ObservingContext } from '../types.js';
import { trainingRolesOf } from './training-cpu.js';
import type { DataPolicy } from './types.js';

/** What `goldminer` takes as options. */
export interface GoldMinerOptions {
  /** Seconds between two sizing rounds; default 30 (dlsim's choice: the sample period, so each round reads a fresh sample). */
  readonly tickS?: number;
  /** vCPU of one data worker, thousandths; default 4,000 (dlsim's choice). */
  readonly workerCpuMilli?: number;
  /** Memory of one data worker, MiB; default 8,192 (dlsim's choice: 2 GiB per vCPU). */
  readonly workerMemMiB?: number;
  /** CPU per GPU a training worker keeps, thousandths; default 2,000 (dlsim's choice; the seed says only "small"). */
  readonly trainingCpuMilliPerGpu?: number;
}

/** A queue at or below this fill reads empty (the training waits for input); at or above FULL, full. */
const EMPTY = 0.05;
const FULL = 0.95;
/** Samples in a row a job's queue reads full before it gives a worker back (dlsim's choice). */
const FULL_SAMPLES_TO_SHRINK = 2;

/** What the policy keeps of one job between rounds. */
interface JobState {
  /** The input queue's fill at the last sample read, or null before one. */
  lastLevel: number | null;
  /** Time of the last sample read. */
  lastSampleS: number;
  /** Samples in a row that read full. */
  fullSamples: number;
  /** It gave a worker back since its queue last fell. */
  released: boolean;
  /** Its queue fell after it gave a worker back: it has found its size and gives no more back. */
  settled: boolean;
}

/** Creates the `goldminer` data policy. */
export function createGoldMiner(options: GoldMinerOptions = {}): DataPolicy {
  const tickS = options.tickS ?? 30;
  const workerCpuMilli = options.workerCpuMilli ?? 4_000;
  const workerMemMiB = options.workerMemMiB ?? 8_192;
  const trainingCpuMilliPerGpu = options.trainingCpuMilliPerGpu ?? 2_000;
  const states = new Map<string, JobState>();
  /** Evicted DWs to place again, by job, in the order they were taken. */
  const evicted = new Map<string, number>();
  let nextRoundS = -Infinity;

  return {
    name: 'goldminer',
    tickS,
    trainingRoles: (spec) => trainingRolesOf(spec, trainingCpuMilliPerGpu),
    onEvicted(evictions) {
      for (const { jobId } of evictions) evicted.set(jobId, (evicted.get(jobId) ?? 0) + 1);
    },
    data(context: ObservingContext): Decision[] {
      const wants = new Map<string, number>();
      for (const [jobId, count] of evicted) wants.set(jobId, count);
      evicted.clear();
      const releases: Eviction[] = [];
      if (context.nowS >= nextRoundS) {
        nextRoundS = context.nowS + tickS;
        sizeJobs(context, states, workerCpuMilli, wants, releases);
      }
      if (wants.size === 0 && releases.length === 0) return [];
      // Workers given back free their CPU for this round's grants (detaches apply before attaches).
      const idle = new IdleCapacity(context.cluster);
      for (const { task } of releases) idle.free(task);
      const grants = grant(context, wants, idle, workerCpuMilli, workerMemMiB);
      const decisions: Decision[] = releases.map(({ jobId, task }) => ({ kind: 'detach', jobId, tasks: [task] }));
      for (const [jobId, tasks] of grants) decisions.push({ kind: 'attach', jobId, tasks });
      return decisions;
    },
  };
}

/** Per job, the DWs it asks for this round (added to `wants`): see the module comment. */
function sizeJobs(context: ObservingContext, states: Map<string, JobState>, workerCpuMilli: number, wants: Map<string, number>, releases: Eviction[]): void {
  const running = new Set<string>();
  for (const job of context.running) {
    if (!(job.gpus > 0)) continue;
    const id = job.request.id;
    running.add(id);
    let state = states.get(id);
    if (state === undefined) {
      states.set(id, (state = { lastLevel: null, lastSampleS: -Infinity, fullSamples: 0, released: false, settled: false }));
      context.listenInput(id);
      continue;
    }
    const samples = context.samples(id);
    const last = samples[samples.length - 1];
    if (last === undefined || last.atS <= state.lastSampleS || last.inputQueueLevel === undefined) continue;
    const level = last.inputQueueLevel;
    const fell = state.lastLevel !== null && level < state.lastLevel && !job.paused;
    state.lastLevel = level;
    state.lastSampleS = last.atS;
    if (level >= FULL) {
      // Full twice in a row: its input keeps up with a worker to spare, perhaps; give one back (the
      // next samples tell: if the queue then falls, it gets one again).
      if (!state.settled && ++state.fullSamples >= FULL_SAMPLES_TO_SHRINK) {
        state.fullSamples = 0;
        const spare = spareWorker(context.cluster, job);
        if (spare !== null) {
          releases.push({ jobId: id, task: spare });
          state.released = true;
        }
        // A full job needs no worker placed again after an eviction either.
        wants.delete(id);
      }
      continue;
    }
    state.fullSamples = 0;
    // Given one back and now short: the size before was its size (at most one worker over its need).
    if (state.released && (level <= EMPTY || fell)) state.settled = true;
    state.released = false;
    if (level <= EMPTY) {
      // Empty: double the CPU on its input (a doubling search).
      const cpuMilli = inputCpuMilli(context.cluster, job);
      wants.set(id, (wants.get(id) ?? 0) + Math.max(1, Math.round(cpuMilli / workerCpuMilli)));
    } else if (fell) {
      // Falling but not empty: near its need, one more worker.
      wants.set(id, (wants.get(id) ?? 0) + 1);
    }
  }
  for (const id of [...states.keys()]) {
    if (running.has(id)) continue;
    states.delete(id);
    context.unlisten(id);
  }
}

/** The worker a full job gives back: its newest on a node without its GPU tasks, else its newest; null without any. */
function spareWorker(cluster: ClusterView, job: JobView): AuxTask | null {
  const workers = cluster.auxOf(job.request.id);
  if (workers.length === 0) return null;
  const own = new Set((cluster.tasksOf(job.request.id) ?? []).filter((t) => t.gpuIndices.length > 0).map((t) => t.nodeIndex));
  for (let k = workers.length - 1; k >= 0; k--) if (!own.has(workers[k]!.nodeIndex)) return workers[k]!;
  return workers[workers.length - 1]!;
}

/** CPU (thousandths) on a job's input as the cluster shows it: its GPU tasks' and its DWs'. */
function inputCpuMilli(cluster: ClusterView, job: JobView): number {
  let cpuMilli = 0;
  for (const task of cluster.tasksOf(job.request.id) ?? []) if (task.gpuIndices.length > 0) cpuMilli += task.demand.cpuMilli;
  for (const worker of cluster.auxOf(job.request.id)) cpuMilli += worker.cpuMilli;
  return cpuMilli;
}

/** Idle CPU and memory per schedulable node, as grants use it up within one round. */
class IdleCapacity {
  readonly cpuMilli: number[];
  readonly memMiB: number[];

  constructor(cluster: ClusterView) {
    this.cpuMilli = cluster.nodes.map((_n, i) => (cluster.schedulable(i) ? cluster.idleCpuMilli(i) : 0));
    this.memMiB = cluster.nodes.map((_n, i) => (cluster.schedulable(i) ? cluster.idleMemMiB(i) : 0));
  }

  /** Gives a worker's CPU and memory back to its node. */
  free(task: AuxTask): void {
    this.cpuMilli[task.nodeIndex]! += task.cpuMilli;
    this.memMiB[task.nodeIndex]! += task.memMiB;
  }

  /** True when the node has room for one DW. */
  fits(i: number, cpuMilli: number, memMiB: number): boolean {
    return this.cpuMilli[i]! >= cpuMilli && this.memMiB[i]! >= memMiB;
  }

  /** The node with the most idle CPU that has room for one DW (lowest index on ties), or -1. */
  roomiest(cpuMilli: number, memMiB: number): number {
    let best = -1;
    for (let i = 0; i < this.cpuMilli.length; i++) {
      if (this.fits(i, cpuMilli, memMiB) && (best < 0 || this.cpuMilli[i]! > this.cpuMilli[best]!)) best = i;
    }
    return best;
  }
}

/**
 * Gives DWs one at a time to the job with the highest gain per DW (GPUs × DW CPU ÷ CPU on its
 * input; ties: the earlier-started job in the running list's order), each on its own node first,
 * until no job wants one or no node has room.
 */
function grant(context: ObservingContext, wants: Map<string, number>, idle: IdleCapacity, workerCpuMilli: number, workerMemMiB: number): Map<string, AuxTask[]> {
  const grants = new Map<string, AuxTask[]>();
  interface Claim {
    readonly job: JobView;
    readonly order: number;
    readonly ownNodes: readonly number[];
    cpuMilli: number;
    left: number;
  }
  const claims: Claim[] = [];
  context.running.forEach((job, order) => {
    const left = wants.get(job.request.id) ?? 0;
    if (left <= 0 || !(job.gpus > 0)) return;
    const ownNodes = [...new Set((context.cluster.tasksOf(job.request.id) ?? []).filter((t) => t.gpuIndices.length > 0).map((t) => t.nodeIndex))];
    claims.push({ job, order, ownNodes, cpuMilli: Math.max(1, inputCpuMilli(context.cluster, job)), left });
  });
  const gain = (c: Claim): number => (c.job.gpus * workerCpuMilli) / c.cpuMilli;
  for (;;) {
    let top: Claim | null = null;
    for (const claim of claims) {
      if (claim.left <= 0) continue;
      if (top === null || gain(claim) > gain(top) || (gain(claim) === gain(top) && claim.order < top.order)) top = claim;
    }
    if (top === null) break;
    const own = top.ownNodes.find((i) => idle.fits(i, workerCpuMilli, workerMemMiB));
    const node = own ?? idle.roomiest(workerCpuMilli, workerMemMiB);
    if (node < 0) break;
    idle.cpuMilli[node]! -= workerCpuMilli;
    idle.memMiB[node]! -= workerMemMiB;
    const id = top.job.request.id;
    let tasks = grants.get(id);
    if (tasks === undefined) grants.set(id, (tasks = []));
    tasks.push({ nodeIndex: node, cpuMilli: workerCpuMilli, memMiB: workerMemMiB });
    top.cpuMilli += workerCpuMilli;
    top.left--;
  }
  return grants;
}
