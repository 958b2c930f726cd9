import { scaleLinear, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';
import { axisBottom, axisLeft, colorAt, DEFAULT_FRAME, esc, legend, px, shortNumber, svgOpen } from './svg.js';

/** One cell of a sweep's summary: a policy's mean of a metric at one value of a swept parameter. */
export interface SweepPoint {
  readonly policy: string;
  /** The swept parameter's `--set` path, e.g. `cluster.nodes`. */
  readonly paramPath: string;
  /** The value it was set to. */
  readonly value: number | string;
  /** The summary's dotted metric name, e.g. `jctS.mean`. */
  readonly metric: string;
  /** Mean over the cell's seeds. */
  readonly mean: number;
  /** Half-width of the 95% interval of the mean; null with one seed. */
  readonly ci95: number | null;
}

/**
 * One chart per swept parameter and metric, in the order they first appear: the metric's mean
 * against the parameter's value, a line per policy with its 95% intervals as error bars.
 * Each is `<svg data-chart="sweep" data-param=path data-metric=metric>` with a
 * `<path data-series=policy>` per policy and `<line class="ci" data-series=policy>` per interval.
 */
export function sweepCharts(points: readonly SweepPoint[]): string {
  const groups = new Map<string, SweepPoint[]>();
  for (const point of points) {
    const key = JSON.stringify([point.paramPath, point.metric]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [point]);
    else group.push(point);
  }
  return [...groups.values()].map((group) => sweepChart(group)).join('');
}

/** The chart of one parameter and metric. */
function sweepChart(points: readonly SweepPoint[]): string {
  const frame = DEFAULT_FRAME;
  const { paramPath, metric } = points[0]!;
  const policies = [...new Set(points.map((p) => p.policy))];
  const numeric = points.every((p) => typeof p.value === 'number');
  const values = [...new Set(points.map((p) => p.value))];
  if (numeric) (values as number[]).sort((a, b) => a - b);
  const linear = scaleLinear()
    .domain(numeric ? [Math.min(...(values as number[])), Math.max(...(values as number[]))] : [0, 1])
    .range([frame.left + 10, frame.width - frame.right - 10]);
  const point = scalePoint<string>()
    .domain(values.map(String))
    .range([frame.left + 10, frame.width - frame.right - 10])
    .padding(0.5);
  const xOf = (value: number | string): number => (numeric ? linear(value as number) : point(String(value))!);
  const tops = points.map((p) => p.mean + (p.ci95 ?? 0));
  const bottoms = points.map((p) => p.mean - (p.ci95 ?? 0));
  const y = scaleLinear()
    .domain([Math.min(0, ...bottoms), Math.max(1e-9, ...tops)])
    .range([frame.height - frame.bottom, frame.top])
    .nice();
  const draw = line<SweepPoint>()
    .x((p) => xOf(p.value))
    .y((p) => y(p.mean))
    .digits(1);
  let marks = '';
  for (const [i, policy] of policies.entries()) {
    const mine = points.filter((p) => p.policy === policy).sort((a, b) => values.indexOf(a.value) - values.indexOf(b.value));
    const color = colorAt(i);
    marks += `<path data-series="${esc(policy)}" d="${draw(mine) ?? ''}" fill="none" stroke="${color}" stroke-width="2"/>`;
    for (const p of mine) {
      const x = px(xOf(p.value));
      marks += `<circle data-series="${esc(policy)}" cx="${x}" cy="${px(y(p.mean))}" r="3" fill="${color}"><title>${esc(`${policy}, ${paramPath}=${p.value}: ${shortNumber(p.mean)}${p.ci95 === null ? '' : ` ± ${shortNumber(p.ci95)}`}`)}</title></circle>`;
      if (p.ci95 !== null && p.ci95 > 0) {
        const y0 = px(y(p.mean - p.ci95));
        const y1 = px(y(p.mean + p.ci95));
        marks += `<line class="ci" data-series="${esc(policy)}" x1="${x}" x2="${x}" y1="${y0}" y2="${y1}" stroke="${color}"/>`;
      }
    }
  }
  const xAxis = numeric
    ? axisBottom(linear, frame, paramPath)
    : `<g class="axis" data-axis="x"><line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${frame.height - frame.bottom}" y2="${frame.height - frame.bottom}"/>${values
        .map((v) => `<text x="${px(point(String(v))!)}" y="${frame.height - frame.bottom + 17}" text-anchor="middle">${esc(String(v))}</text>`)
        .join('')}<text class="axis-label" x="${px((frame.left + frame.width - frame.right) / 2)}" y="${frame.height - 6}" text-anchor="middle">${esc(paramPath)}</text></g>`;
  return (
    svgOpen('sweep', frame, `${metric} against ${paramPath} (mean, 95% interval)`, ` data-param="${esc(paramPath)}" data-metric="${esc(metric)}"`) +
    axisLeft(y, frame, metric) +
    xAxis +
    marks +
    legend(
      policies.map((label, i) => ({ label, color: colorAt(i) })),
      frame,
    ) +
    '</svg>'
  );
}
