import type { HistoryRecord } from '../../io/history-db.js';

/** A finished job as the history keeps it (defined with the store, src/io/history-db.ts). */
export type { HistoryRecord } from '../../io/history-db.js';

/** DLRover's brain sizes a new job from the same user's jobs on the same dataset of the last 7 days (REFERENCE §2). */
export const SIMILAR_JOBS_WITHIN_S = 7 * 86_400;

/**
 * What auto-scaling policies read of the history of finished jobs (the scenario's `history`): the
 * database as it was when the run started, so every decision is a function of scenario, policy
 * and seed. Read-only.
 */
export interface HistoryView {
  /**
   * Records of `user`'s jobs on `dataset` that finished in the `withinS` seconds up to simulated
   * time `nowS` (the view maps it to history time), oldest first; "" matches an unknown dataset.
   */
  similar(user: string, dataset: string, withinS: number, nowS: number): readonly HistoryRecord[];
}
