import { WAIT_REASONS } from '../policies/wait-reason.js';
import { stringify } from 'csv-stringify/sync';
import { zeroJobRecord } from '../metrics/job-record.js';
import { buildSummary, type RunSummary } from '../metrics/summary.js';
import { HEADLINE_METRICS } from './headline.js';
import { alignColumns, formatPercent, formatSeconds } from './summary-table.js';
import { ciHalfWidth, meanOf, round6 } from './interval.js';
import { excludesZero, pairedDifferences, type PairedDifference } from './paired-difference.js';
import { pairedRatioLines, pairedRatios, type PairedRatio } from './paired-ratio.js';
import type { ComparisonProvenance } from './provenance.js';
import { defaultRows, rowOf, type MetricUnit, type TableRow } from './table-rows.js';

/** One run of a comparison: a policy on a seed, and its summary. */
export interface ComparisonRun {
  readonly policy: string;
  readonly seed: number;
  readonly summary: RunSummary;
}

/** Mean, 95% confidence half-width and ratio to the first policy of one metric for one policy. */
export interface MetricStats {
  /** Number of seeds. */
  readonly n: number;
  readonly mean: number;
  /** Half-width of the 95% confidence interval of the mean (Student t); null with one seed. */
  readonly ci95: number | null;
  /** This policy's mean divided by the first policy's; null when the first policy's mean is 0. */
  readonly ratioToFirst: number | null;
}

/** A policy's statistics of one metric over its seeds' values, against the first policy's mean `baseline`. */
export function metricStats(values: readonly number[], baseline: number): MetricStats {
  const mean = meanOf(values);
  return {
    n: values.length,
    mean: round6(mean),
    ci95: values.length > 1 ? round6(ciHalfWidth(values, mean)) : null,
    ratioToFirst: baseline !== 0 ? round6(mean / baseline) : null,
  };
}

/** The result of `dlsim compare`: every metric's statistics per policy. */
export interface Comparison {
  readonly scenario: string;
  readonly policies: readonly string[];
  readonly seeds: readonly number[];
  /** metric name (dotted, as in the summary) -> policy -> statistics. */
  readonly metrics: Readonly<Record<string, Readonly<Record<string, MetricStats>>>>;
  /** Per-seed ratios to the first policy, averaged (metric -> policy after the first -> ratio); see PAIRED_METRICS. */
  readonly pairedRatios: Readonly<Record<string, Readonly<Record<string, PairedRatio>>>>;
  /** Per-seed differences to the first policy (policy − first), averaged, for every metric (metric -> policy after the first -> difference). */
  readonly pairedDifferences: Readonly<Record<string, Readonly<Record<string, PairedDifference>>>>;
  /** How the comparison was made (absent in comparisons built in code). */
  readonly provenance?: ComparisonProvenance;
  /** How `--seeds auto` chose the seed count (absent with a fixed count). */
  readonly adaptiveSeeds?: AdaptiveSeedsOutcome;
}

/** What `compare --seeds auto` did: the target, the cap, and whether it met the target or stopped at the cap. */
export interface AdaptiveSeedsOutcome {
  /** Largest allowed 95% half-width as a share of the mean. */
  readonly target: number;
  readonly maxSeeds: number;
  /** Seeds it ran. */
  readonly seeds: number;
  /** `target`: every headline metric met it for every policy; `cap`: maxSeeds ran first. */
  readonly stoppedBy: 'target' | 'cap';
  /** The widest headline interval at the end. */
  readonly widest: HeadlineWidth | null;
  /** The headline intervals still wider than the target at the cap (empty when it was met). */
  readonly missed: readonly HeadlineWidth[];
}

/** A headline metric's interval width relative to its mean: half-width ÷ |mean| (null for a mean of 0 with a width). */
export interface HeadlineWidth {
  readonly policy: string;
  readonly metric: string;
  readonly relativeHalfWidth: number | null;
}

/** Top-level summary keys that are not metrics: per-user rows (names differ between runs) and how the run was made. */
const NOT_METRICS = new Set(['perUser', 'provenance']);

/** Metrics left out of comparisons: they describe the run, not the policy (or vary between identical runs). */
const NOT_COMPARED = new Set(['seed', 'perf.wallS', 'perf.eventsPerS']);

