import { coarsenUsage } from '../binning.js';
import type { PolicyData, ReportData, UsageRow } from '../report-data.js';
import { autoscaleCharts } from './autoscale-chart.js';
import { cdfChart } from './cdf-chart.js';
import { faultChart } from './fault-chart.js';
import { ganttChart } from './gantt-chart.js';
import { summaryTable } from './summary-table.js';
import { sweepCharts, type SweepPoint } from './sweep-chart.js';
import { colorAt, esc } from './svg.js';
import { timeChart, type TimeSeries } from './time-chart.js';
import { timeSplitChart } from './time-split-chart.js';
import { waitReasonChart } from './wait-reason-chart.js';
import { timeSpanOf } from './time-span.js';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0 auto;max-width:1180px;padding:16px 24px 48px}
div.table{overflow-x:auto}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:28px 0 4px;border-bottom:1px solid #ddd;padding-bottom:3px}
p.note{color:#555;margin:2px 0 8px;max-width:820px}p.stamp{color:#666;font-size:12px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
tr th:first-child{text-align:left;font-weight:normal}tr:first-child th{background:#f4f4f4;font-weight:600}
span.ratio{display:block;color:#666;font-size:11px}
svg{display:block;margin:6px 0 14px;font-size:11px}svg text{fill:#333}.chart-title{font-size:13px;font-weight:600}
.axis line{stroke:#888}.axis line.grid{stroke:#eee}.axis-label{font-size:12px}.empty-note{fill:#888;font-style:italic}
`;

/** A usage.csv column as a step series over time (at most MAX_SERIES_POINTS points, closed at the last bin's end). */
function usageSeries(rows: readonly UsageRow[] | null, pick: (row: UsageRow) => number): [number, number][] {
  if (rows === null || rows.length === 0) return [];
  const coarse = coarsenUsage(rows);
  const points: [number, number][] = coarse.map((r) => [r.timeS, pick(r)]);
  const last = coarse[coarse.length - 1]!;
  points.push([last.timeS + last.binS, pick(last)]);
  return points;
}

/** One series per policy of a usage.csv column. */
function perPolicy(policies: readonly PolicyData[], pick: (row: UsageRow) => number): TimeSeries[] {
  return policies.map((p, i) => ({ name: p.policy, color: colorAt(i), points: usageSeries(p.usage, pick) }));
}

/** A section: heading, a note saying what it shows, and its content. */
function section(id: string, heading: string, note: string, content: string): string {
  return `<section id="${id}"><h2>${esc(heading)}</h2><p class="note">${note}</p>${content}</section>`;
}

/** The stamp: dlsim version, scenario, policies and seeds (never the wall clock, so a report is a pure function of its data). */
export function stampOf(data: ReportData): string {
  const seeds = data.comparison !== null ? data.comparison.seeds : data.policies.flatMap((p) => (p.seed === null ? [] : [p.seed]));
  const seedText = seeds.length === 0 ? '' : seeds.length === 1 ? ` · seed ${seeds[0]}` : ` · seeds ${seeds[0]}–${seeds[seeds.length - 1]} (${seeds.length})`;
  const runNote = data.kind === 'compare' && seeds.length > 1 ? ` · charts from seed ${data.policies[0]?.seed ?? seeds[0]}'s runs` : '';
  return `dlsim ${data.version} · scenario ${data.scenario || '(unnamed)'} · ${data.policies.map((p) => p.policy).join(', ')}${seedText}${runNote}`;
}

/** The whole report.html: one self-contained page (inline CSS and SVG; no script, no network). */
export function reportHtml(data: ReportData): string {
  const policies = data.policies;
  const anyUsage = policies.some((p) => p.usage !== null);
  const totalGpus = policies.find((p) => p.usage !== null && p.usage.length > 0)?.usage?.[0]?.totalGpus ?? null;
  const totalSeries = (rows: readonly UsageRow[] | null): TimeSeries[] =>
    totalGpus === null || rows === null || rows.length === 0 ? [] : [{ name: 'installed GPUs', color: '#999999', dash: true, points: usageSeries(rows, (r) => r.totalGpus) }];
  const firstUsage = policies.find((p) => p.usage !== null && p.usage.length > 0)?.usage ?? null;
  const noUsage = 'no usage.csv in this folder';
  const span = timeSpanOf(policies);
  const multiple = policies.length > 1;
  const seedsNote = data.comparison !== null && data.comparison.seeds.length > 1 ? ` The table is over ${data.comparison.seeds.length} seeds; the charts below are of each policy's run on the first seed.` : '';
  const autoscaled = policies.filter((p) => p.autoscale !== null && p.autoscale.length > 0);
  const body = [
    `<h1>dlsim report: ${esc(data.scenario || '(unnamed scenario)')}</h1>`,
    `<p class="stamp" data-stamp>${esc(stampOf(data))}</p>`,
    section(
      'summary',
      'Summary',
      `${multiple ? 'Mean ± 95% confidence half-width (Student t) over seeds, per policy; under each, the ratio of its mean to the first policy’s (†: the mean of per-seed ratios, paired over seeds, with its interval).' : 'The run\u2019s summary.'} Times in seconds, rates in [0, 1].${seedsNote}`,
      `<div class="table">${summaryTable(policies, data.comparison)}</div>`,
    ),
    section(
      'cdfs',
      'Job completion and waiting times',
      'Empirical CDFs over completed jobs, log time axis (values under 1 s are drawn at 1 s), each from at most 500 quantile points.',
      cdfChart('jct-cdf', 'JCT CDF', 'job completion time (s, log scale)', policies.map((p) => ({ name: p.policy, sorted: p.jobs.jctS }))) +
        cdfChart('wait-cdf', 'Waiting time CDF', 'time queued (s, log scale)', policies.map((p) => ({ name: p.policy, sorted: p.jobs.waitS }))),
    ),
    section(
      'gpus',
      'GPU allocation and utilisation over time',
      'GPUs allocated to jobs, and GPUs busy (allocated GPUs weighted by how fast their jobs train against full speed), as time-weighted means over bins of simulated time (usage.csv). The dashed line is the installed GPUs.',
      timeChart('gpu-allocation', 'GPUs allocated', 'GPUs', [...perPolicy(policies, (r) => r.allocatedGpus), ...totalSeries(firstUsage)], { emptyText: noUsage }) +
        timeChart('gpu-utilization', 'GPUs busy', 'GPUs', [...perPolicy(policies, (r) => r.busyGpus), ...totalSeries(firstUsage)], { emptyText: noUsage }),
    ),
    section(
      'queue',
      'Pending queue over time',
      'Jobs waiting in the queue (time-weighted mean per bin).',
      timeChart('pending-queue', 'Jobs queued', 'jobs', perPolicy(policies, (r) => r.pendingJobs), { emptyText: noUsage }),
    ),
    section(
      'gantt',
      'Sampled jobs over time',
      'A sample of at most 200 jobs chosen by a hash of their ids (the same jobs under every policy), one lane per job, coloured by state (gantt.csv). Recovery from a fault shows as detecting, rescheduling, health-check and loading.',
      policies.map((p) => ganttChart(p.policy, p.gantt, span)).join(''),
    ),
    section(
      'faults',
      'Faults and recovery',
      'Faults that took effect per time bin, by type (timeline.csv), and below, how many of the sampled jobs were in each recovery phase (mean over the bin).',
      policies.map((p) => faultChart(p.policy, p.faults, p.gantt, span)).join(''),
    ),
    section(
      'time-split',
      'Time split per policy',
      'The GPU-hours jobs held, by what they did with them (jobs.csv: productiveS, checkpointingS, detectingS, reschedulingS, healthCheckS, loadingS, startingS + resizingS, each times the job\u2019s GPUs; lost is lostGpuHours, work rolled back). Hover a bar for its share.',
      timeSplitChart(policies.map((p) => ({ policy: p.policy, gpuH: p.jobs.timeSplitGpuH }))),
    ),
    section(
      'wait-reasons',
      'Why jobs waited',
      'The hours jobs spent queued, by the reason their scheduling policy gave for keeping them waiting (jobs.csv: waitHeadOfLineS, waitNoGpusS, \u2026; see the README\u2019s \u201cWhy did this job wait?\u201d): not-chosen where the policy gave none.',
      waitReasonChart(policies.map((p) => ({ policy: p.policy, jobH: p.jobs.waitReasonJobH }))),
    ),
    section(
      'autoscale',
      'Auto-scaled jobs',
      'Training speed and replicas of the first jobs the auto-scaler made plans for (autoscale.csv, at most 8 drawn per policy).',
      autoscaled.length === 0
        ? `<p class="note" data-empty="autoscale">${policies.every((p) => p.autoscale === null) ? 'No autoscale.csv in this folder.' : 'No auto-scaled jobs in this run.'}</p>`
        : autoscaled.map((p) => autoscaleCharts(p.policy, p.autoscale)).join(''),
    ),
    section(
      'data-workers',
      'Data workers over time',
      'Data workers (preprocessing tasks a data policy such as goldminer attaches to jobs) over the cluster, time-weighted mean per bin; timeline.csv has a data-workers row at each change.',
      policies.some((p) => p.usage?.some((r) => r.dataWorkers > 0))
        ? timeChart('data-workers', 'Data workers', 'data workers', perPolicy(policies, (r) => r.dataWorkers))
        : `<p class="note" data-empty="data-workers">${anyUsage ? 'No data workers in this run (the data policy is coupled: preprocessing runs on the training tasks).' : 'No usage.csv in this folder.'}</p>`,
    ),
    `<p class="stamp">${esc(stampOf(data))}</p>`,
  ].join('\n');
  return htmlDocument(`dlsim report: ${data.scenario}`, body);
}

/** One self-contained page around `body`, with the report's styles. */
function htmlDocument(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
}

/** What a sweep's report draws: its name, its stamp (version, scenario, grid) and its aggregates. */
export interface SweepReport {
  readonly name: string;
  readonly stamp: string;
  readonly points: readonly SweepPoint[];
}

/** A sweep's report.html: per swept parameter and headline metric, the metric against the value, a line per policy with its 95% intervals. */
export function sweepReportHtml(report: SweepReport): string {
  const body = [
    `<h1>dlsim sweep: ${esc(report.name)}</h1>`,
    `<p class="stamp" data-stamp>${esc(report.stamp)}</p>`,
    section(
      'sweep',
      'Metrics against each swept parameter',
      'Per swept parameter, each headline metric\u2019s mean over seeds against the parameter\u2019s value (averaged over the other parameters\u2019 values), a line per policy, with 95% intervals (Student t over seeds) as error bars (sweep-summary.csv).',
      report.points.length === 0 ? '<p class="note" data-empty="sweep">No cells.</p>' : sweepCharts(report.points),
    ),
  ].join('\n');
  return htmlDocument(`dlsim sweep: ${report.name}`, body);
}
