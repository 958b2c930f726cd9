import { stringify } from 'csv-stringify/sync';
import type { FillSummary } from '../sim/fill.js';
import { metricStats, type MetricStats } from './compare.js';
import { meanOf } from './interval.js';
import { alignColumns, formatPercent } from './summary-table.js';

/** One fill run of a comparison: a preset on a seed, and its summary. */
export interface FillComparisonRun {
  readonly policy: string;
  readonly seed: number;
  readonly summary: FillSummary;
}

/** The result of `dlsim compare` on a fill scenario: every fill figure's statistics per preset. */
export interface FillComparison {
  readonly scenario: string;
  readonly mode: 'fill';
  readonly policies: readonly string[];
  readonly seeds: readonly number[];
  /** metric name (dotted, as in the fill summary) -> preset -> statistics. */
  readonly metrics: Readonly<Record<string, Readonly<Record<string, MetricStats>>>>;
}

/** Fill figures compared, as dotted paths into the fill summary. */
const FILL_METRICS: readonly (readonly [metric: string, value: (summary: FillSummary) => number])[] = [
  ['jobs.placed', (s) => s.jobs.placed],
  ['jobs.failed', (s) => s.jobs.failed],
  ['firstFailure.position', (s) => s.firstFailure?.position ?? 0],
  ...(['atFirstFailure', 'final'] as const).flatMap((when) => [
    [`${when}.jobsPlaced`, (s: FillSummary) => s[when].jobsPlaced] as const,
    [`${when}.gpuAllocationRate`, (s: FillSummary) => s[when].gpuAllocationRate] as const,
    [`${when}.allocatedGpus`, (s: FillSummary) => s[when].allocatedGpus] as const,
    [`${when}.idleGpus`, (s: FillSummary) => s[when].idleGpus] as const,
    [`${when}.fragmentationGpus`, (s: FillSummary) => s[when].fragmentationGpus] as const,
    [`${when}.fragmentationShareOfIdle`, (s: FillSummary) => s[when].fragmentationShareOfIdle] as const,
  ]),
];

/** Aggregates fill runs into per-preset statistics; `policies` gives the order (the first is the baseline). */
export function buildFillComparison(scenario: string, policies: readonly string[], runs: readonly FillComparisonRun[]): FillComparison {
  const seeds = [...new Set(runs.map((r) => r.seed))].sort((a, b) => a - b);
  const metrics: Record<string, Record<string, MetricStats>> = {};
  for (const [metric, value] of FILL_METRICS) {
    const valuesOf = (policy: string): number[] => runs.filter((r) => r.policy === policy).map((r) => value(r.summary));
    const baseline = meanOf(valuesOf(policies[0]!));
    metrics[metric] = {};
    for (const policy of policies) {
      metrics[metric][policy] = metricStats(valuesOf(policy), baseline);
    }
  }
  return { scenario, mode: 'fill', policies, seeds, metrics };
}

/** The tidy CSV of all fill runs: policy,seed,metric,value. */
export function fillComparisonCsv(runs: readonly FillComparisonRun[]): string {
  const rows: (string | number)[][] = [['policy', 'seed', 'metric', 'value']];
  for (const run of runs) for (const [metric, value] of FILL_METRICS) rows.push([run.policy, run.seed, metric, value(run.summary)]);
  return stringify(rows);
}

/** Table rows: metric, label, and whether it is a ratio (else a count or GPUs). */
const TABLE_ROWS: readonly (readonly [string, string, boolean])[] = [
  ['firstFailure.position', 'first failure at job #', false],
  ['atFirstFailure.gpuAllocationRate', 'GPU allocation at first failure', true],
  ['final.gpuAllocationRate', 'GPU allocation, after every job', true],
  ['jobs.placed', 'jobs placed, after every job', false],
  ['atFirstFailure.fragmentationGpus', 'fragmented GPUs at first failure', false],
  ['final.fragmentationGpus', 'fragmented GPUs, after every job', false],
  ['atFirstFailure.fragmentationShareOfIdle', 'fragmentation / idle at first failure', true],
  ['final.fragmentationShareOfIdle', 'fragmentation / idle, after every job', true],
];

/** The readable fill comparison: mean ± 95% CI per figure and preset, and the ratio to the first preset. */
export function fillComparisonTable(comparison: FillComparison): string {
  const { policies, seeds } = comparison;
  const seedText = seeds.length === 1 ? `seed ${seeds[0]}` : `seeds ${seeds.join(', ')}`;
  const rows: string[][] = [['metric', ...policies]];
  for (const [metric, label, ratio] of TABLE_ROWS) {
    const format = (v: number): string => (ratio ? formatPercent(v) : String(Math.round(v * 100) / 100));
    rows.push([
      label,
      ...policies.map((policy, i) => {
        const stats = comparison.metrics[metric]![policy]!;
        const ci = stats.ci95 === null ? '' : ` ± ${format(stats.ci95)}`;
        const toFirst = i > 0 && stats.ratioToFirst !== null ? ` (${stats.ratioToFirst.toFixed(2)}x)` : '';
        return `${format(stats.mean)}${ci}${toFirst}`;
      }),
    ]);
  }
  return [
    `scenario ${comparison.scenario}  fill (placement only)  ${seedText}  (mean ± 95% CI over seeds; (Nx) = ratio to ${policies[0]})`,
    '',
    alignColumns(rows),
  ].join('\n');
}