/** The summary's numeric leaves as dotted names ("jctS.mean", "faults.byType.xid-79"), in summary order. */
export function flattenMetrics(summary: RunSummary): [string, number][] {
  const out: [string, number][] = [];
  const walk = (value: unknown, prefix: string): void => {
    if (typeof value === 'number') {
      if (!NOT_COMPARED.has(prefix)) out.push([prefix, value]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (prefix === '' && NOT_METRICS.has(key)) continue;
        walk(child, prefix === '' ? key : `${prefix}.${key}`);
      }
    }
  };
  walk(summary, '');
  return out;
}

/** A value of a summary by dotted metric name, as flattenMetrics names it (null when absent or not a number). */
export function summaryValue(summary: object | null, metric: string): number | null {
  let value: unknown = summary;
  for (const key of metric.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'number' ? value : null;
}

/** Aggregates runs into per-policy statistics; `policies` gives the order (the first is the baseline). */
export function buildComparison(scenario: string, policies: readonly string[], allRuns: readonly ComparisonRun[]): Comparison {
  const runs = withEveryFaultType(allRuns);
  const seeds = [...new Set(runs.map((r) => r.seed))].sort((a, b) => a - b);
  const values = new Map<string, Map<string, number[]>>();
  for (const run of runs) {
    for (const [metric, value] of flattenMetrics(run.summary)) {
      let byPolicy = values.get(metric);
      if (!byPolicy) values.set(metric, (byPolicy = new Map()));
      const list = byPolicy.get(run.policy) ?? [];
      list.push(value);
      byPolicy.set(run.policy, list);
    }
  }
  const metrics: Record<string, Record<string, MetricStats>> = {};
  for (const [metric, byPolicy] of values) {
    const baseline = meanOf(byPolicy.get(policies[0]!) ?? [0]);
    metrics[metric] = {};
    for (const policy of policies) {
      metrics[metric][policy] = metricStats(byPolicy.get(policy) ?? [0], baseline);
    }
  }
  const metricRuns = runs.map((run) => ({ policy: run.policy, seed: run.seed, metrics: new Map(flattenMetrics(run.summary)) }));
  return { scenario, policies, seeds, metrics, pairedRatios: pairedRatios(policies, runs), pairedDifferences: pairedDifferences(policies, [...values.keys()], metricRuns) };
}

/**
 * Every metric name a summary can have (as flattenMetrics names them), fault types aside: those of
 * an empty run and of a run with spot jobs (priorityClasses); `faults.byType.<type>` is open.
 */
export function knownMetricNames(): string[] {
  const spotJob = zeroJobRecord({ priorityClass: 'spot' });
  const summary = buildSummary({
    scenario: '',
    policy: '',
    seed: 0,
    jobs: [spotJob],
    endS: 0,
    totalGpus: 0,
    totalCpuMilli: 0,
    allocatedGpuS: 0,
    busyGpuS: 0,
    allocatedCpuMilliS: 0,
    faultsByType: {},
    waitByReasonS: Object.fromEntries(WAIT_REASONS.map((reason) => [reason, 0])),
    events: 0,
  });
  return flattenMetrics(summary).map(([name]) => name);
}

/** Prefixes under which `--metrics` takes any name (fault types depend on the catalog). */
export const OPEN_METRIC_PREFIXES: readonly string[] = ['faults.byType'];

/**
 * The runs with every fault type any run met in each summary's `faults.byType` (zero where a run
 * met none), so a type's mean and the CSV count a seed without it as 0, not as missing.
 */
export function withEveryFaultType(runs: readonly ComparisonRun[]): ComparisonRun[] {
  const names = [...new Set(runs.flatMap((run) => Object.keys(run.summary.faults.byType)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return runs.map((run) => {
    const byType = Object.fromEntries(names.map((name) => [name, run.summary.faults.byType[name] ?? 0]));
    return { ...run, summary: { ...run.summary, faults: { ...run.summary.faults, byType } } };
  });
}

/** The tidy CSV of all runs: policy,seed,metric,value (a fault type a run did not meet is a 0 row). */
export function comparisonCsv(allRuns: readonly ComparisonRun[]): string {
  const runs = withEveryFaultType(allRuns);
  const rows: (string | number)[][] = [['policy', 'seed', 'metric', 'value']];
  for (const run of runs) for (const [metric, value] of flattenMetrics(run.summary)) rows.push([run.policy, run.seed, metric, value]);
  return stringify(rows);
}

/** How comparisonTable prints: the rows (default: the usual ones) and the paired-difference rows (default: the headline metrics). */
export interface TableOptions {
  readonly rows?: readonly TableRow[];
}

/** A value in its unit: "2.58h", "75.6%", "12.5", "0.873". */
function formatValue(unit: MetricUnit, value: number): string {
  return unit === 'seconds' ? formatSeconds(value) : unit === 'ratio' ? formatPercent(value) : unit === 'number' ? value.toFixed(3) : String(Math.round(value * 10) / 10);
}

/** A difference in its unit, signed; shares in percentage points: "+1.20h", "-3.4pp", "+2". */
function formatDifference(unit: MetricUnit, value: number): string {
  const sign = value > 0 ? '+' : value < 0 ? '-' : '';
  const abs = Math.abs(value);
  return `${sign}${unit === 'ratio' ? `${(abs * 100).toFixed(1)}pp` : formatValue(unit, abs)}`;
}

/** A width in its unit, unsigned; shares in percentage points. */
function formatWidth(unit: MetricUnit, value: number): string {
  return unit === 'ratio' ? `${(value * 100).toFixed(1)}pp` : formatValue(unit, value);
}

/**
 * The readable comparison table: mean ± 95% CI per metric and policy, and the ratio to the first
 * policy; under it the paired differences to the first policy (of the chosen rows with `rows`, else
 * of the headline metrics), marked "*" where the interval leaves out 0, and the paired ratios.
 */
export function comparisonTable(comparison: Comparison, options: TableOptions = {}): string {
  const { policies, seeds } = comparison;
  const seedText = seeds.length === 1 ? `seed ${seeds[0]}` : seeds.length > 20 ? `${seeds.length} seeds ${seeds[0]}-${seeds[seeds.length - 1]}` : `seeds ${seeds.join(', ')}`;
  const chosen = options.rows ?? defaultRows();
  const noneCompleted = (row: TableRow, policy: string): boolean => row.completedOnly && comparison.metrics['jobs.completed']?.[policy]?.mean === 0;
  const rows: string[][] = [['metric', ...policies]];
  for (const row of chosen) {
    const byPolicy = comparison.metrics[row.metric];
    if (!byPolicy) {
      if (options.rows) rows.push([row.label, ...policies.map(() => '–')]);
      continue;
    }
    rows.push([
      row.label,
      ...policies.map((policy, i) => {
        if (noneCompleted(row, policy)) return '–';
        const stats = byPolicy[policy]!;
        const ci = stats.ci95 === null ? '' : ` ± ${formatValue(row.unit, stats.ci95)}`;
        const ratio = i > 0 && stats.ratioToFirst !== null ? ` (${stats.ratioToFirst.toFixed(2)}x)` : '';
        return `${formatValue(row.unit, stats.mean)}${ci}${ratio}`;
      }),
    ]);
  }
  const differenceRows: string[][] = [['metric', ...policies.slice(1)]];
  for (const row of options.rows ?? HEADLINE_METRICS.map(rowOf)) {
    const byPolicy = comparison.pairedDifferences[row.metric] ?? {};
    differenceRows.push([
      row.label,
      ...policies.slice(1).map((policy) => {
        const d = byPolicy[policy];
        if (d === undefined || noneCompleted(row, policy) || noneCompleted(row, policies[0]!)) return '–';
        return `${formatDifference(row.unit, d.mean)}${d.ci95 === null ? '' : ` ± ${formatWidth(row.unit, d.ci95)}`}${excludesZero(d) ? ' *' : '  '}`;
      }),
    ]);
  }
  return [
    `scenario ${comparison.scenario}  ${seedText}  (mean ± 95% CI over seeds; (Nx) = ratio to ${policies[0]})`,
    '',
    alignColumns(rows),
    ...(policies.length > 1
      ? [
          '',
          `paired difference to ${policies[0]} (per seed, policy − ${policies[0]}; mean ± 95% CI over seeds; * = the interval leaves out 0; pp = percentage points)`,
          '',
          alignColumns(differenceRows),
          '',
          `paired ratio to ${policies[0]} (per seed, then mean ± 95% CI)`,
          '',
          alignColumns([['metric', ...policies.slice(1)], ...pairedRatioLines(policies, comparison.pairedRatios)]),
        ]
      : []),
  ].join('\n');
}
