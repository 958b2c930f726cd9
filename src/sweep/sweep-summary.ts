/**
 * The sweep's aggregate: per swept parameter value and policy, each headline metric's mean and 95%
 * confidence half-width over seeds (sweep-summary.csv, and the rows a chart of metric against value
 * per policy draws).
 */
import { stringify } from 'csv-stringify/sync';
import { ciHalfWidth, meanOf, round6 } from '../report/interval.js';
import type { CellResult } from './cell-store.js';
import { valueIndexes, type SweepGrid } from './grid.js';
import { SWEEP_METRICS, metricValue } from './sweep-metrics.js';
import type { ParameterValue } from './parameter-values.js';
import { valueField } from './sweep-csv.js';

/** One aggregate: a metric of a policy at one value of one swept parameter, over seeds. */
export interface SweepSummaryRow {
  readonly policy: string;
  /** The swept `--set` path ("" when the sweep has no parameter). */
  readonly paramPath: string;
  /** Its value ("" when the sweep has no parameter). */
  readonly value: ParameterValue;
  /** Dotted summary metric (see SWEEP_METRICS). */
  readonly metric: string;
  /** Seeds the mean is over. */
  readonly n: number;
  readonly mean: number;
  /** Half-width of the 95% confidence interval of the mean (Student t); null with one seed. */
  readonly ci95: number | null;
}

/**
 * Aggregate rows in order: parameter, value, policy, metric. For each seed the metric is first
 * averaged over the cells of that value, policy and seed (over the other parameters' values, when
 * the sweep has several), then the mean and interval are taken over seeds, so n is the number of
 * seeds and policies stay paired by seed. Cells absent (a shard) are left out; a row with no cell is not made.
 */
export function sweepSummaryRows(grid: SweepGrid, cells: readonly CellResult[]): SweepSummaryRow[] {
  const dimensions = grid.parameters.length === 0 ? [{ path: '', values: [''] as ParameterValue[] }] : grid.parameters;
  const policyIndex = new Map(grid.policies.map((policy, i) => [policy, i]));
  const seedIndex = new Map(grid.seeds.map((seed, i) => [seed, i]));
  const metrics = SWEEP_METRICS.length;
  const seeds = grid.seeds.length;
  // sums[parameter][value][policy]: per seed and metric, the sum and count of cell values.
  const sums = dimensions.map((d) => d.values.map(() => grid.policies.map(() => ({ sum: new Float64Array(seeds * metrics), count: new Uint32Array(seeds * metrics) }))));
  // Grid order, so sums add up in one order whatever order the cells come in.
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    const indexes = grid.parameters.length === 0 ? [0] : valueIndexes(grid, cell.index);
    const policy = policyIndex.get(cell.policy)!;
    const seed = seedIndex.get(cell.seed)!;
    SWEEP_METRICS.forEach((metric, m) => {
      const value = metricValue(cell.summary, metric);
      if (Number.isNaN(value)) return;
      indexes.forEach((v, p) => {
        const slot = sums[p]![v]![policy]!;
        slot.sum[seed * metrics + m]! += value;
        slot.count[seed * metrics + m]! += 1;
      });
    });
  }
  const rows: SweepSummaryRow[] = [];
  dimensions.forEach((dimension, p) => {
    dimension.values.forEach((value, v) => {
      grid.policies.forEach((policy, q) => {
        const slot = sums[p]![v]![q]!;
        SWEEP_METRICS.forEach((metric, m) => {
          const perSeed: number[] = [];
          for (let s = 0; s < seeds; s++) {
            const count = slot.count[s * metrics + m]!;
            if (count > 0) perSeed.push(slot.sum[s * metrics + m]! / count);
          }
          if (perSeed.length === 0) return;
          const mean = meanOf(perSeed);
          rows.push({ policy, paramPath: dimension.path, value, metric, n: perSeed.length, mean: round6(mean), ci95: perSeed.length > 1 ? round6(ciHalfWidth(perSeed, mean)) : null });
        });
      });
    });
  });
  return rows;
}

/** The text of sweep-summary.csv: paramPath,value,policy,metric,n,mean,ci95 (ci95 empty with one seed). */
export function sweepSummaryCsv(rows: readonly SweepSummaryRow[]): string {
  const table: (string | number)[][] = [['paramPath', 'value', 'policy', 'metric', 'n', 'mean', 'ci95']];
  for (const row of rows) table.push([row.paramPath, valueField(row.value), row.policy, row.metric, row.n, row.mean, row.ci95 ?? '']);
  return stringify(table);
}
