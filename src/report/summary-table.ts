import type { PriorityClassesSummary, Quantiles, RunSummary } from '../metrics/summary.js';

/** Seconds as a short human duration: "42s", "12.5m", "3.20h", "2.10d". */
export function formatSeconds(seconds: number): string {
  const abs = Math.abs(seconds);
  if (abs < 60) return `${seconds.toFixed(abs < 10 ? 2 : 1)}s`;
  if (abs < 3600) return `${(seconds / 60).toFixed(1)}m`;
  if (abs < 86400 * 2) return `${(seconds / 3600).toFixed(2)}h`;
  return `${(seconds / 86400).toFixed(2)}d`;
}

/** A ratio in [0,1] as a percentage with one decimal. */
export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/**
 * Lays out rows of cells as aligned columns: the first column left-aligned, the rest right-aligned
 * (numbers), or all left-aligned (text) with `allLeft`.
 */
export function alignColumns(rows: readonly (readonly string[])[], allLeft = false): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 || allLeft ? cell.padEnd(i === row.length - 1 ? 0 : widths[i]!) : cell.padStart(widths[i]!)))
        .join('  '),
    )
    .join('\n');
}

/** Per-class times, spot preemptions and the work they lost, for a workload with spot jobs. */
function priorityClassesTable(classes: PriorityClassesSummary): string {
  const q = (label: string, completed: number, values: Quantiles): string[] => [
    label,
    ...[values.mean, values.p50, values.p90, values.p99].map((value) => (completed === 0 ? '–' : formatSeconds(value))),
  ];
  const { high, spot } = classes;
  return [
    alignColumns([
      ['priority classes', 'mean', 'p50', 'p90', 'p99'],
      q('JCT, high priority', high.completed, high.jctS),
      q('JCT, spot', spot.completed, spot.jctS),
      q('queued, high priority', high.completed, high.waitS),
      q('queued, spot', spot.completed, spot.waitS),
    ]),
    '',
    alignColumns([
      ['jobs, high priority / spot', `${high.jobs} / ${spot.jobs}`],
      ['spot preemptions', String(spot.preemptions)],
      ['lost to spot preemptions (GPU hours)', spot.preemptionLostGpuHours.toFixed(1)],
    ]),
  ].join('\n');
}

/** The readable table `dlsim run` prints. */
export function summaryTable(summary: RunSummary): string {
  // JCT and queueing cover completed jobs only: with none, there is nothing to show.
  const none = summary.jobs.completed === 0;
  const q = (label: string, values: RunSummary['jctS']): string[] => [
    label,
    ...[values.mean, values.p50, values.p90, values.p99].map((value) => (none ? '–' : formatSeconds(value))),
  ];
  const lines = [
    `scenario ${summary.scenario}  policy ${summary.policy}  seed ${summary.seed}`,
    '',
    alignColumns([
      ['jobs', 'submitted', 'completed', 'failed', 'unfinished'],
      [
        '',
        String(summary.jobs.submitted),
        String(summary.jobs.completed),
        String(summary.jobs.failed),
        String(summary.jobs.unfinished),
      ],
    ]),
    '',
    alignColumns([['time', 'mean', 'p50', 'p90', 'p99'], q('JCT', summary.jctS), q('queueing delay', summary.queueDelayS), q('queued, all waits', summary.waitS)]),
    '',
    alignColumns([
      ['makespan', formatSeconds(summary.makespanS)],
      ['GPU allocation', formatPercent(summary.gpuAllocationRate)],
      ['GPU utilization', formatPercent(summary.gpuUtilization)],
      ['CPU allocation', formatPercent(summary.cpuAllocationRate)],
      ['ETTR', formatPercent(summary.ettr)],
      ['runtime ratio', formatPercent(summary.runtimeRatio)],
      ['faults', String(summary.faults.total)],
      ['restarts', String(summary.restarts)],
      ['OOM kills', String(summary.oomKills)],
      ['scale plans', String(summary.scalePlans)],
      ['lost GPU hours', summary.lostGpuHours.toFixed(1)],
      ['downtime GPU hours', summary.downtimeGpuHours.toFixed(1)],
      ['CPU-starved wait, mean', none ? '–' : formatSeconds(summary.cpuStarvedWaitS.mean)],
      ['CPU-starved share of waiting', none ? '–' : formatPercent(summary.cpuStarvedWaitS.share)],
      ['data workers per job, mean', none ? '–' : summary.dataWorkers.meanPerJob.toFixed(2)],
      ['events', String(summary.events)],
      ['wall time', `${summary.perf.wallS.toFixed(3)}s (${Math.round(summary.perf.eventsPerS)} events/s)`],
    ]),
  ];
  if (summary.priorityClasses) lines.push('', priorityClassesTable(summary.priorityClasses));
  const byType = Object.entries(summary.faults.byType);
  if (byType.length > 0) {
    lines.push('', alignColumns([['faults by type', 'count'], ...byType.map(([type, count]) => [`  ${type}`, String(count)])]));
  }
  return lines.join('\n');
}
