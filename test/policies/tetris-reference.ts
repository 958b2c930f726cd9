import type { TaskPlacement } from '../../src/model/allocation.js';
import type { CapacityScratch } from '../../src/model/capacity.js';
import { nodeAllows } from '../../src/policies/placement/node-filter.js';
import { alignment } from '../../src/policies/scheduling/tetris.js';
import { compareSignatures, remainingMsOf } from '../../src/policies/scheduling/tetris-class.js';
import { shapeSignature } from '../../src/policies/scheduling/tetris-class.js';
import { placementRequestOf, type OracleJobView, type PlacementRequest, type SchedulingAction, type SchedulingContext } from '../../src/policies/types.js';

/** A queued job the reference has not started yet in this pass. */
interface RefJob {
  readonly job: OracleJobView;
  readonly remainingMs: number;
}

/** Jobs of one request signature, with the gang's trial of this pass (undefined: to try; null: failed). */
interface RefClass {
  readonly signature: string;
  readonly request: PlacementRequest;
  readonly jobs: RefJob[];
  trial: TaskPlacement[] | null | undefined;
  /** The trial no longer fits: its last alignment stands, and the gang is placed anew when picked. */
  stale: boolean;
  /** The trial's alignment when it last fitted. */
  lastAlignment: number;
}

/** A class's candidate machines this round (node order) and its alignment with each. */
interface RefCandidates {
  readonly nodes: number[];
  readonly alignments: number[];
}

/**
 * Bounded Tetris written plainly, with no state between passes: each round groups the queue by
 * signature, finds every single replica's candidates by scanning all machines, sorting the ones it
 * fits in each GPU group (GPU model, '' without GPUs) by free GPU capacity, then free CPU, then node
 * index (descending) and taking `bound` of each group,
 * sums the round's pairs class by class in signature order, and starts the best pick. A gang is
 * tried once and keeps its trial while the trial's tasks can all be reserved again; after that it
 * keeps the trial's last alignment and is placed anew when picked; a gang whose placement fails is
 * not tried again in the pass.
 */
export function tetrisBoundedReference(context: SchedulingContext<OracleJobView>, bound: number): SchedulingAction[] {
  const scratch = context.scratch();
  const bySignature = new Map<string, RefClass>();
  for (const job of context.queued) {
    const signature = shapeSignature(job.request);
    let shape = bySignature.get(signature);
    if (!shape) bySignature.set(signature, (shape = { signature, request: placementRequestOf(job.request), jobs: [], trial: undefined, stale: false, lastAlignment: 0 }));
    shape.jobs.push({ job, remainingMs: remainingMsOf(job) });
  }
  const classes = [...bySignature.values()].sort((a, b) => compareSignatures(a.signature, b.signature));
  const actions: SchedulingAction[] = [];
  for (;;) {
    const scored: { shape: RefClass; candidates: RefCandidates }[] = [];
    for (const shape of classes) {
      if (shape.jobs.length === 0) continue;
      const candidates = candidatesOf(scratch, context, shape, bound);
      if (candidates.nodes.length > 0) scored.push({ shape, candidates });
    }
    if (scored.length === 0) break;
    let alignmentSum = 0;
    let remainingMs = 0;
    for (const { shape, candidates } of scored) {
      let classAlignment = 0;
      for (const a of candidates.alignments) classAlignment += a;
      let classMs = 0;
      for (const j of shape.jobs) classMs += j.remainingMs;
      alignmentSum += shape.jobs.length * classAlignment;
      remainingMs += candidates.nodes.length * classMs;
    }
    const e = remainingMs > 0 ? alignmentSum / (remainingMs / 1000) : 0;
    let best: { shape: RefClass; job: RefJob; nodeIndex: number; score: number } | null = null;
    for (const { shape, candidates } of scored) {
      let job = shape.jobs[0]!;
      for (const j of shape.jobs) {
        if (j.remainingMs < job.remainingMs || (j.remainingMs === job.remainingMs && j.job.queuePosition < job.job.queuePosition)) job = j;
      }
      let at = 0;
      for (let k = 1; k < candidates.nodes.length; k++) if (candidates.alignments[k]! > candidates.alignments[at]!) at = k;
      const score = candidates.alignments[at]! - e * (job.remainingMs / 1000);
      if (best === null || score > best.score || (score === best.score && job.job.queuePosition < best.job.job.queuePosition)) {
        best = { shape, job, nodeIndex: candidates.nodes[at]!, score };
      }
    }
    const { shape, job, nodeIndex } = best!;
    const tasks: TaskPlacement[] = [];
    if (shape.request.replicas.length > 1 && shape.stale) {
      const placed = context.placement.place(scratch, shape.request);
      if (placed === null) {
        shape.trial = null;
        continue;
      }
      tasks.push(...placed);
    } else if (shape.request.replicas.length > 1) {
      for (const t of shape.trial!) tasks.push(scratch.reserve(t.nodeIndex, t.role, t.demand)!);
    } else {
      const replica = shape.request.replicas[0]!;
      tasks.push(scratch.reserve(nodeIndex, replica.role, replica.demand)!);
    }
    actions.push({ kind: 'start', jobId: job.job.request.id, tasks });
    shape.jobs.splice(shape.jobs.indexOf(job), 1);
  }
  return actions;
}

