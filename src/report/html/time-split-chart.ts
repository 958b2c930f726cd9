import { TIME_SPLIT_PARTS, type TimeSplitPart } from '../report-data.js';
import { stackedBarsChart } from './stacked-bars.js';

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
  return stackedBarsChart({
    chart: 'time-split',
    title: 'Where the jobs\u2019 GPU-hours went, per policy',
    axisLabel: 'GPU-hours',
    unit: 'GPU-h',
    parts: TIME_SPLIT_PARTS,
    colors: PART_COLORS,
    bars: bars.map((b) => ({ policy: b.policy, values: b.gpuH })),
    emptyText: 'no job held a GPU',
  });
}
