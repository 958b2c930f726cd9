import { scaleBand, scaleLinear } from 'd3-scale';
import { TIME_SPLIT_PARTS, type TimeSplitPart } from '../report-data.js';
import { axisLeft, DEFAULT_FRAME, emptyNote, esc, legend, px, shortNumber, svgOpen } from './svg.js';

/** Colours of the time-split parts, in TIME_SPLIT_PARTS order. */
const PART_COLORS: Readonly<Record<TimeSplitPart, string>> = {
  productive: '#59a14f',
  lost: '#bab0ac',
  checkpoint: '#4e79a7',
  detection: '#e15759',
  rescheduling: '#f28e2b',
  'health check': '#edc948',
  loading: '#9c755f',
  'starting / resizing': '#b07aa1',
};

/** One policy's GPU-hours by part. */
export interface TimeSplitBar {
  readonly policy: string;
  readonly gpuH: Readonly<Record<TimeSplitPart, number>>;
}

/**
 * Where the GPU-hours the jobs held went, per policy, as stacked bars (productive training, work
 * lost to rollbacks, checkpoints, and each recovery step): `<svg data-chart="time-split">`, one
 * `<rect data-series=part data-policy=policy>` per non-empty part, policies named under the bars.
 */
export function timeSplitChart(bars: readonly TimeSplitBar[]): string {
  const frame = DEFAULT_FRAME;
  const totals = bars.map((b) => TIME_SPLIT_PARTS.reduce((sum, p) => sum + b.gpuH[p], 0));
  const x = scaleBand<string>()
    .domain(bars.map((b) => b.policy))
    .range([frame.left, frame.width - frame.right])
    .padding(0.3);
  const y = scaleLinear()
    .domain([0, Math.max(1e-9, ...totals)])
    .range([frame.height - frame.bottom, frame.top])
    .nice();
  let rects = '';
  for (const [i, bar] of bars.entries()) {
    let base = 0;
    for (const part of TIME_SPLIT_PARTS) {
      const value = bar.gpuH[part];
      if (!(value > 0)) continue;
      const y0 = y(base);
      const y1 = y(base + value);
      const share = totals[i]! > 0 ? ` (${((100 * value) / totals[i]!).toFixed(1)}%)` : '';
      rects += `<rect data-series="${esc(part)}" data-policy="${esc(bar.policy)}" x="${px(x(bar.policy)!)}" y="${px(y1)}" width="${px(x.bandwidth())}" height="${px(Math.max(0.3, y0 - y1))}" fill="${PART_COLORS[part]}"><title>${esc(`${bar.policy}, ${part}: ${shortNumber(value)} GPU-h${share}`)}</title></rect>`;
      base += value;
    }
  }
  const labels = bars
    .map((b) => `<text x="${px(x(b.policy)! + x.bandwidth() / 2)}" y="${frame.height - frame.bottom + 17}" text-anchor="middle">${esc(b.policy)}</text>`)
    .join('');
  const bottom = frame.height - frame.bottom;
  return (
    svgOpen('time-split', frame, 'Where the jobs\u2019 GPU-hours went, per policy') +
    axisLeft(y, frame, 'GPU-hours') +
    `<g class="axis" data-axis="x"><line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${bottom}" y2="${bottom}"/>${labels}<text class="axis-label" x="${px((frame.left + frame.width - frame.right) / 2)}" y="${frame.height - 6}" text-anchor="middle">policy</text></g>` +
    rects +
    (totals.every((t) => t === 0) ? emptyNote(frame, 'no job held a GPU') : '') +
    legend(
      TIME_SPLIT_PARTS.map((label) => ({ label, color: PART_COLORS[label], mark: 'box' as const })),
      frame,
    ) +
    '</svg>'
  );
}
