import type { FaultOccurrence } from '../faults/occurrence.js';

/** One row of the fault and recovery timeline (timeline.csv). */
export interface TimelineRow {
  readonly timeS: number;
  /** What happened: fault, repair, job-crash, job-hang, job-failed. */
  readonly event: string;
  readonly faultType: string;
  readonly node: string;
  readonly gpu: number | null;
  readonly jobId: string;
  readonly detail: string;
}

/**
 * What the faults of a run have done to the hardware: how many unrepaired faults hold each node
 * and GPU down (so overlapping faults restore health only when the last is repaired), the faults
 * that took effect by type, and the timeline.
 */
export class FaultTracker {
  private readonly nodeDownFaults: number[];
  private readonly gpuDownFaults: number[][];
  private readonly countsByType = new Map<string, number>();
  readonly timeline: TimelineRow[] = [];

  constructor(gpusPerNode: readonly number[]) {
    this.nodeDownFaults = gpusPerNode.map(() => 0);
    this.gpuDownFaults = gpusPerNode.map((gpus) => new Array<number>(gpus).fill(0));
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

  /** Appends a timeline row. */
  log(row: TimelineRow): void {
    this.timeline.push(row);
  }
}
