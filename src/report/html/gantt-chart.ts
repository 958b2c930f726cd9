import { max, min } from 'd3-array';
import { scaleLinear } from 'd3-scale';
import type { GanttCsvRow } from '../report-data.js';
import type { TimeSpan } from './time-span.js';
import { STATE_COLORS, stateColor } from './state-colors.js';
import { axisBottom, emptyNote, esc, legend, px, svgOpen, timeUnitFor, type Frame } from './svg.js';

/** Height of the lanes' area, SVG pixels (lanes share it). */
const LANES_HEIGHT = 360;

/**
 * A Gantt of the sampled jobs of one policy's run: one lane per job (in gantt.csv's order), one
 * `<rect data-series=state>` per interval coloured by state, a legend of the states shown.
 * `<svg data-chart="gantt" data-policy=policy>`.
 */
export function ganttChart(policy: string, rows: readonly GanttCsvRow[] | null, span: TimeSpan | null = null): string {
  const lanes = [...new Set((rows ?? []).map((r) => r.jobId))];
  const laneH = lanes.length > 0 ? Math.min(8, LANES_HEIGHT / lanes.length) : 8;
  const frame: Frame = { width: 760, height: 28 + Math.max(80, lanes.length * laneH) + 44, top: 28, right: 150, bottom: 44, left: 64 };
  const title = `Sampled jobs' states over time: ${policy} (${lanes.length} jobs)`;
  if (rows === null || rows.length === 0) {
    return svgOpen('gantt', frame, title, ` data-policy="${esc(policy)}"`) + emptyNote(frame, rows === null ? 'no gantt.csv in this folder' : 'no sampled job ran') + '</svg>';
  }
  const startS = Math.min(span?.startS ?? Infinity, min(rows, (r) => r.fromS) ?? 0);
  const endS = Math.max(span?.endS ?? 0, max(rows, (r) => r.toS) ?? 0);
  const unit = timeUnitFor(endS - startS);
  const x = scaleLinear()
    .domain([startS / unit.seconds, Math.max(endS, startS + 1) / unit.seconds])
    .range([frame.left, frame.width - frame.right]);
  const laneOf = new Map(lanes.map((id, i) => [id, i]));
  const rects = rows
    .map((r) => {
      const x0 = x(r.fromS / unit.seconds);
      const width = Math.max(0.3, x(r.toS / unit.seconds) - x0);
      const y = frame.top + laneOf.get(r.jobId)! * laneH;
      return `<rect data-series="${esc(r.state)}" x="${px(x0)}" y="${px(y)}" width="${px(width)}" height="${px(Math.max(0.5, laneH - 0.4))}" fill="${stateColor(r.state)}"/>`;
    })
    .join('');
  const present = new Set(rows.map((r) => r.state));
  const items = STATE_COLORS.filter(([s]) => present.has(s)).map(([label, color]) => ({ label, color, mark: 'box' as const }));
  for (const state of present) if (!STATE_COLORS.some(([s]) => s === state)) items.push({ label: state, color: stateColor(state), mark: 'box' });
  return (
    svgOpen('gantt', frame, title, ` data-policy="${esc(policy)}"`) +
    `<text class="axis-label" transform="translate(14,${px(frame.top + (lanes.length * laneH) / 2)}) rotate(-90)" text-anchor="middle">jobs (hash sample)</text>` +
    rects +
    axisBottom(x, frame, `simulated time (${unit.label})`) +
    legend(items, frame) +
    '</svg>'
  );
}
