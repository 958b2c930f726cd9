/** The rows of the comparison table: which metrics, how each is labelled and printed, and `--metrics`. */
import { ConfigError } from '../errors.js';

/** How a metric's values print: durations, shares as percentages, counts, or plain numbers (3 decimals). */
export type MetricUnit = 'seconds' | 'ratio' | 'count' | 'number';

/** One row of the table. */
export interface TableRow {
  /** Metric name, dotted as in the summary (flattenMetrics). */
  readonly metric: string;
  readonly label: string;
  readonly unit: MetricUnit;
  /** Covers completed jobs only: shown as "–" for a policy that completed no job on any seed. */
  readonly completedOnly: boolean;
}

/** Default rows: metric, label, unit, completed jobs only. */
const DEFAULT_ROWS: readonly (readonly [string, string, MetricUnit, boolean])[] = [
  ['jobs.completed', 'jobs completed', 'count', false],
  ['jctS.mean', 'JCT mean', 'seconds', true],
  ['jctS.p90', 'JCT p90', 'seconds', true],
  ['queueDelayS.mean', 'queueing mean', 'seconds', true],
  ['queueDelayS.p90', 'queueing p90', 'seconds', true],
  ['waitS.mean', 'queued mean (all waits)', 'seconds', true],
  ['waitS.p90', 'queued p90 (all waits)', 'seconds', true],
  ['cpuStarvedWaitS.mean', 'CPU-starved wait mean', 'seconds', true],
  ['cpuStarvedWaitS.share', 'CPU-starved share of waiting', 'ratio', true],
  ['dataWorkers.meanPerJob', 'data workers per job', 'count', true],
  ['makespanS', 'makespan', 'seconds', false],
  ['gpuAllocationRate', 'GPU allocation', 'ratio', false],
  ['gpuUtilization', 'GPU utilization', 'ratio', false],
  ['cpuAllocationRate', 'CPU allocation', 'ratio', false],
  ['ettr', 'ETTR', 'ratio', false],
  ['runtimeRatio', 'runtime ratio', 'ratio', false],
  ['restarts', 'restarts', 'count', false],
  ['oomKills', 'OOM kills', 'count', false],
  ['lostGpuHours', 'lost GPU hours', 'count', false],
  ['downtimeGpuHours', 'downtime GPU hours', 'count', false],
];

/** Labels of metrics that are not default rows but read better named. */
const LABELS: Readonly<Record<string, readonly [string, MetricUnit]>> = {
  'jobs.failed': ['jobs failed', 'count'],
  'jobs.unfinished': ['jobs unfinished', 'count'],
  'jobs.submitted': ['jobs submitted', 'count'],
  'faults.total': ['faults', 'count'],
  'faults.daysWithFault': ['days with a fault', 'ratio'],
  'fairness.jainSlowdown': ["Jain's index of users' slowdowns", 'number'],
  'fairness.slowdownMean': ['slowdown mean', 'number'],
  'fairness.users': ['users with a completed job', 'count'],
  scalePlans: ['scale plans', 'count'],
  events: ['events', 'count'],
};

/** Short names `--metrics` takes besides the dotted ones. */
export const METRIC_ALIASES: Readonly<Record<string, string>> = {
  completed: 'jobs.completed',
  failed: 'jobs.failed',
  unfinished: 'jobs.unfinished',
  faults: 'faults.total',
  jct: 'jctS.mean',
  queueing: 'queueDelayS.mean',
  waiting: 'waitS.mean',
  makespan: 'makespanS',
  allocation: 'gpuAllocationRate',
  utilization: 'gpuUtilization',
  fairness: 'fairness.jainSlowdown',
  slowdown: 'fairness.slowdownMean',
  lost: 'lostGpuHours',
  downtime: 'downtimeGpuHours',
  // A group: every reason's seconds and share of all queued time.
  reasons: 'waitByReason',
};

/** The default table rows. */
export function defaultRows(): TableRow[] {
  return DEFAULT_ROWS.map(([metric, label, unit, completedOnly]) => ({ metric, label, unit, completedOnly }));
}

/** The row of any metric: its default row, a named label, or its dotted name with a unit read from the name. */
export function rowOf(metric: string): TableRow {
  const known = DEFAULT_ROWS.find(([name]) => name === metric);
  if (known) return { metric, label: known[1], unit: known[2], completedOnly: known[3] };
  const completedOnly = /^(jctS|queueDelayS|waitS|cpuStarvedWaitS|dataWorkers|fairness)\./.test(metric) || /^priorityClasses\.[^.]+\.(jctS|waitS)\./.test(metric);
  const named = LABELS[metric];
  if (named) return { metric, label: named[0], unit: named[1], completedOnly };
  return { metric, label: metric, unit: unitFromName(metric), completedOnly };
}

/** A unit guessed from a dotted name: `…S` / `…S.p90` are seconds, rates and shares ratios, the rest counts. */
function unitFromName(metric: string): MetricUnit {
  const parts = metric.split('.');
  if (parts.some((part) => /[a-z]S$/.test(part))) return 'seconds';
  if (/(Rate|Utilization|Ratio|share|ettr)$/.test(metric)) return 'ratio';
  return 'count';
}

/**
 * The rows `--metrics a,b` asks for, in its order: each item a dotted metric name, an alias
 * (METRIC_ALIASES) or a group (`jctS`, `faults.byType`: every metric under it). `known` lists the
 * metric names there can be; `open` prefixes under which any name is accepted (fault types). An
 * unknown item is a one-line ConfigError naming close matches.
 */
export function parseMetricsOption(value: string, known: readonly string[], open: readonly string[] = []): TableRow[] {
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) throw new ConfigError('--metrics', 'name at least one metric');
  const rows: TableRow[] = [];
  const seen = new Set<string>();
  const add = (metric: string): void => {
    if (!seen.has(metric)) rows.push(rowOf(metric));
    seen.add(metric);
  };
  for (const item of items) {
    const name = METRIC_ALIASES[item] ?? item;
    if (known.includes(name) || open.some((prefix) => name.startsWith(`${prefix}.`))) {
      add(name);
      continue;
    }
    const group = known.filter((metric) => metric.startsWith(`${name}.`));
    if (group.length > 0) {
      group.forEach(add);
      continue;
    }
    const close = closeMatches(item, [...Object.keys(METRIC_ALIASES), ...known]);
    throw new ConfigError('--metrics', `unknown metric "${item}"; ${close.length > 0 ? `did you mean ${close.join(', ')}?` : `known: ${Object.keys(METRIC_ALIASES).join(', ')} or a dotted name as in comparison.csv`}`);
  }
  return rows;
}

/** Up to five names close to `wanted`: containing it (or it them), or within a small edit distance, closest first (by edit distance). */
export function closeMatches(wanted: string, names: readonly string[]): string[] {
  const w = wanted.toLowerCase();
  const scored: [number, string][] = [];
  for (const name of new Set(names)) {
    const n = name.toLowerCase();
    const distance = editDistance(w, n);
    const contains = n.includes(w) || w.includes(n);
    if (contains || distance <= Math.max(2, Math.floor(w.length / 3))) scored.push([distance, name]);
  }
  scored.sort(([a, x], [b, y]) => a - b || x.length - y.length || (x < y ? -1 : x > y ? 1 : 0));
  return scored.slice(0, 5).map(([, name]) => name);
}

/** Levenshtein distance (insertions, deletions and substitutions of one character). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
