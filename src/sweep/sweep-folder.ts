/** Readying a sweep folder for a run: whose cells it holds, which are finished, and what a run may do with it. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { finishedCellIds, readRecord, removeLeftTemporaries, writeRecord } from './cell-store.js';
import { shardText } from './shard.js';
import { recordDifference, type SweepRecord } from './sweep-record.js';

/** The files made from the cells once all are finished (their presence says the folder is complete). */
export const TABLE_FILES = ['sweep-summary.csv', 'report.html', 'sweep.csv'] as const;

/**
 * Readies `dir` for a run of `record` and returns the ids of the cells already finished there.
 * Temporary files a killed run left are removed. A folder holding cells of another sweep (another
 * grid, scenario or shard) is a ConfigError; so is one holding cells of this sweep without
 * `resume`. sweep.json is then written (anything else in the folder is left alone).
 */
export function prepareFolder(dir: string, record: SweepRecord, resume: boolean, option = '--out'): Set<string> {
  removeLeftTemporaries(dir);
  const existing = readRecord(dir);
  const finished = finishedCellIds(dir);
  if (finished.length > 0) {
    if (existing === null) throw new ConfigError(option, `${dir} holds cell files but no sweep.json: use another ${option}`);
    const difference = recordDifference(existing, record);
    if (difference !== null) throw new ConfigError(option, `${dir} holds another sweep's cells (${difference}): use another ${option}`);
    if (shardText(existing.shard) !== shardText(record.shard)) {
      throw new ConfigError(option, `${dir} holds cells of shard ${shardText(existing.shard)}, not ${shardText(record.shard)}: use another ${option}`);
    }
    if (!resume) throw new ConfigError(option, `${dir} already holds ${finished.length} cells of this sweep: add --resume to finish it, or use another ${option}`);
  }
  writeRecord(dir, record);
  return new Set(finished);
}

/** Removes the tables made from a complete set of cells (before cells are added, so a table present is a complete one). */
export function removeTables(dir: string): void {
  for (const name of TABLE_FILES) rmSync(join(dir, name), { force: true });
}
