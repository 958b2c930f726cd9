import type { AutoscaleCsvRow } from '../report-data.js';
import { colorAt, esc } from './svg.js';
import { timeChart, type TimeSeries } from './time-chart.js';

/** Most auto-scaled jobs drawn per policy (the first ones in autoscale.csv). */
export const MAX_AUTOSCALE_JOBS_DRAWN = 8;

/**
 * Speed and shape of one policy's auto-scaled jobs over time: two charts, steps/s per job
 * (`data-chart="autoscale-speed"`) and workers (solid) and parameter servers (dashed) per job
 * (`data-chart="autoscale-shape"`), each `data-policy=policy`.
 */
export function autoscaleCharts(policy: string, rows: readonly AutoscaleCsvRow[] | null): string {
  const extra = ` data-policy="${esc(policy)}"`;
  const jobs = [...new Set((rows ?? []).map((r) => r.jobId))].slice(0, MAX_AUTOSCALE_JOBS_DRAWN);
  const empty = rows === null ? 'no autoscale.csv in this folder' : 'no auto-scaled jobs in this run';
  const byJob = new Map<string, AutoscaleCsvRow[]>(jobs.map((j) => [j, []]));
  for (const row of rows ?? []) byJob.get(row.jobId)?.push(row);
  const speed: TimeSeries[] = jobs.map((job, i) => ({ name: job, color: colorAt(i), points: byJob.get(job)!.map((r) => [r.timeS, r.stepsPerS] as const) }));
  const shape: TimeSeries[] = jobs.flatMap((job, i) => {
    const points = byJob.get(job)!;
    const workers: TimeSeries = { name: `${job} workers`, color: colorAt(i), points: points.map((r) => [r.timeS, r.workers] as const) };
    const ps: TimeSeries = { name: `${job} PS`, color: colorAt(i), points: points.map((r) => [r.timeS, r.ps] as const), dash: true };
    return points.some((r) => r.ps > 0) ? [workers, ps] : [workers];
  });
  return (
    timeChart('autoscale-speed', `Speed of auto-scaled jobs: ${policy}`, 'training speed (steps/s)', speed, { emptyText: empty, extra }) +
    timeChart('autoscale-shape', `Shape of auto-scaled jobs: ${policy}`, 'replicas', shape, { emptyText: empty, extra })
  );
}
