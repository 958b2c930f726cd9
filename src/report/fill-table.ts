import type { FillState, FillSummary } from '../sim/fill.js';
import { alignColumns, formatPercent } from './summary-table.js';

/** A fill run's summary with its wall-clock cost (the only part that varies between identical runs). */
export interface TimedFillSummary extends FillSummary {
  readonly perf: { readonly wallS: number };
}

/** GPUs with two decimals. */
function gpus(value: number): string {
  return value.toFixed(2);
}

/** The readable table `dlsim run` prints for a fill run. */
export function fillTable(summary: TimedFillSummary): string {
  const row = (label: string, value: (state: FillState) => string): string[] => [label, value(summary.atFirstFailure), value(summary.final)];
  const first = summary.firstFailure;
  return [
    `scenario ${summary.scenario}  fill (placement only)  policy ${summary.policy}  placement ${summary.placement}  order ${summary.order}  seed ${summary.seed}`,
    '',
    alignColumns([
      ['jobs', 'tried', 'placed', 'failed'],
      ['', String(summary.jobs.submitted), String(summary.jobs.placed), String(summary.jobs.failed)],
    ]),
    '',
    first === null ? 'first failure: none (every job was placed)' : `first failure: job ${first.jobId}, #${first.position} in order`,
    '',
    alignColumns([
      ['', 'at first failure', 'after every job'],
      row('jobs placed', (s) => String(s.jobsPlaced)),
      row('GPU allocation', (s) => formatPercent(s.gpuAllocationRate)),
      row('allocated GPUs', (s) => gpus(s.allocatedGpus)),
      row('idle GPUs', (s) => gpus(s.idleGpus)),
      row('fragmented GPUs', (s) => gpus(s.fragmentationGpus)),
      row('fragmentation / idle', (s) => formatPercent(s.fragmentationShareOfIdle)),
    ]),
    '',
    alignColumns([
      ['installed GPUs', String(summary.gpus)],
      ['target workload', `${summary.targetShapes} pod shapes`],
      ['wall time', `${summary.perf.wallS.toFixed(3)}s`],
    ]),
  ].join('\n');
}
