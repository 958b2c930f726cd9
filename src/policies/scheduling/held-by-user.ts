import type { ClusterView } from '../../model/cluster-state.js';
import type { JobView, QueueChanges } from '../types.js';
import { drfUser, heldBy, type ResourceAmounts } from './drf-fill.js';
import { ByArrival } from './by-arrival.js';

/**
 * What each DRF user's running jobs hold, kept from the changes a scheduling policy is told
 * (started, stopped, and resized jobs re-read) instead of summed over every running job at every
 * pass. Amounts are integers (thousandths and MiB), so the sums are exact in any order.
 */
export class HeldByUser {
  /** Each running job's user and what it holds. */
  private readonly byJob = new ByArrival<{ readonly user: string; readonly held: ResourceAmounts }>();
  private readonly byUser = new Map<string, ResourceAmounts>();
  /** Users whose holdings changed since takeTouched was last called. */
  private touched = new Set<string>();
  /** The set takeTouched returned last, emptied and used again at the next call. */
  private spare = new Set<string>();
  private seeded = false;

  /** Takes in what changed; the first call reads every running job (a policy made mid-run, or handed the running list directly). */
  sync(cluster: ClusterView, running: () => readonly JobView[], changes: QueueChanges): void {
    if (!this.seeded) {
      for (const job of running()) this.put(cluster, job);
      this.seeded = true;
    }
    for (const list of [changes.started, changes.resized, changes.stopped, changes.queued]) {
      for (const job of list) {
        this.drop(job);
        if (job.phase === 'running') this.put(cluster, job);
      }
    }
  }

  /** What the user's running jobs hold now (a copy). */
  heldOf(user: string): ResourceAmounts {
    const held = this.byUser.get(user);
    return held === undefined ? { gpuMilli: 0, cpuMilli: 0, memMiB: 0 } : { ...held };
  }

  /** The users whose holdings changed since the last call (the set holds until the next call). */
  takeTouched(): ReadonlySet<string> {
    const touched = this.touched;
    // Clearing a set makes it a new table: skipped when it is empty (most calls).
    if (this.spare.size > 0) this.spare.clear();
    this.touched = this.spare;
    this.spare = touched;
    return touched;
  }

  /** A copy of the holdings by user (the caller may change it). */
  snapshot(): Map<string, ResourceAmounts> {
    const copy = new Map<string, ResourceAmounts>();
    for (const [user, held] of this.byUser) if (held.gpuMilli !== 0 || held.cpuMilli !== 0 || held.memMiB !== 0) copy.set(user, { ...held });
    return copy;
  }

  private put(cluster: ClusterView, job: JobView): void {
    const held = heldBy(cluster.tasksOf(job.request.id) ?? []);
    const user = drfUser(job.request);
    this.byJob.set(job, { user, held });
    this.touched.add(user);
    const total = this.byUser.get(user);
    if (total === undefined) {
      this.byUser.set(user, { ...held });
      return;
    }
    total.gpuMilli += held.gpuMilli;
    total.cpuMilli += held.cpuMilli;
    total.memMiB += held.memMiB;
  }

  private drop(job: JobView): void {
    const entry = this.byJob.take(job);
    if (!entry) return;
    this.touched.add(entry.user);
    const total = this.byUser.get(entry.user)!;
    total.gpuMilli -= entry.held.gpuMilli;
    total.cpuMilli -= entry.held.cpuMilli;
    total.memMiB -= entry.held.memMiB;
    if (total.gpuMilli === 0 && total.cpuMilli === 0 && total.memMiB === 0) this.byUser.delete(entry.user);
  }
}
