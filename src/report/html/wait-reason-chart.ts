import { WAIT_REASONS, type WaitReason } from '../../policies/wait-reason.js';
import { stackedBarsChart } from './stacked-bars.js';

/** Colours of the wait reasons, in WAIT_REASONS order. */
const REASON_COLORS: Readonly<Record<WaitReason, string>> = {
  'not-chosen': '#bab0ac',
  'head-of-line': '#4e79a7',
  'no-gpus': '#e15759',
  fragmented: '#f28e2b',
  gang: '#edc948',
  'cpu-memory': '#76b7b2',
  priority: '#b07aa1',
  preempted: '#9c755f',
};

/**
 * Why jobs waited, per policy: the job-hours queued by the reason their scheduler gave, stacked
 * (`<svg data-chart="wait-reasons">`, one `<rect data-series=reason>` per non-empty reason).
 */
export function waitReasonChart(bars: readonly { readonly policy: string; readonly jobH: Readonly<Record<WaitReason, number>> }[]): string {
  return stackedBarsChart({
    chart: 'wait-reasons',
    title: 'Why jobs waited, per policy',
    axisLabel: 'job-hours queued',
    unit: 'job-h',
    parts: WAIT_REASONS,
    colors: REASON_COLORS,
    bars: bars.map((b) => ({ policy: b.policy, values: b.jobH })),
    emptyText: 'no job waited',
  });
}
