/** `dlsim merge`: shard folders of one sweep combined into one sweep folder (cells, sweep.json, sweep.csv, sweep-summary.csv). */
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { cellPath, finishedCellIds, parseCell, readCellText, readRecord, removeLeftTemporaries, writeRecord, type CellResult } from './cell-store.js';
import { allCells } from './grid.js';
import { writeTables } from './run-sweep.js';
import { recordDifference, type SweepRecord } from './sweep-record.js';

/** What a merge did. */
export interface MergeOutcome {
  readonly record: SweepRecord;
  /** Cells in the grid. */
  readonly cells: number;
  /** Cells found (once each). */
  readonly found: number;
  /** Cells found in more than one folder, with the same contents. */
  readonly duplicates: number;
  /** Ids of the cells no folder holds, in grid order. */
  readonly missing: readonly string[];
  readonly csvPath: string;
}

/** The path a folder is known by, for telling one folder from another. */
function samePath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The sweep records of the folders, all of one sweep; the first problem is a ConfigError naming the folder. */
function readRecords(dirs: readonly string[]): SweepRecord[] {
  const records = dirs.map((dir) => {
    const record = readRecord(dir);
    if (record === null) throw new ConfigError(dir, 'not a sweep folder (no sweep.json)');
    return record;
  });
  records.forEach((record, i) => {
    const difference = recordDifference(records[0]!, record);
    if (difference !== null) throw new ConfigError(dirs[i]!, `is not of the same sweep as ${dirs[0]} (${difference})`);
  });
  return records;
}

/** How a missing-cells message lists ids: the first few, and how many more. */
function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

/**
 * Merges sweep folders of one sweep (same grid, scenario and dlsim version; any shards) into `out`:
 * every cell found is copied there (a cell found twice must have the same contents, else it is a
 * ConfigError naming both folders), then sweep.json (no shard) and the tables. `out` may already
 * be a folder of the sweep: its cells count as found. Missing cells are a ConfigError listing them,
 * unless `allowPartial`: then the tables hold the cells found and the outcome lists the missing.
 */
export function mergeSweeps(inputs: readonly string[], out: string, allowPartial: boolean): MergeOutcome {
  if (inputs.length === 0) throw new ConfigError('dlsim merge', 'name at least one sweep folder');
  const outPath = samePath(out);
  const outRecord = readRecord(out);
  const outHasCells = finishedCellIds(out).length > 0;
  if (outHasCells && outRecord === null) throw new ConfigError('--out', `${out} holds cell files but no sweep.json: use another --out`);
  const dirs = [...inputs.filter((dir) => samePath(dir) !== outPath), ...(outRecord !== null && outHasCells ? [out] : [])];
  const seen = new Set<string>();
  for (const dir of inputs) {
    const path = samePath(dir);
    if (seen.has(path)) throw new ConfigError(dir, 'is named twice');
    seen.add(path);
  }
  if (dirs.length === 0) throw new ConfigError('--out', 'is the only folder named: name the shard folders to merge');
  const records = readRecords(dirs);
  const record: SweepRecord = { ...records[0]!, shard: null };
  const { grid } = record;
  const present = dirs.map((dir) => new Set(finishedCellIds(dir)));
  const results: CellResult[] = [];
  const texts: string[] = [];
  const missing: string[] = [];
  let duplicates = 0;
  for (const cell of allCells(grid)) {
    let text: string | null = null;
    let from = '';
    dirs.forEach((dir, d) => {
      if (!present[d]!.has(cell.id)) return;
      const found = readCellText(dir, cell.id);
      if (found === null) return;
      if (text === null) {
        parseCell(cellPath(dir, cell.id), found, grid, cell);
        text = found;
        from = dir;
      } else if (found !== text) {
        throw new ConfigError(cellPath(dir, cell.id), `differs from ${cellPath(from, cell.id)}: the same cell with other results (were they made by other code?)`);
      } else {
        duplicates++;
      }
    });
    if (text === null) {
      missing.push(cell.id);
      continue;
    }
    results.push(parseCell(cellPath(from, cell.id), text, grid, cell));
    texts.push(text);
  }
  if (missing.length > 0 && !allowPartial) {
    throw new ConfigError('dlsim merge', `${missing.length} of ${record.cells} cells are missing (${listIds(missing)}): merge every shard's folder, or add --allow-partial`);
  }
  removeLeftTemporaries(out);
  writeRecord(out, record);
  const outCells = new Set(finishedCellIds(out));
  results.forEach((result, i) => {
    if (outCells.has(result.id) && readCellText(out, result.id) === texts[i]) return;
    writeFileAtomic(cellPath(out, result.id), texts[i]!);
  });
  writeTables(out, record, results);
  return { record, cells: record.cells, found: results.length, duplicates, missing, csvPath: join(out, 'sweep.csv') };
}
