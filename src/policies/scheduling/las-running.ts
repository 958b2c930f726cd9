import { NO_TASKS, type TaskPlacement } from '../../model/allocation.js';
import { BTree, type BTreeOf } from '../../model/btree.js';
import { EventQueue } from '../../engine/event-queue.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobView } from '../types.js';
import { ByArrival } from './by-arrival.js';
import { compareLasKeys, DUE_SLACK_S, queueOf, type LasKey } from './las-order.js';

/** A running job as the index knows it. */
export interface RunningLas {
  readonly view: JobView;
  readonly key: LasKey;
  /** GPUs its tasks hold (a shared GPU counts whole): the most free whole GPUs preempting it can add. */
  readonly gpuSlots: number;
  /**
   * The tasks it holds, as the cluster listed them when it was taken in: every change of a running
   * job's tasks lists it among the pass's changes, so they are still its tasks during a pass (a
   * victim search reads them for every candidate).
   */
  readonly tasks: readonly TaskPlacement[];
  /** False once it left the index (its entry in the demotions is passed over then). */
  indexed: boolean;
}

/**
 * Tiresias's running jobs by queue and arrival, kept from the queue's changes. A running job's
 * attained service grows at the GPUs it holds, so the time it crosses its queue's threshold is
 * derived when it starts (or is resized) and the job is moved to its next queue at the first pass
 * from then on, instead of every running job's service being read at every pass. Only jobs below
 * the top queue are kept in priority order: a job is preempted only for one of a higher queue, so
 * top-queue jobs are never visited (most running jobs are there).
 */
export class LasRunning {
  /** Running jobs of queues below the top one, lowest priority first (last queue, latest arrival). */
  private readonly lowestFirst: BTreeOf<LasKey, RunningLas> = new BTree<LasKey, RunningLas>(undefined, (a, b) => compareLasKeys(b, a));
  /** Each running job's entry. */
  private readonly entries = new ByArrival<RunningLas>();
  /**
   * Running jobs that may be demoted, in the engine's event queue by the time they are due (ties in
   * the order added). An entry whose job left or was taken in again since stays until its time
   * comes and is passed over then (see demoteDue): most jobs end before they are due, and taking
   * each one out of an ordered index cost more than the rest.
   */
  private readonly demotions = new EventQueue<RunningLas>();
  /** Per queue: running jobs and the GPU slots they hold. */
  private readonly counts: number[];
  private readonly slots: number[];

  /**
   * @param thresholdsGpuS the queues' service thresholds
   * @param baseOf attained service a job's service is counted from (its last promotion), GPU-s
   */
  constructor(
    private readonly thresholdsGpuS: readonly number[],
    private readonly baseOf: (jobId: string) => number,
  ) {
    this.counts = new Array<number>(thresholdsGpuS.length + 1).fill(0);
    this.slots = new Array<number>(thresholdsGpuS.length + 1).fill(0);
  }

  /** Running jobs indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** Takes a job in as it runs now, or out when it no longer runs. */
  update(view: JobView, cluster: ClusterView, nowS: number): void {
    this.remove(view);
    if (view.phase === 'running') this.add(view, cluster, nowS);
  }

  /** Moves every job whose service crossed its queue's threshold by `nowS` to its new queue; returns true when it moved any. */
  demoteDue(cluster: ClusterView, nowS: number): boolean {
    const due: RunningLas[] = [];
    const { demotions } = this;
    while (demotions.peekTimeS() <= nowS + DUE_SLACK_S) {
      const entry = demotions.pop()!;
      if (entry.indexed) due.push(entry);
    }
    for (const entry of due) {
      this.remove(entry.view);
      this.add(entry.view, cluster, nowS);
    }
    return due.length > 0;
  }

  /** Running jobs in queues below `queue`. */
  countBelow(queue: number): number {
    let total = 0;
    for (let q = queue + 1; q < this.counts.length; q++) total += this.counts[q]!;
    return total;
  }

  /** GPU slots held by running jobs in queues below `queue`. */
  slotsBelow(queue: number): number {
    let total = 0;
    for (let q = queue + 1; q < this.slots.length; q++) total += this.slots[q]!;
    return total;
  }

  /**
   * Calls `visit` for the running jobs in queues below `queue` (a queue of the index: 0 or more),
   * lowest priority first (last queue, latest arrival), until it returns true. The index must not
   * change meanwhile.
   */
  visitLowestFirst(queue: number, visit: (entry: RunningLas) => boolean): void {
    const first = this.lowestFirst.minKey();
    if (first === undefined || first.queue <= queue) return;
    this.lowestFirst.forRange(first, this.lowestFirst.maxKey()!, true, (key, entry) => (key.queue <= queue || visit(entry) ? STOP : undefined));
  }

  private add(view: JobView, cluster: ClusterView, nowS: number): void {
    const id = view.request.id;
    const serviceGpuS = view.attainedGpuS - this.baseOf(id);
    const queue = queueOf(serviceGpuS, this.thresholdsGpuS);
    const tasks = cluster.tasksOf(id) ?? NO_TASKS;
    let gpuSlots = 0;
    for (let k = 0; k < tasks.length; k++) gpuSlots += tasks[k]!.gpuIndices.length;
    const dueS = queue < this.thresholdsGpuS.length && view.gpus > 0 ? nowS + (this.thresholdsGpuS[queue]! - serviceGpuS) / view.gpus : null;
    const entry: RunningLas = { view, key: { queue, submitS: view.request.submitS, id }, gpuSlots, tasks, indexed: true };
    this.entries.set(view, entry);
    if (queue > 0) this.lowestFirst.set(entry.key, entry);
    if (dueS !== null) this.demotions.push(dueS, entry);
    this.counts[queue]!++;
    this.slots[queue]! += gpuSlots;
  }

  private remove(view: JobView): void {
    const entry = this.entries.take(view);
    if (!entry) return;
    entry.indexed = false;
    if (entry.key.queue > 0) this.lowestFirst.delete(entry.key);
    this.counts[entry.key.queue]!--;
    this.slots[entry.key.queue]! -= entry.gpuSlots;
  }
}

/** What a B-tree scan's callback returns to stop the scan. */
const STOP = { break: true } as const;
