import type { JobRuntime } from './job-runtime.js';
import { watchJob } from './watch-job.js';

/** An entry of a recorder that follows one job: marked while it waits to be looked at. */
export interface MarkedEntry {
  readonly job: JobRuntime;
  marked: boolean;
}

/**
 * The followed jobs that changed in the instant now ending, each once: a recorder follows a job's
 * entry (its job's every update and phase change marks it), and at the end of the instant looks at
 * the marked ones. O(1) per change of a followed job; nothing for the others.
 */
export class InstantChanges<E extends MarkedEntry> {
  private readonly changed: E[] = [];

  /** Marks `entry` whenever its job changes, from now on. */
  follow(entry: E): void {
    watchJob(entry.job, () => {
      if (entry.marked) return;
      entry.marked = true;
      this.changed.push(entry);
    });
  }

  /** Calls `look` on every entry marked since the last call, in the order they were marked, and unmarks them. */
  drain(look: (entry: E) => void): void {
    for (const entry of this.changed) {
      entry.marked = false;
      look(entry);
    }
    this.changed.length = 0;
  }
}
