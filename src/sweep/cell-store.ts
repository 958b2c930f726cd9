/**
 * A sweep folder on disk: sweep.json, one file per finished cell under cells/ (each written
 * atomically, so a cell file is whole or absent), and the CSVs made from them.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import type { RunSummary } from '../metrics/summary.js';
import { cellParameters, type GridCell, type SweepGrid } from './grid.js';
import type { ParameterValue } from './parameter-values.js';
import { SWEEP_RECORD_FORMAT, type SweepRecord } from './sweep-record.js';

/** The record's file name in a sweep folder. */
export const RECORD_FILE = 'sweep.json';
/** The folder of cell files in a sweep folder. */
export const CELLS_FOLDER = 'cells';

/** A run summary as a cell keeps it: without `perf` (timing differs between identical runs). */
export type CellSummary = Omit<RunSummary, 'perf'>;

/** A finished cell's file: where it sits in the grid, what it ran, and its summary. */
export interface CellResult {
  readonly id: string;
  readonly index: number;
  readonly policy: string;
  readonly seed: number;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  readonly summary: CellSummary;
}

/** The cell's file contents for a run's summary (perf left out). */
export function cellResult(grid: SweepGrid, cell: GridCell, summary: RunSummary): CellResult {
  const { perf: _perf, ...kept } = summary;
  return { id: cell.id, index: cell.index, policy: cell.policy, seed: cell.seed, parameters: cellParameters(grid, cell), summary: kept };
}

/** A cell file's text (stable: the same result always gives the same bytes). */
export function cellText(result: CellResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Path of a cell's file. */
export function cellPath(dir: string, id: string): string {
  return join(dir, CELLS_FOLDER, `${id}.json`);
}

/** Writes a finished cell atomically (a temporary file renamed into place). */
export function writeCell(dir: string, result: CellResult): void {
  writeFileAtomic(cellPath(dir, result.id), cellText(result));
}

/** The ids of the cell files in a folder (none when it has no cells/ folder), sorted. */
export function finishedCellIds(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, CELLS_FOLDER));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new ConfigError(join(dir, CELLS_FOLDER), `cannot list the folder (${code ?? String(error)})`);
  }
  return names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).map((name) => name.slice(0, -'.json'.length)).sort();
}

/** Removes temporary files a killed process left in the folder and its cells/ (`.NAME.PID.tmp`). */
export function removeLeftTemporaries(dir: string): void {
  for (const folder of [dir, join(dir, CELLS_FOLDER)]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) if (/^\..+\.\d+\.tmp$/.test(name)) rmSync(join(folder, name), { force: true });
  }
}

/** The text of a file, or null when it does not exist; other failures are ConfigErrors naming it. */
export function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ConfigError(path, `cannot read the file (${code ?? String(error)})`);
  }
}

const stampSchema = z.object({ name: z.string(), sha256: z.string() });
const recordSchema = z.object({
  format: z.literal(SWEEP_RECORD_FORMAT),
  dlsimVersion: z.string(),
  name: z.string(),
  sweepFile: stampSchema,
  scenarioFile: stampSchema,
  historyFile: stampSchema.optional(),
  grid: z.object({
    policies: z.array(z.string()),
    seeds: z.array(z.number()),
    parameters: z.array(z.object({ path: z.string(), values: z.array(z.unknown()) })),
  }),
  cells: z.number(),
  shard: z.object({ index: z.number(), count: z.number() }).nullable(),
});

/** The folder's sweep.json, or null when it has none; one that is not a sweep record is a ConfigError. */
export function readRecord(dir: string): SweepRecord | null {
  const path = join(dir, RECORD_FILE);
  const text = readTextOrNull(path);
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(path, 'is not JSON: not a dlsim sweep record');
  }
  const checked = recordSchema.safeParse(parsed);
  if (!checked.success) throw new ConfigError(path, `is not a dlsim sweep record (${SWEEP_RECORD_FORMAT})`);
  return checked.data as SweepRecord;
}

/** Writes the folder's sweep.json atomically. */
export function writeRecord(dir: string, record: SweepRecord): void {
  writeFileAtomic(join(dir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** A cell file's text; a missing file is null. */
export function readCellText(dir: string, id: string): string | null {
  return readTextOrNull(cellPath(dir, id));
}

/**
 * A cell's result read from its file and checked against the grid's cell: a file that is not
 * JSON, or of another cell, is a ConfigError naming it.
 */
export function parseCell(path: string, text: string, grid: SweepGrid, cell: GridCell): CellResult {
  let parsed: CellResult;
  try {
    parsed = JSON.parse(text) as CellResult;
  } catch {
    throw new ConfigError(path, 'is not JSON: remove it to run the cell again');
  }
  const matches =
    parsed !== null &&
    typeof parsed === 'object' &&
    parsed.id === cell.id &&
    parsed.index === cell.index &&
    parsed.policy === cell.policy &&
    parsed.seed === cell.seed &&
    JSON.stringify(parsed.parameters) === JSON.stringify(cellParameters(grid, cell)) &&
    typeof parsed.summary === 'object' &&
    parsed.summary !== null;
  if (!matches) throw new ConfigError(path, "is not this sweep's cell (its policy, seed or parameters differ from the grid's): remove it to run the cell again");
  return parsed;
}
