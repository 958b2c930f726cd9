/** A sweep folder's aggregate read back from its files (for reports drawn after the sweep, e.g. one chart per swept parameter). */
import { ConfigError } from '../errors.js';
import { finishedCellIds, readRecord } from './cell-store.js';
import { allCells } from './grid.js';
import { readCells } from './run-sweep.js';
import type { SweepRecord } from './sweep-record.js';
import { sweepSummaryRows, type SweepSummaryRow } from './sweep-summary.js';

/** A sweep folder's record and the aggregate rows of the cells it holds (mean and 95% CI over seeds per parameter value, policy and metric). */
export function sweepFolderRows(dir: string): { readonly record: SweepRecord; readonly rows: SweepSummaryRow[]; readonly cells: number } {
  const record = readRecord(dir);
  if (record === null) throw new ConfigError(dir, 'not a sweep folder (no sweep.json)');
  const present = new Set(finishedCellIds(dir));
  const cells = allCells(record.grid).filter((cell) => present.has(cell.id));
  return { record, rows: sweepSummaryRows(record.grid, readCells(dir, record.grid, cells)), cells: cells.length };
}
