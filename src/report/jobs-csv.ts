import { stringify } from 'csv-stringify/sync';
import { roundRatio, roundS } from '../metrics/summary.js';
import { requestedGpus } from '../model/job-spec.js';
import type { JobRuntime } from '../sim/job-runtime.js';

/** Columns of jobs.csv, in order (DESIGN.md contract; new columns are appended). */
export const JOB_COLUMNS = [
  'id',
  'kind',
  'submitS',
  'startS',
  'endS',
  'jctS',
  'queueS',
  'state',
  'gpus',
  'restarts',
  'ettr',
  'lostGpuHours',
  'runningS',
  'failureReason',
  'queuedS',
  'pausedS',
  'preemptions',
  'resizes',
  'checkpointingS',
  'detectingS',
  'lostSteps',
  'productiveS',
  'reschedulingS',
  'healthCheckS',
  'startingS',
  'loadingS',
  'resizingS',
  'scaledDownS',
  'slowedS',
  'downtimeGpuHours',
  'user',
  'nodes',
  'meanStepsPerS',
  'finalStepsPerS',
  'maxWorkers',
  'maxPs',
  'oomKills',
  'psMigrations',
  'droppedShards',
  'secondsTo90PctSpeed',
  'firstStepsPerS',
  'cpuStarvedWaitS',
] as const;

/** One row per job, as of the end of the run at `endS`; empty cells for what never happened. */
export function jobsCsv(jobs: readonly JobRuntime[], endS: number): string {
  const rows = jobs.map((job) => {
    const wallS = job.wallSinceStartS(endS);
    return [
      job.spec.id,
      job.spec.kind,
      roundS(job.spec.submitS),
      job.firstStartS === null ? '' : roundS(job.firstStartS),
      job.endS === null ? '' : roundS(job.endS),
      job.phase === 'completed' ? roundS(job.endS! - job.spec.submitS) : '',
      roundS(job.queueS(endS)),
      job.phase,
      roundRatio(job.gpusWhenRunning || requestedGpus(job.spec)),
      job.restarts,
      wallS > 0 ? roundRatio(Math.min(1, job.effectiveS() / wallS)) : '',
      roundRatio(job.lostGpuS / 3600),
      roundS(job.runningS),
      job.failureReason ?? '',
      roundS(job.queuedS),
      roundS(job.pausedS),
      job.preemptions,
      job.resizes,
      roundS(job.checkpointingS),
      roundS(job.detectingS),
      roundS(job.lostSteps),
      roundS(job.effectiveS()),
      roundS(job.pausedByKindS.rescheduling),
      roundS(job.pausedByKindS['health-check']),
      roundS(job.pausedByKindS.starting),
      roundS(job.pausedByKindS.loading),
      roundS(job.pausedByKindS.resizing),
      roundS(job.scaledDownS),
      roundS(job.slowedS),
      roundRatio(job.downtimeGpuS / 3600),
      job.spec.user,
      job.nodesUsed.join(' '),
      job.runningS > 0 ? roundRate(job.progressSteps / job.runningS) : '',
      job.lastRateStepsPerS > 0 ? roundRate(job.lastRateStepsPerS) : '',
      job.maxWorkers,
      job.psStats?.maxPs ?? 0,
      job.psStats?.oomKills ?? 0,
      job.psStats?.psMigrations ?? 0,
      job.droppedShards,
      job.secondsTo90PctSpeed === null ? '' : roundS(job.secondsTo90PctSpeed),
      job.firstStepsPerS === null ? '' : roundRate(job.firstStepsPerS),
      roundS(job.cpuStarvedWaitS),
    ];
  });
  return stringify([[...JOB_COLUMNS], ...rows]);
}

/** A speed in steps/s to 4 significant digits. */
function roundRate(stepsPerS: number): number {
  return Number(stepsPerS.toPrecision(4));
}
