import { stringify } from 'csv-stringify/sync';
import type { RunSummary } from '../metrics/summary.js';
import { alignColumns, formatPercent, formatSeconds } from './summary-table.js';
import { ciHalfWidth, meanOf, round6 } from './interval.js';
import { pairedRatioLines, pairedRatios, type PairedRatio } from './paired-ratio.js';

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
}

/** Metrics left out of comparisons: they describe the run, not the policy (or vary between identical runs). */
const NOT_COMPARED = new Set(['seed', 'perf.wallS', 'perf.eventsPerS']);

/** The summary's numeric leaves as dotted names ("jctS.mean", "faults.byType.xid-79"), in summary order. */
export function flattenMetrics(summary: RunSummary): [string, number][] {
  const out: [string, number][] = [];
  const walk = (value: unknown, prefix: string): void => {
    if (typeof value === 'number') {
      if (!NOT_COMPARED.has(prefix)) out.push([prefix, value]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, prefix === '' ? key : `${prefix}.${key}`);
    }
  };
  walk(summary, '');
  return out;
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
  return { scenario, policies, seeds, metrics, pairedRatios: pairedRatios(policies, runs) };
}

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

/** Metrics the comparison table shows, with how to print them. */
/** Table rows: metric, label, unit, and whether it covers completed jobs only (shown as "–" when no seed completed one). */
const TABLE_METRICS: readonly (readonly [string, string, 'seconds' | 'ratio' | 'count', boolean])[] = [
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

/** The readable comparison table: mean ± 95% CI per metric and policy, and the ratio to the first policy. */
export function comparisonTable(comparison: Comparison): string {
  const { policies, seeds } = comparison;
  const seedText = seeds.length === 1 ? `seed ${seeds[0]}` : `seeds ${seeds.join(', ')}`;
  const rows: string[][] = [['metric', ...policies]];
  for (const [metric, label, unit, completedOnly] of TABLE_METRICS) {
    const byPolicy = comparison.metrics[metric];
    if (!byPolicy) continue;
    rows.push([
      label,
      ...policies.map((policy, i) => {
        if (completedOnly && comparison.metrics['jobs.completed']?.[policy]?.mean === 0) return '–';
        const stats = byPolicy[policy]!;
        const format = (v: number): string =>
          unit === 'seconds' ? formatSeconds(v) : unit === 'ratio' ? formatPercent(v) : String(Math.round(v * 10) / 10);
        const ci = stats.ci95 === null ? '' : ` ± ${format(stats.ci95)}`;
        const ratio = i > 0 && stats.ratioToFirst !== null ? ` (${stats.ratioToFirst.toFixed(2)}x)` : '';
        return `${format(stats.mean)}${ci}${ratio}`;
      }),
    ]);
  }
  return [
    `scenario ${comparison.scenario}  ${seedText}  (mean ± 95% CI over seeds; (Nx) = ratio to ${policies[0]})`,
    '',
    alignColumns(rows),
    ...(policies.length > 1
      ? ['', `paired ratio to ${policies[0]} (per seed, then mean ± 95% CI)`, '', alignColumns([['metric', ...policies.slice(1)], ...pairedRatioLines(policies, comparison.pairedRatios)])]
      : []),
  ].join('\n');
}
