/** sweep.csv: one row per cell in grid order; policy, seed, one column per swept parameter, then the headline metrics. */
import { stringify } from 'csv-stringify/sync';
import type { CellResult } from './cell-store.js';
import type { SweepGrid } from './grid.js';
import { SWEEP_METRICS, metricValue } from './sweep-metrics.js';
import type { ParameterValue } from './parameter-values.js';

/** A parameter value as a CSV field: a scalar as itself, a list or mapping as JSON. */
export function valueField(value: ParameterValue): string | number {
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A metric as a CSV field: the number, or empty when the summary lacks it. */
function metricField(value: number): string | number {
  return Number.isNaN(value) ? '' : value;
}

/** The text of sweep.csv for the given cells (sorted by grid index, whatever order they come in). */
export function sweepCsv(grid: SweepGrid, cells: readonly CellResult[]): string {
  const rows: (string | number)[][] = [['policy', 'seed', ...grid.parameters.map((p) => p.path), ...SWEEP_METRICS]];
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    rows.push([
      cell.policy,
      cell.seed,
      ...grid.parameters.map((p) => valueField(cell.parameters[p.path]!)),
      ...SWEEP_METRICS.map((metric) => metricField(metricValue(cell.summary, metric))),
    ]);
  }
  return stringify(rows);
}
