/**
 * The history of finished jobs (the scenario's `history`) as DLRover's brain service reads it:
 * per similar job, the PS totals and the largest use of one PS and of one worker.
 */
import type { HistoryRecord, HistoryView } from './history-view.js';
import type { HistoryUsage } from './brain-service.js';
import type { BrainHistory } from './dlrover-brain.js';

/**
 * What the brain reads of one record: the mean and largest total PS CPU and the largest total PS
 * memory, the largest CPU of one PS, and the largest CPU and memory of one worker or the chief
 * (DLRover's chief is worker 0). Null when its PS or its workers were never sampled: a record
 * without usage cannot size a job.
 */
export function historyUsageOf(record: HistoryRecord): HistoryUsage | null {
  const { psTotals } = record;
  const ps = record.usage.ps;
  const trainers = [record.usage.worker, record.usage.chief].filter((usage) => usage !== null);
  if (psTotals === null || ps === null || trainers.length === 0) return null;
  return {
    meanTotalPsCpuCores: psTotals.meanCpuCores,
    maxPsCpuCores: ps.maxCpuCores,
    maxTotalPsMemMiB: psTotals.maxMemMiB,
    maxWorkerCpuCores: Math.max(...trainers.map((usage) => usage.maxCpuCores)),
    maxWorkerMemMiB: Math.max(...trainers.map((usage) => usage.maxMemMiB)),
  };
}

/** The brain's view of the history: the similar jobs that have sampled usage, oldest first. */
export function brainHistoryOf(view: HistoryView): BrainHistory {
  return {
    similar: (user, dataset, withinS, nowS) =>
      view.similar(user, dataset, withinS, nowS).flatMap((record) => {
        const usage = historyUsageOf(record);
        return usage === null ? [] : [usage];
      }),
  };
}
