import { max, min } from 'd3-array';
import { scaleLinear } from 'd3-scale';
import { curveStepAfter, line } from 'd3-shape';
import { axisBottom, axisLeft, DEFAULT_FRAME, emptyNote, esc, legend, svgOpen, timeUnitFor, type Frame, type LegendItem } from './svg.js';

/** A step series over simulated time: the value holds from each point's time to the next. */
export interface TimeSeries {
  /** `data-series` of its path, also its legend label. */
  readonly name: string;
  readonly color: string;
  /** [timeS, value] points in time order; the last point closes the series. */
  readonly points: readonly (readonly [number, number])[];
  readonly dash?: boolean;
}

/** A frame for time charts. */
export const TIME_FRAME: Frame = DEFAULT_FRAME;

/**
 * Step lines of values over simulated time, the time axis in a unit that suits its span:
 * `<svg data-chart=chart>`, one `<path data-series=name>` per series with points.
 */
export function timeChart(chart: string, title: string, yLabel: string, series: readonly TimeSeries[], options: { emptyText?: string; extra?: string } = {}): string {
  const frame = TIME_FRAME;
  const all = series.flatMap((s) => s.points);
  const startS = min(all, (p) => p[0]) ?? 0;
  const endS = max(all, (p) => p[0]) ?? 0;
  const unit = timeUnitFor(endS - startS);
  const x = scaleLinear()
    .domain(all.length > 0 ? [startS / unit.seconds, Math.max(endS, startS + 1) / unit.seconds] : [0, 1])
    .range([frame.left, frame.width - frame.right]);
  const maxY = Math.max(1, max(all, (p) => p[1]) ?? 0);
  const y = scaleLinear()
    .domain([0, maxY])
    .range([frame.height - frame.bottom, frame.top])
    .nice();
  const draw = line<readonly [number, number]>()
    .x((p) => x(p[0] / unit.seconds))
    .y((p) => y(p[1]))
    .curve(curveStepAfter)
    .digits(1);
  const paths = series
    .filter((s) => s.points.length > 0)
    .map((s) => `<path data-series="${esc(s.name)}" d="${draw(s.points) ?? ''}" fill="none" stroke="${s.color}" stroke-width="1.8"${s.dash ? ' stroke-dasharray="5 3"' : ''}/>`)
    .join('');
  const items: LegendItem[] = series.map((s) => ({ label: s.name, color: s.color, mark: s.dash ? 'dash' : 'line' }));
  return (
    svgOpen(chart, frame, title, options.extra ?? '') +
    axisLeft(y, frame, yLabel) +
    axisBottom(x, frame, `simulated time (${unit.label})`) +
    paths +
    (all.length === 0 ? emptyNote(frame, options.emptyText ?? 'no data') : '') +
    legend(items, frame) +
    '</svg>'
  );
}
