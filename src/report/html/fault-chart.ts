import { max, min } from 'd3-array';
import { scaleLinear } from 'd3-scale';
import { area, curveStepAfter, stack, type SeriesPoint } from 'd3-shape';
import { binsOver, countInBins, occupancyInBins } from '../binning.js';
import type { FaultEvent, GanttCsvRow } from '../report-data.js';
import type { TimeSpan } from './time-span.js';
import { RECOVERY_STATES, stateColor } from './state-colors.js';
import { axisBottom, axisLeft, emptyNote, FAULT_PALETTE, esc, legend, px, svgOpen, timeUnitFor, type Frame, type LegendItem } from './svg.js';

/** Time bins of the fault timeline. */
const FAULT_BINS = 120;
/** Fault types drawn by name; the rest are summed as "other". */
const NAMED_TYPES = 6;

const WHOLE: Frame = { width: 760, height: 400, top: 28, right: 150, bottom: 44, left: 64 };
/** Upper panel: faults per bin. */
const UPPER: Frame = { ...WHOLE, height: 180, bottom: 30 };
/** Lower panel: sampled jobs in each recovery phase. */
const LOWER: Frame = { ...WHOLE, top: 196 };

/**
 * The faults of one policy's run over time (upper panel: faults per time bin, stacked by type,
 * `<rect data-series=type>`) and the recovery phases they caused among the Gantt's sampled jobs
 * (lower panel: mean jobs detecting, rescheduling, health-checking, loading, stacked,
 * `<path data-series=phase>`). `<svg data-chart="fault-timeline" data-policy=policy>`.
 */
export function faultChart(policy: string, faults: readonly FaultEvent[] | null, gantt: readonly GanttCsvRow[] | null, span: TimeSpan | null): string {
  const title = `Faults and recovery phases over time: ${policy}`;
  const open = svgOpen('fault-timeline', WHOLE, title, ` data-policy="${esc(policy)}"`);
  if (faults === null) return open + emptyNote(WHOLE, 'no timeline.csv in this folder') + '</svg>';
  if (faults.length === 0) return open + emptyNote(WHOLE, 'no faults in this run') + '</svg>';
  const startS = Math.min(span?.startS ?? Infinity, min(faults, (f) => f.timeS) ?? 0, min(gantt ?? [], (r) => r.fromS) ?? Infinity);
  const endS = Math.max(span?.endS ?? 0, max(faults, (f) => f.timeS) ?? 0, max(gantt ?? [], (r) => r.toS) ?? 0, startS + 1);
  const bins = binsOver(startS, endS, FAULT_BINS);
  const unit = timeUnitFor(endS - startS);
  const x = scaleLinear()
    .domain([startS / unit.seconds, endS / unit.seconds])
    .range([WHOLE.left, WHOLE.width - WHOLE.right]);
  const binX = (bin: number): number => x((bins.startS + bin * bins.widthS) / unit.seconds);

  // Upper panel: counts per bin by type, the most frequent types by name.
  const byType = new Map<string, number>();
  for (const f of faults) byType.set(f.faultType, (byType.get(f.faultType) ?? 0) + 1);
  const ranked = [...byType].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([t]) => t);
  const named = new Set(ranked.slice(0, NAMED_TYPES));
  const keys = [...ranked.slice(0, NAMED_TYPES), ...(ranked.length > NAMED_TYPES ? ['other'] : [])];
  const counts = countInBins(faults, (f) => f.timeS, (f) => (named.has(f.faultType) ? f.faultType : 'other'), bins);
  const totals = Array.from({ length: bins.count }, (_, b) => keys.reduce((sum, k) => sum + (counts.get(k)?.[b] ?? 0), 0));
  const yUp = scaleLinear()
    .domain([0, Math.max(1, ...totals)])
    .range([UPPER.height - UPPER.bottom, UPPER.top])
    .nice();
  let bars = '';
  for (let b = 0; b < bins.count; b++) {
    let base = 0;
    for (const [i, key] of keys.entries()) {
      const n = counts.get(key)?.[b] ?? 0;
      if (n === 0) continue;
      const y0 = yUp(base);
      const y1 = yUp(base + n);
      bars += `<rect data-series="${esc(key)}" x="${px(binX(b))}" y="${px(y1)}" width="${px(Math.max(0.5, binX(b + 1) - binX(b) - 0.3))}" height="${px(y0 - y1)}" fill="${FAULT_PALETTE[i % FAULT_PALETTE.length]}"><title>${esc(`${key}: ${n}`)}</title></rect>`;
      base += n;
    }
  }

  // Lower panel: sampled jobs in each recovery phase, stacked areas.
  const occupancy = occupancyInBins(gantt ?? [], RECOVERY_STATES, bins);
  const table = Array.from({ length: bins.count + 1 }, (_, b) => {
    const row: Record<string, number> = { bin: b };
    for (const s of RECOVERY_STATES) row[s] = occupancy.get(s)![Math.min(b, bins.count - 1)]!;
    return row;
  });
  const layers = stack<Record<string, number>>().keys(RECOVERY_STATES)(table);
  const top = Math.max(0.1, ...layers.flatMap((l) => l.map((p) => p[1])));
  const yLow = scaleLinear()
    .domain([0, top])
    .range([LOWER.height - LOWER.bottom, LOWER.top])
    .nice();
  const shape = area<SeriesPoint<Record<string, number>>>()
    .x((p) => binX(p.data.bin!))
    .y0((p) => yLow(p[0]))
    .y1((p) => yLow(p[1]))
    .curve(curveStepAfter)
    .digits(1);
  const areas = layers.map((layer) => `<path data-series="${esc(layer.key)}" d="${shape(layer) ?? ''}" fill="${stateColor(layer.key)}" fill-opacity="0.85"/>`).join('');
  const items: LegendItem[] = [
    ...keys.map((label, i) => ({ label, color: FAULT_PALETTE[i % FAULT_PALETTE.length]!, mark: 'box' as const })),
    ...RECOVERY_STATES.map((label) => ({ label, color: stateColor(label), mark: 'box' as const })),
  ];
  return (
    open +
    axisLeft(yUp, UPPER, 'faults per bin', { count: 3 }) +
    bars +
    axisLeft(yLow, LOWER, 'sampled jobs', { count: 4 }) +
    areas +
    (gantt === null || gantt.length === 0 ? emptyNote(LOWER, 'no sampled job to show recovery phases of') : '') +
    axisBottom(x, LOWER, `simulated time (${unit.label}); bins of ${shortSpan(bins.widthS)}`) +
    legend(items, WHOLE) +
    '</svg>'
  );
}

/** A bin width in words (e.g. "12.5 min"). */
function shortSpan(seconds: number): string {
  const unit = timeUnitFor(seconds * 3);
  return `${Number((seconds / unit.seconds).toPrecision(3))} ${unit.label}`;
}
