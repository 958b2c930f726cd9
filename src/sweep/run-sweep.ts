/** A sweep's run into its folder: the missing cells of its shard run and written one by one, then sweep.csv, sweep-summary.csv and report.html. */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { writeFilesAtomic } from '../io/atomic-write.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { cellPath, cellResult, parseCell, readCellText, writeCell, type CellResult } from './cell-store.js';
import { allCells, cellSets, type GridCell, type SweepGrid } from './grid.js';
import type { SweepPlan } from './plan.js';
import { runCells, type CellJob, type CellWatcher } from './run-cells.js';
import { inShard, type Shard } from './shard.js';
import { sweepCsv } from './sweep-csv.js';
import { prepareFolder, removeTables } from './sweep-folder.js';
import { sweepSummaryCsv, sweepSummaryRows, type SweepSummaryRow } from './sweep-summary.js';
import type { SweepRecord } from './sweep-record.js';
import { sweepReportHtml } from '../report/html/page.js';
import { HEADLINE_METRICS } from '../report/headline.js';
import type { SweepPoint } from '../report/html/sweep-chart.js';

/** How to run a sweep. */
export interface SweepRunOptions {
  readonly out: string;
  readonly workers: number;
  readonly resume: boolean;
  readonly shard: Shard | null;
  /** Check invariants after every instant (absent: the default). */
  readonly checkInvariants?: boolean;
  /** Told how many cells will run, then as each starts and ends (a progress display). */
  readonly watch?: (pending: number, skipped: number) => CellWatcher | undefined;
}

/** What a sweep run did. */
export interface SweepOutcome {
  /** Cells of the shard (all cells without one). */
  readonly cells: number;
  readonly run: number;
  readonly skipped: number;
  readonly wallS: number;
  readonly csvPath: string;
  readonly summaryPath: string;
}

/** How messages name a cell: its id and parameters. */
export function cellLabel(grid: SweepGrid, cell: GridCell): string {
  const sets = cellSets(grid, cell);
  return `cell ${cell.id}${sets.length === 0 ? '' : ` (${sets.join(', ')})`}`;
}

/** The cells' results read back from their files in grid order, each checked against the grid. */
export function readCells(dir: string, grid: SweepGrid, cells: readonly GridCell[]): CellResult[] {
  return cells.map((cell) => {
    const text = readCellText(dir, cell.id);
    if (text === null) throw new ConfigError(cellPath(dir, cell.id), 'is missing');
    return parseCell(cellPath(dir, cell.id), text, grid, cell);
  });
}

/** Writes sweep-summary.csv, report.html and sweep.csv of the cells of the sweep `record` (sweep.csv last: present, it is complete). */
export function writeTables(dir: string, record: SweepRecord, results: readonly CellResult[]): void {
  const { grid } = record;
  const rows = sweepSummaryRows(grid, results);
  writeFilesAtomic(dir, [
    ['sweep-summary.csv', sweepSummaryCsv(rows)],
    ['report.html', sweepReport(record, rows, results.length)],
    ['sweep.csv', sweepCsv(grid, results)],
  ]);
}

/** A sweep's report.html from its aggregate rows: the headline metrics of a comparison (sweep-summary.csv has them all) against each parameter. */
export function sweepReport(record: SweepRecord, rows: readonly SweepSummaryRow[], cells: number): string {
  return sweepReportHtml({ name: record.name, stamp: sweepStamp(record, cells), points: rows.filter((r) => HEADLINE_METRICS.includes(r.metric)).map(pointOf) });
}

/** The sweep report's stamp: version, scenario, policies, seeds, parameters and cells (never the wall clock). */
function sweepStamp(record: SweepRecord, cells: number): string {
  const { grid } = record;
  const seeds = grid.seeds.length === 1 ? `seed ${grid.seeds[0]}` : `${grid.seeds.length} seeds`;
  const parameters = grid.parameters.map((p) => `${p.path} (${p.values.length})`).join(', ') || 'no parameter';
  return `dlsim ${record.dlsimVersion} · scenario ${record.scenarioFile.name} · ${grid.policies.join(', ')} · ${seeds} · ${parameters} · ${cells} of ${record.cells} cells${record.shard === null ? '' : ` (shard ${record.shard.index}/${record.shard.count})`}`;
}

/** An aggregate as the sweep chart draws it (a value that is not a number or text drawn as its JSON). */
function pointOf(row: SweepSummaryRow): SweepPoint {
  const value = typeof row.value === 'number' || typeof row.value === 'string' ? row.value : JSON.stringify(row.value);
  return { policy: row.policy, paramPath: row.paramPath, value, metric: row.metric, mean: row.mean, ci95: row.ci95 };
}

/**
 * Runs the sweep into `options.out`: readies the folder (see prepareFolder), runs the shard's cells
 * not yet finished (each written atomically as it ends, so an interrupted run loses at most the
 * cells running), then writes the tables from every cell file of the shard.
 */
export async function runSweep(plan: SweepPlan, options: SweepRunOptions): Promise<SweepOutcome> {
  const { grid } = plan;
  const record = { ...plan.record, shard: options.shard };
  const finished = prepareFolder(options.out, record, options.resume);
  const cells = allCells(grid).filter((cell) => inShard(cell.index, options.shard));
  const pending = cells.filter((cell) => !finished.has(cell.id));
  const startedMs = performance.now();
  if (pending.length > 0) {
    removeTables(options.out);
    const jobs: CellJob[] = pending.map((cell) => ({ label: cellLabel(grid, cell), request: cellRequest(plan, cell, options.checkInvariants) }));
    const watcher = options.watch?.(pending.length, cells.length - pending.length);
    await runCells(jobs, options.workers, (i, summary) => writeCell(options.out, cellResult(grid, pending[i]!, summary)), watcher);
  }
  const wallS = (performance.now() - startedMs) / 1000;
  writeTables(options.out, record, readCells(options.out, grid, cells));
  return {
    cells: cells.length,
    run: pending.length,
    skipped: cells.length - pending.length,
    wallS,
    csvPath: join(options.out, 'sweep.csv'),
    summaryPath: join(options.out, 'sweep-summary.csv'),
  };
}

/** A cell's run: the scenario under the cell's policy and seed, with its parameters as `--set` assignments. */
function cellRequest(plan: SweepPlan, cell: GridCell, checkInvariants: boolean | undefined): RunRequest {
  return {
    file: plan.sweep.scenarioFile,
    policy: cell.policy,
    seed: cell.seed,
    sets: cellSets(plan.grid, cell),
    ...(checkInvariants === undefined ? {} : { checkInvariants }),
    ...(plan.history === undefined ? {} : { historySnapshot: plan.history.snapshot }),
  };
}
