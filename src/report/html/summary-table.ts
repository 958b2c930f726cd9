import { summaryValue } from '../compare.js';
import { metricCell } from '../report-folder.js';
import type { ComparisonData, PolicyData } from '../report-data.js';
import { esc, shortNumber } from './svg.js';

/** Rows of the summary table: the summary's dotted metric name and its label with units. */
export const SUMMARY_ROWS: readonly (readonly [metric: string, label: string])[] = [
  ['jobs.completed', 'jobs completed'],
  ['jobs.failed', 'jobs failed'],
  ['jobs.unfinished', 'jobs unfinished'],
  ['makespanS', 'makespan (s)'],
  ['jctS.mean', 'JCT mean (s)'],
  ['jctS.p50', 'JCT p50 (s)'],
  ['jctS.p90', 'JCT p90 (s)'],
  ['jctS.p99', 'JCT p99 (s)'],
  ['queueDelayS.mean', 'queueing delay mean (s)'],
  ['waitS.mean', 'time queued mean (s)'],
  ['gpuAllocationRate', 'GPU allocation rate'],
  ['gpuUtilization', 'GPU utilisation'],
  ['cpuAllocationRate', 'CPU allocation rate'],
  ['ettr', 'ETTR'],
  ['runtimeRatio', 'runtime ratio'],
  ['faults.total', 'faults'],
  ['restarts', 'restarts'],
  ['lostGpuHours', 'lost GPU-hours'],
  ['downtimeGpuHours', 'downtime GPU-hours'],
  ['cpuStarvedWaitS.mean', 'CPU-starved wait mean (s)'],
];

/** A cell's text: the mean, ± its 95% half-width when there is one. */
function cellText(mean: number, ci95: number | null): string {
  return ci95 === null ? shortNumber(mean) : `${shortNumber(mean)} ± ${shortNumber(ci95)}`;
}

/**
 * The summary table (`<table data-table="summary">`): a row per metric, a column per policy.
 * From comparison.json: mean ± 95% interval over seeds, and the ratio to the first policy (paired
 * over seeds, with its interval, where the comparison pairs that metric); from a run: its value.
 */
export function summaryTable(policies: readonly PolicyData[], comparison: ComparisonData | null): string {
  const first = policies[0]?.policy ?? '';
  const head = `<tr><th>metric</th>${policies.map((p, i) => `<th>${esc(p.policy)}${i === 0 && policies.length > 1 ? '<br><span class="ratio">baseline</span>' : ''}</th>`).join('')}</tr>`;
  const rows = SUMMARY_ROWS.map(([metric, label]) => {
    const cells = policies.map((p) => {
      if (comparison === null) {
        const value = summaryValue(p.summary, metric);
        return value === null ? '<td>–</td>' : `<td>${esc(shortNumber(value))}</td>`;
      }
      const cell = metricCell(comparison, metric, p.policy);
      if (cell === null) return '<td>–</td>';
      let ratio = '';
      if (p.policy !== first) {
        const paired = comparison.pairedRatios[metric]?.[p.policy];
        if (paired !== undefined) ratio = `<span class="ratio">×${esc(cellText(paired.mean, paired.ci95))}†</span>`;
        else if (cell.ratioToFirst !== null) ratio = `<span class="ratio">×${esc(shortNumber(cell.ratioToFirst))}</span>`;
      }
      return `<td>${esc(cellText(cell.mean, cell.ci95))}${ratio}</td>`;
    });
    if (cells.every((c) => c === '<td>–</td>')) return '';
    return `<tr data-metric="${esc(metric)}"><th>${esc(label)}</th>${cells.join('')}</tr>`;
  }).join('');
  return `<table data-table="summary">${head}${rows}</table>`;
}
