import { scaleLinear, scaleLog } from 'd3-scale';
import { line } from 'd3-shape';
import { cdfPoints } from '../binning.js';
import { axisBottom, axisLeft, colorAt, DEFAULT_FRAME, emptyNote, esc, legend, svgOpen } from './svg.js';

/** One policy's values for a CDF, ascending. */
export interface CdfSeries {
  readonly name: string;
  readonly sorted: ArrayLike<number>;
}

/** Values below this are drawn at it on the log axis (a wait of 0 s has no logarithm). */
export const CDF_FLOOR_S = 1;

/**
 * An empirical CDF per series on a log x axis (seconds), each from at most MAX_CDF_POINTS
 * quantile points: `<svg data-chart=chart>`, one `<path data-series=name>` per series.
 */
export function cdfChart(chart: string, title: string, xLabel: string, series: readonly CdfSeries[]): string {
  const frame = DEFAULT_FRAME;
  const points = series.map((s) => cdfPoints(s.sorted).map((p) => ({ value: Math.max(CDF_FLOOR_S, p.value), fraction: p.fraction })));
  const maxS = Math.max(CDF_FLOOR_S * 10, ...points.flatMap((p) => (p.length > 0 ? [p[p.length - 1]!.value] : [])));
  const x = scaleLog()
    .domain([CDF_FLOOR_S, maxS])
    .range([frame.left, frame.width - frame.right])
    .nice();
  const y = scaleLinear()
    .domain([0, 1])
    .range([frame.height - frame.bottom, frame.top]);
  const draw = line<{ value: number; fraction: number }>()
    .x((p) => x(p.value))
    .y((p) => y(p.fraction))
    .digits(1);
  const paths = points
    .map((p, i) => (p.length === 0 ? '' : `<path data-series="${esc(series[i]!.name)}" d="${draw(p) ?? ''}" fill="none" stroke="${colorAt(i)}" stroke-width="2"/>`))
    .join('');
  const empty = points.every((p) => p.length === 0) ? emptyNote(frame, 'no completed jobs') : '';
  return (
    svgOpen(chart, frame, title) +
    axisLeft(y, frame, 'share of jobs', { format: (v) => `${Math.round(v * 100)}%` }) +
    axisBottom(x, frame, xLabel, { log: true }) +
    paths +
    empty +
    legend(
      series.map((s, i) => ({ label: s.name, color: colorAt(i) })),
      frame,
    ) +
    '</svg>'
  );
}
