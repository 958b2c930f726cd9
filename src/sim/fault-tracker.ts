import { InvariantError } from '../errors.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import type { TaskPlacement } from '../model/allocation.js';

/** One row of the fault and recovery timeline (timeline.csv). */
export interface TimelineRow {
  readonly timeS: number;
  /** What happened: fault, repair, job-crash, job-hang, job-failed, scale-plan (an auto-scaler's plan), data-workers (the cluster's count changed: detail). */
  readonly event: string;
  readonly faultType: string;
  readonly node: string;
  readonly gpu: number | null;
  readonly jobId: string;
  readonly detail: string;
}

/**
 * What the faults of a run have done to the hardware: how many unrepaired faults hold each node
 * and GPU down (so overlapping faults restore health only when the last is repaired), the
 * unrepaired slowdowns of each GPU and node, broken hardware the scheduler cannot see yet, the
 * faults that took effect by type, and the timeline.
 */
export class FaultTracker {
  /** Broken GPUs and networks the scheduler cannot see yet (the node looks healthy) until isolated. */
  readonly hidden = new Set<FaultOccurrence>();
  private readonly nodeDownFaults: number[];
  private readonly gpuDownFaults: number[][];
  /** Speed factors of the unrepaired slowdowns of each node as a whole (empty: none). */
  private readonly nodeSlowdowns: number[][];
  /** Speed factors of the unrepaired slowdowns of each GPU, by node then GPU (absent: none). */
  private readonly gpuSlowdowns: Map<number, number[]>[];
  /** Unrepaired slowdowns anywhere on each node (node-wide or on one of its GPUs). */
  private readonly slowdownsOnNode: number[];
  private readonly countsByType = new Map<string, number>();
  readonly timeline: TimelineRow[] = [];

  constructor(gpusPerNode: readonly number[]) {
    this.nodeDownFaults = gpusPerNode.map(() => 0);
    this.gpuDownFaults = gpusPerNode.map((gpus) => new Array<number>(gpus).fill(0));
    this.nodeSlowdowns = gpusPerNode.map(() => []);
    this.gpuSlowdowns = gpusPerNode.map(() => new Map());
    this.slowdownsOnNode = gpusPerNode.map(() => 0);
  }

  /** Counts a fault that took effect (changed capacity or hit a job). */
  count(occurrence: FaultOccurrence): void {
    this.countsByType.set(occurrence.type.name, (this.countsByType.get(occurrence.type.name) ?? 0) + 1);
  }

  /** Faults that took effect, by type name, in name order (stable across runs). */
  byType(): Record<string, number> {
    return Object.fromEntries([...this.countsByType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** One more unrepaired fault holds the node down; returns true when it was up before. */
  nodeDown(nodeIndex: number): boolean {
    return this.nodeDownFaults[nodeIndex]!++ === 0;
  }

  /** One node fault repaired; returns true when no fault holds the node down any more. */
  nodeRepaired(nodeIndex: number): boolean {
    return --this.nodeDownFaults[nodeIndex]! === 0;
  }

  /** One more unrepaired fault holds the GPU down; returns true when it was up before. */
  gpuDown(nodeIndex: number, gpuIndex: number): boolean {
    return this.gpuDownFaults[nodeIndex]![gpuIndex]!++ === 0;
  }

  /** One GPU fault repaired; returns true when no fault holds the GPU down any more. */
  gpuRepaired(nodeIndex: number, gpuIndex: number): boolean {
    return --this.gpuDownFaults[nodeIndex]![gpuIndex]! === 0;
  }

  /** One more unrepaired slowdown to `factor` of the node (gpuIndex null) or of one of its GPUs. */
  slowDown(nodeIndex: number, gpuIndex: number | null, factor: number): void {
    if (gpuIndex === null) {
      this.nodeSlowdowns[nodeIndex]!.push(factor);
    } else {
      const byGpu = this.gpuSlowdowns[nodeIndex]!;
      const factors = byGpu.get(gpuIndex);
      if (factors) factors.push(factor);
      else byGpu.set(gpuIndex, [factor]);
    }
    this.slowdownsOnNode[nodeIndex]!++;
  }

  /** One slowdown to `factor` of the node (gpuIndex null) or GPU repaired. */
  slowdownRepaired(nodeIndex: number, gpuIndex: number | null, factor: number): void {
    const factors = gpuIndex === null ? this.nodeSlowdowns[nodeIndex]! : this.gpuSlowdowns[nodeIndex]!.get(gpuIndex);
    const at = factors ? factors.indexOf(factor) : -1;
    if (at < 0) throw new InvariantError(`no slowdown to ${factor} on node ${nodeIndex}${gpuIndex === null ? '' : ` GPU ${gpuIndex}`} to repair`);
    factors!.splice(at, 1);
    if (gpuIndex !== null && factors!.length === 0) this.gpuSlowdowns[nodeIndex]!.delete(gpuIndex);
    this.slowdownsOnNode[nodeIndex]!--;
  }

  /** True while some slowdown of the node or of one of its GPUs is unrepaired. */
  nodeSlowed(nodeIndex: number): boolean {
    return this.slowdownsOnNode[nodeIndex]! > 0;
  }

  /**
   * Speed factor of work on the node's GPUs `gpuIndices` (none: CPU-only work): the tightest of the
   * unrepaired slowdowns of the node and of those GPUs, 1 without any. Work on several GPUs waits
   * for the slowest, and a GPU throttled for two reasons runs at the tighter one.
   */
  speedFactor(nodeIndex: number, gpuIndices: readonly number[]): number {
    if (this.slowdownsOnNode[nodeIndex] === 0) return 1;
    let factor = Math.min(1, ...this.nodeSlowdowns[nodeIndex]!);
    const byGpu = this.gpuSlowdowns[nodeIndex]!;
    for (const gpuIndex of gpuIndices) {
      const factors = byGpu.get(gpuIndex);
      if (factors) factor = Math.min(factor, ...factors);
    }
    return factor;
  }

  /** Speed factor of the node as a whole: the tightest unrepaired slowdown of it or of any of its GPUs (1 without any). */
  nodeSpeedFactor(nodeIndex: number): number {
    if (this.slowdownsOnNode[nodeIndex] === 0) return 1;
    let factor = Math.min(1, ...this.nodeSlowdowns[nodeIndex]!);
    for (const factors of this.gpuSlowdowns[nodeIndex]!.values()) factor = Math.min(factor, ...factors);
    return factor;
  }

  /** The hidden broken hardware under these tasks, if any: a broken network under any task of its node, a broken GPU under a task using it. */
  brokenUnder(tasks: readonly TaskPlacement[]): FaultOccurrence | null {
    for (const occurrence of this.hidden) {
      const onNode = tasks.filter((t) => t.nodeIndex === occurrence.nodeIndex);
      if (onNode.length === 0) continue;
      if (occurrence.type.effect.kind !== 'gpu-down') return occurrence;
      if (onNode.some((t) => t.gpuIndices.includes(occurrence.gpuIndex ?? 0))) return occurrence;
    }
    return null;
  }

  /** Appends a timeline row. */
  log(row: TimelineRow): void {
    this.timeline.push(row);
  }
}
