import type { ScaleContinuousNumeric } from 'd3-scale';

/** Size of a chart's drawing area and its margins, in SVG pixels. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/** The frame most charts use: 760 x 300 with room for axis labels and a legend on the right. */
export const DEFAULT_FRAME: Frame = { width: 760, height: 300, top: 28, right: 150, bottom: 44, left: 64 };

/** Colours of series, one per policy or state in order (Tableau 10). */
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'] as const;

/** Colours of fault types (kept apart from the recovery phases' reds and oranges). */
export const FAULT_PALETTE = ['#4e79a7', '#76b7b2', '#b07aa1', '#59a14f', '#a0cbe8', '#d4a6c8', '#8cd17d'] as const;

/** Longest legend label drawn whole; longer ones are cut with an ellipsis (the whole in a tooltip). */
const LEGEND_CHARS = 19;

/** The colour of the `index`-th series. */
export function colorAt(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

/** Text made safe inside XML/HTML text and attribute values. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A number for an SVG coordinate: one decimal, no trailing zeros. */
export function px(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A number for a tick or a table: up to 3 significant digits, thousands with k/M. */
export function shortNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  if (abs === 0) return '0';
  return String(Number(value.toPrecision(3)));
}

/** A unit of simulated time for axes: its label and seconds. */
export interface TimeUnit {
  readonly label: 's' | 'min' | 'h' | 'd';
  readonly seconds: number;
}

/** The unit that keeps a span of `spanS` seconds readable (at most ~100 of it). */
export function timeUnitFor(spanS: number): TimeUnit {
  if (spanS > 4 * 86_400) return { label: 'd', seconds: 86_400 };
  if (spanS > 3 * 3600) return { label: 'h', seconds: 3600 };
  if (spanS > 300) return { label: 'min', seconds: 60 };
  return { label: 's', seconds: 1 };
}

/** Opens a chart: `<svg data-chart=…>` with a title; close it with `</svg>`. */
export function svgOpen(chart: string, frame: Frame, title: string, extra = ''): string {
  return (
    `<svg data-chart="${esc(chart)}"${extra} xmlns="http://www.w3.org/2000/svg" width="${frame.width}" height="${frame.height}" viewBox="0 0 ${frame.width} ${frame.height}" role="img">` +
    `<title>${esc(title)}</title><text class="chart-title" x="${frame.left}" y="16">${esc(title)}</text>`
  );
}

/** A continuous scale as the axes need it. */
type AxisScale = ScaleContinuousNumeric<number, number>;

/** Tick values of a scale: powers of ten for a log scale (at most `count` otherwise). */
export function tickValues(scale: AxisScale, count: number, log = false): number[] {
  if (!log) return scale.ticks(count);
  const [lo, hi] = scale.domain() as [number, number];
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    const value = 10 ** e;
    if (value >= lo * 0.999 && value <= hi * 1.001) out.push(value);
  }
  return out.length >= 2 ? out : scale.ticks(count);
}

/** The bottom axis of a frame: line, ticks, tick labels and the axis label (`data-axis="x"`). */
export function axisBottom(scale: AxisScale, frame: Frame, label: string, options: { count?: number; log?: boolean; format?: (v: number) => string } = {}): string {
  const y = frame.height - frame.bottom;
  const format = options.format ?? shortNumber;
  const ticks = tickValues(scale, options.count ?? 6, options.log ?? false)
    .map((v) => {
      const x = px(scale(v));
      return `<line x1="${x}" x2="${x}" y1="${y}" y2="${y + 5}"/><text x="${x}" y="${y + 17}" text-anchor="middle">${esc(format(v))}</text>`;
    })
    .join('');
  return (
    `<g class="axis" data-axis="x"${options.log ? ' data-scale="log"' : ''}><line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${y}" y2="${y}"/>${ticks}` +
    `<text class="axis-label" x="${px((frame.left + frame.width - frame.right) / 2)}" y="${frame.height - 6}" text-anchor="middle">${esc(label)}</text></g>`
  );
}

/** The left axis of a frame, with light grid lines across (`data-axis="y"`). */
export function axisLeft(scale: AxisScale, frame: Frame, label: string, options: { count?: number; log?: boolean; format?: (v: number) => string } = {}): string {
  const x = frame.left;
  const format = options.format ?? shortNumber;
  const ticks = tickValues(scale, options.count ?? 5, options.log ?? false)
    .map((v) => {
      const y = px(scale(v));
      return `<line class="grid" x1="${x}" x2="${frame.width - frame.right}" y1="${y}" y2="${y}"/><line x1="${x - 5}" x2="${x}" y1="${y}" y2="${y}"/><text x="${x - 8}" y="${y}" dy="0.32em" text-anchor="end">${esc(format(v))}</text>`;
    })
    .join('');
  const midY = px((frame.top + frame.height - frame.bottom) / 2);
  return (
    `<g class="axis" data-axis="y"${options.log ? ' data-scale="log"' : ''}><line x1="${x}" x2="${x}" y1="${frame.top}" y2="${frame.height - frame.bottom}"/>${ticks}` +
    `<text class="axis-label" transform="translate(14,${midY}) rotate(-90)" text-anchor="middle">${esc(label)}</text></g>`
  );
}

/** One legend entry: a label, its colour and how its mark looks. */
export interface LegendItem {
  readonly label: string;
  readonly color: string;
  readonly mark?: 'line' | 'dash' | 'box';
}

/** A legend at the frame's right (`class="legend"`). */
export function legend(items: readonly LegendItem[], frame: Frame): string {
  const x = frame.width - frame.right + 12;
  const rows = items
    .map((item, i) => {
      const y = frame.top + 6 + i * 16;
      const mark =
        item.mark === 'box'
          ? `<rect x="${x}" y="${y - 5}" width="14" height="10" fill="${item.color}"/>`
          : `<line x1="${x}" x2="${x + 14}" y1="${y}" y2="${y}" stroke="${item.color}" stroke-width="2.5"${item.mark === 'dash' ? ' stroke-dasharray="4 3"' : ''}/>`;
      const label = item.label.length > LEGEND_CHARS ? `${item.label.slice(0, LEGEND_CHARS - 1)}\u2026` : item.label;
      return `<g class="legend-item"><title>${esc(item.label)}</title>${mark}<text x="${x + 20}" y="${y}" dy="0.32em">${esc(label)}</text></g>`;
    })
    .join('');
  return `<g class="legend">${rows}</g>`;
}

/** A note drawn in place of a chart's data (e.g. "no faults in this run"). */
export function emptyNote(frame: Frame, text: string): string {
  return `<text class="empty-note" x="${px((frame.left + frame.width - frame.right) / 2)}" y="${px((frame.top + frame.height - frame.bottom) / 2)}" text-anchor="middle">${esc(text)}</text>`;
}
