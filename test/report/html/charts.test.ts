import { describe, expect, it } from 'vitest';
import { autoscaleCharts } from '../../../src/report/html/autoscale-chart.js';
import { cdfChart } from '../../../src/report/html/cdf-chart.js';
import { faultChart } from '../../../src/report/html/fault-chart.js';
import { ganttChart } from '../../../src/report/html/gantt-chart.js';
import { reportHtml } from '../../../src/report/html/page.js';
import { summaryTable } from '../../../src/report/html/summary-table.js';
import { sweepCharts, type SweepPoint } from '../../../src/report/html/sweep-chart.js';
import { timeChart } from '../../../src/report/html/time-chart.js';
import { timeSplitChart } from '../../../src/report/html/time-split-chart.js';
import { waitReasonChart } from '../../../src/report/html/wait-reason-chart.js';
import { WAIT_REASONS, type WaitReason } from '../../../src/policies/wait-reason.js';

const noWaits = Object.fromEntries(WAIT_REASONS.map((r) => [r, 0])) as Record<WaitReason, number>;
import { compareData, policyOf } from './fixtures.js';

/** How many times `pattern` occurs in `text`. */
function count(text: string, pattern: RegExp): number {
  return (text.match(new RegExp(pattern.source, 'g')) ?? []).length;
}

/** The texts of the axis labels of a chart. */
function axisLabels(svg: string): string[] {
  return [...svg.matchAll(/class="axis-label"[^>]*>([^<]*)</g)].map((m) => m[1]!);
}

