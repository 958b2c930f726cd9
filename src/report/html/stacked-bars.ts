import { scaleBand, scaleLinear } from 'd3-scale';
import { axisLeft, DEFAULT_FRAME, emptyNote, esc, legend, px, shortNumber, svgOpen } from './svg.js';

/** A stacked-bars chart: one bar per policy, one segment per part. */
export interface StackedBars<P extends string> {
  /** The chart's `data-chart` id, and its title. */
  readonly chart: string;
  readonly title: string;
  /** The value axis' label and the unit a segment's tooltip gives. */
  readonly axisLabel: string;
  readonly unit: string;
  /** Parts in stacking order, with their colours. */
  readonly parts: readonly P[];
  readonly colors: Readonly<Record<P, string>>;
  readonly bars: readonly { readonly policy: string; readonly values: Readonly<Record<P, number>> }[];
  /** The note shown when every bar is empty. */
  readonly emptyText: string;
}

/**
 * Stacked bars per policy: `<svg data-chart=chart>`, one `<rect data-series=part data-policy=policy>`
 * per non-empty part (its tooltip gives the value and its share of the bar), policies under the bars.
 */
export function stackedBarsChart<P extends string>(spec: StackedBars<P>): string {
  const frame = DEFAULT_FRAME;
  const { bars, parts } = spec;
  const totals = bars.map((b) => parts.reduce((sum, p) => sum + b.values[p], 0));
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
    for (const part of parts) {
      const value = bar.values[part];
      if (!(value > 0)) continue;
      const y0 = y(base);
      const y1 = y(base + value);
      const share = totals[i]! > 0 ? ` (${((100 * value) / totals[i]!).toFixed(1)}%)` : '';
      rects += `<rect data-series="${esc(part)}" data-policy="${esc(bar.policy)}" x="${px(x(bar.policy)!)}" y="${px(y1)}" width="${px(x.bandwidth())}" height="${px(Math.max(0.3, y0 - y1))}" fill="${spec.colors[part]}"><title>${esc(`${bar.policy}, ${part}: ${shortNumber(value)} ${spec.unit}${share}`)}</title></rect>`;
      base += value;
    }
  }
  const labels = bars
    .map((b) => `<text x="${px(x(b.policy)! + x.bandwidth() / 2)}" y="${frame.height - frame.bottom + 17}" text-anchor="middle">${esc(b.policy)}</text>`)
    .join('');
  const bottom = frame.height - frame.bottom;
  return (
    svgOpen(spec.chart, frame, spec.title) +
    axisLeft(y, frame, spec.axisLabel) +
    `<g class="axis" data-axis="x"><line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${bottom}" y2="${bottom}"/>${labels}<text class="axis-label" x="${px((frame.left + frame.width - frame.right) / 2)}" y="${frame.height - 6}" text-anchor="middle">policy</text></g>` +
    rects +
    (totals.every((t) => t === 0) ? emptyNote(frame, spec.emptyText) : '') +
    legend(
      parts.map((label) => ({ label, color: spec.colors[label], mark: 'box' as const })),
      frame,
    ) +
    '</svg>'
  );
}