function candidatesOf(scratch: CapacityScratch, context: SchedulingContext<OracleJobView>, shape: RefClass, bound: number): RefCandidates {
  const { replicas, gpuTypes } = shape.request;
  const first = replicas[0];
  if (!first) return { nodes: [], alignments: [] };
  if (replicas.length > 1) {
    if (shape.trial === undefined) {
      shape.trial = context.placement.place(scratch, shape.request);
      if (shape.trial !== null) scratch.unreserve(shape.trial);
    }
    if (shape.trial === null) return { nodes: [], alignments: [] };
    const nodeIndex = shape.trial[0]!.nodeIndex;
    if (!shape.stale && !fitsNow(scratch, shape.trial)) shape.stale = true;
    if (!shape.stale) shape.lastAlignment = alignment(scratch.nodes[nodeIndex]!, scratch.free(nodeIndex), first.demand);
    return { nodes: [nodeIndex], alignments: [shape.lastAlignment] };
  }
  const fittingByGroup = new Map<string, number[]>();
  for (let i = 0; i < scratch.nodes.length; i++) {
    if (!nodeAllows(scratch.nodes[i]!, first.demand, gpuTypes) || scratch.fitCount(i, first.demand) < 1) continue;
    const node = scratch.nodes[i]!;
    const group = node.gpus > 0 && node.gpuType !== null ? node.gpuType : '';
    fittingByGroup.set(group, [...(fittingByGroup.get(group) ?? []), i]);
  }
  const nodes: number[] = [];
  for (const fitting of fittingByGroup.values()) {
    const byFree = fitting.sort((a, b) => scratch.freeGpuMilli(b) - scratch.freeGpuMilli(a) || scratch.freeCpuMilli(b) - scratch.freeCpuMilli(a) || b - a);
    nodes.push(...byFree.slice(0, bound));
  }
  nodes.sort((a, b) => a - b);
  return { nodes, alignments: nodes.map((i) => alignment(scratch.nodes[i]!, scratch.free(i), first.demand)) };
}

/** True when the trial's tasks can all be reserved now, in order (given back at once). */
function fitsNow(scratch: CapacityScratch, trial: readonly TaskPlacement[]): boolean {
  const taken: TaskPlacement[] = [];
  for (const t of trial) {
    const task = scratch.reserve(t.nodeIndex, t.role, t.demand);
    if (task === null) break;
    taken.push(task);
  }
  scratch.unreserve(taken);
  return taken.length === trial.length;
}