describe('charts', () => {
  it('CDF: one path per series on a log time axis with labelled axes and a legend', () => {
    const svg = cdfChart('jct-cdf', 'JCT CDF', 'job completion time (s, log scale)', [
      { name: 'fifo', sorted: Float64Array.from([0, 5, 50, 5000]) },
      { name: 'drf', sorted: Float64Array.from([10, 20]) },
    ]);
    expect(svg).toMatch(/^<svg data-chart="jct-cdf"/);
    expect(count(svg, /<path data-series="fifo"/)).toBe(1);
    expect(count(svg, /<path data-series="drf"/)).toBe(1);
    expect(svg).toContain('data-axis="x" data-scale="log"');
    expect(axisLabels(svg)).toEqual(['share of jobs', 'job completion time (s, log scale)']);
    // Powers of ten only on the log axis: 1, 10, 100, 1000, 10k.
    const xTicks = svg.split('data-axis="x"')[1]!.split('</g>')[0]!;
    expect([...xTicks.matchAll(/text-anchor="middle">([^<]*)</g)].map((m) => m[1]).slice(0, 5)).toEqual(['1', '10', '100', '1000', '10k']);
    expect(svg).toMatch(/class="legend".*>fifo<.*>drf</);
    expect(cdfChart('wait-cdf', 'w', 'x', [{ name: 'fifo', sorted: new Float64Array() }])).toContain('no completed jobs');
  });

  it('time series: a step path per series with points, the time axis in a fitting unit', () => {
    const svg = timeChart('pending-queue', 'Jobs queued', 'jobs', [
      { name: 'fifo', color: '#000', points: [[0, 1], [7200, 5], [14400, 5]] },
      { name: 'drf', color: '#111', points: [] },
    ]);
    expect(count(svg, /<path data-series=/)).toBe(1);
    expect(axisLabels(svg)).toEqual(['jobs', 'simulated time (h)']);
    expect(svg).toMatch(/class="legend".*>fifo<.*>drf</);
    expect(timeChart('data-workers', 't', 'y', [], { emptyText: 'nothing here' })).toContain('nothing here');
  });

  it('Gantt: a rect per interval coloured by state, a legend of the states shown', () => {
    const policy = policyOf('fifo');
    const svg = ganttChart('fifo', policy.gantt);
    expect(svg).toMatch(/^<svg data-chart="gantt" data-policy="fifo"/);
    expect(count(svg, /<rect data-series=/)).toBe(policy.gantt!.length);
    expect(count(svg, /<rect data-series="running"/)).toBe(3);
    const legendText = svg.split('class="legend"')[1]!;
    for (const state of ['queued', 'running', 'detecting', 'rescheduling', 'loading']) expect(legendText).toContain(`>${state}<`);
    expect(legendText).not.toContain('>checkpointing<');
    expect(ganttChart('fifo', null)).toContain('no gantt.csv');
  });

  it('fault timeline: bars by fault type above, recovery phases of sampled jobs below', () => {
    const policy = policyOf('fifo');
    const svg = faultChart('fifo', policy.faults, policy.gantt, null);
    expect(count(svg, /<rect data-series="xid-79-gpu-fell-off-bus"/)).toBe(1);
    expect(count(svg, /<rect data-series="nccl-timeout"/)).toBe(1);
    for (const phase of ['detecting', 'rescheduling', 'health-check', 'loading']) expect(svg).toContain(`<path data-series="${phase}"`);
    expect(axisLabels(svg)).toContain('faults per bin');
    expect(axisLabels(svg)).toContain('sampled jobs');
    expect(faultChart('fifo', [], null, null)).toContain('no faults in this run');
  });

  it('time split: a stacked rect per part and policy, policies named under the bars', () => {
    const svg = timeSplitChart([policyOf('fifo'), policyOf('dlrover')].map((p) => ({ policy: p.policy, gpuH: p.jobs.timeSplitGpuH })));
    expect(count(svg, /<rect data-series="[^"]*" data-policy="fifo"/)).toBe(8);
    expect(count(svg, /<rect data-series="productive"/)).toBe(2);
    expect(svg).toMatch(/>fifo<\/text>.*>dlrover<\/text>/);
    expect(axisLabels(svg)).toEqual(['GPU-hours', 'policy']);
  });

  it('auto-scaled jobs: speed and replicas per job', () => {
    const html = autoscaleCharts('dlrover', policyOf('dlrover').autoscale);
    expect(html).toContain('<svg data-chart="autoscale-speed" data-policy="dlrover"');
    expect(html).toContain('<svg data-chart="autoscale-shape" data-policy="dlrover"');
    expect(html).toContain('<path data-series="ps-1"');
    expect(html).toContain('<path data-series="ps-1 workers"');
    expect(html).toContain('<path data-series="ps-1 PS"');
    expect(autoscaleCharts('fifo', [])).toContain('no auto-scaled jobs');
  });

  it('sweep: a chart per parameter and metric, a line per policy with its intervals', () => {
    const points: SweepPoint[] = [];
    for (const policy of ['fifo', 'drf']) {
      for (const nodes of [32, 64, 128]) points.push({ policy, paramPath: 'cluster.nodes', value: nodes, metric: 'jctS.mean', mean: 1000 / nodes, ci95: 2 });
      for (const scale of ['low', 'high']) points.push({ policy, paramPath: 'faults.scale', value: scale, metric: 'jctS.mean', mean: 5, ci95: null });
    }
    const html = sweepCharts(points);
    expect(count(html, /<svg data-chart="sweep"/)).toBe(2);
    expect(html).toContain('data-param="cluster.nodes" data-metric="jctS.mean"');
    expect(count(html, /<path data-series="fifo"/)).toBe(2);
    expect(count(html, /<line class="ci" data-series="drf"/)).toBe(3);
    expect(html).toContain('>high</text>');
    expect(axisLabels(html)).toContain('cluster.nodes');
  });

  it('wait reasons: a bar per policy, a segment per reason that has time, every reason in the legend', () => {
    const html = waitReasonChart([
      { policy: 'fifo', jobH: { ...noWaits, 'head-of-line': 30, 'no-gpus': 10 } },
      { policy: 'drf', jobH: { ...noWaits, 'not-chosen': 5 } },
    ]);
    expect(html).toContain('<svg data-chart="wait-reasons"');
    expect(count(html, /<rect data-series="head-of-line" data-policy="fifo"/)).toBe(1);
    expect(count(html, /<rect data-series="no-gpus" data-policy="fifo"/)).toBe(1);
    expect(count(html, /<rect data-series="[^"]*" data-policy="drf"/)).toBe(1);
    expect(html).toContain('fifo, head-of-line: 30 job-h (75.0%)');
    for (const reason of WAIT_REASONS) expect(html).toContain(`>${reason}</text>`);
    expect(axisLabels(html)).toContain('job-hours queued');
    expect(waitReasonChart([{ policy: 'fifo', jobH: noWaits }])).toContain('no job waited');
  });

  it('summary table: mean ± interval per policy and the paired ratio to the first', () => {
    const data = compareData();
    const table = summaryTable(data.policies, data.comparison);
    expect(table).toContain('<table data-table="summary">');
    expect(table).toContain('<th>fifo<br><span class="ratio">baseline</span></th><th>dlrover</th>');
    expect(table).toContain('1530 ± 100');
    expect(table).toContain('×0.49 ± 0.02†');
    expect(table).toContain('<tr data-metric="makespanS">');
    expect(table).not.toContain('data-metric="restarts"');
  });

  it('page: every section, no script or network, stamped with version and scenario only, the same bytes for the same data', () => {
    const html = reportHtml(compareData());
    for (const chart of ['jct-cdf', 'wait-cdf', 'gpu-allocation', 'gpu-utilization', 'pending-queue', 'gantt', 'fault-timeline', 'time-split', 'wait-reasons', 'autoscale-speed', 'autoscale-shape', 'data-workers']) {
      expect(html, chart).toContain(`<svg data-chart="${chart}"`);
    }
    expect(count(html, /<svg /)).toBe(count(html, /<\/svg>/));
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).toContain('dlsim 9.9.9 · scenario tiny · fifo, dlrover · seeds 1–3 (3)');
    expect(html).not.toMatch(/20\d\d-\d\d-\d\d/);
    expect(reportHtml(compareData())).toBe(html);
  });
});
