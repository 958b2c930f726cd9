/** A sweep's run into its folder: the missing cells of its shard run and written one by one, then sweep.csv and sweep-summary.csv. */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { writeFilesAtomic } from '../io/atomic-write.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { cellPath, cellResult, parseCell, readCellText, writeCell, type CellResult } from './cell-store.js';
import { allCells, cellSets, type GridCell, type SweepGrid } from './grid.js';
import type { SweepPlan } from './plan.js';
import { runCells, type CellJob } from './run-cells.js';
import { inShard, type Shard } from './shard.js';
import { sweepCsv } from './sweep-csv.js';
import { prepareFolder, removeTables } from './sweep-folder.js';
import { sweepSummaryCsv, sweepSummaryRows } from './sweep-summary.js';

/** How to run a sweep. */
export interface SweepRunOptions {
  readonly out: string;
  readonly workers: number;
  readonly resume: boolean;
  readonly shard: Shard | null;
  /** Check invariants after every instant (absent: the default). */
  readonly checkInvariants?: boolean;
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

/** Writes sweep.csv and sweep-summary.csv of the cells (sweep.csv last: present, it is complete). */
export function writeTables(dir: string, grid: SweepGrid, results: readonly CellResult[]): void {
  writeFilesAtomic(dir, [
    ['sweep-summary.csv', sweepSummaryCsv(sweepSummaryRows(grid, results))],
    ['sweep.csv', sweepCsv(grid, results)],
  ]);
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
    await runCells(jobs, options.workers, (i, summary) => writeCell(options.out, cellResult(grid, pending[i]!, summary)));
  }
  const wallS = (performance.now() - startedMs) / 1000;
  writeTables(options.out, grid, readCells(options.out, grid, cells));
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
