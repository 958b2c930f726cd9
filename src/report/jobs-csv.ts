import { stringify } from 'csv-stringify/sync';
import { roundRatio, roundS } from '../metrics/summary.js';
import { requestedGpus } from '../model/job-spec.js';
import type { JobRuntime } from '../sim/job-runtime.js';
import type { WaitLedgerView } from '../sim/wait-ledger.js';
import { WAIT_REASONS, type WaitReason } from '../policies/wait-reason.js';

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
  // Queued seconds per wait reason, in WAIT_REASONS order (waitColumn names them).
  'waitNotChosenS',
  'waitHeadOfLineS',
  'waitNoGpusS',
  'waitFragmentedS',
  'waitGangS',
  'waitCpuMemoryS',
  'waitPriorityS',
  'waitPreemptedS',
  'waitBlockedBy',
] as const;

/** The jobs.csv column of a wait reason's seconds: `head-of-line` is `waitHeadOfLineS`. */
export function waitColumn(reason: WaitReason): string {
  return `wait${reason.replace(/(^|-)([a-z])/g, (_m, _dash: string, letter: string) => letter.toUpperCase())}S`;
}

/**
 * One row per job, as of the end of the run at `endS`; empty cells for what never happened (and
 * for the wait reasons, without `waits`). `jobs` in the run's order (the ledger's job numbers).
 */
export function jobsCsv(jobs: readonly JobRuntime[], endS: number, waits?: WaitLedgerView): string {
  const rows = jobs.map((job) => {
    const blocker = waits === undefined ? -1 : waits.blockerOfJob(job);
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
      ...(waits === undefined ? WAIT_REASONS.map(() => '') : waits.secondsOf(job).map(roundS)),
      blocker >= 0 ? jobs[blocker]!.spec.id : '',
    ];
  });
  return stringify([[...JOB_COLUMNS], ...rows]);
}

/** A speed in steps/s to 4 significant digits. */
function roundRate(stepsPerS: number): number {
  return Number(stepsPerS.toPrecision(4));
}
