/** sweep.json: what a sweep folder's cells were made from (grid, input hashes, dlsim version, shard), and whether two folders are of one sweep. */
import type { SweepGrid } from './grid.js';
import type { Shard } from './shard.js';

/** The format tag of sweep.json. */
export const SWEEP_RECORD_FORMAT = 'dlsim-sweep/1';

/** A file a sweep was made from: its base name and the SHA-256 of its bytes. */
export interface FileStamp {
  readonly name: string;
  readonly sha256: string;
}

/** The contents of sweep.json. */
export interface SweepRecord {
  readonly format: typeof SWEEP_RECORD_FORMAT;
  readonly dlsimVersion: string;
  /** The sweep file's base name without extension (default folder names use it). */
  readonly name: string;
  readonly sweepFile: FileStamp;
  readonly scenarioFile: FileStamp;
  /** The scenario's history file, when it has one (its cells read it). */
  readonly historyFile?: FileStamp;
  readonly grid: SweepGrid;
  /** Cells in the whole grid (not only this shard's). */
  readonly cells: number;
  /** The shard this folder holds, or null for the whole grid. */
  readonly shard: Shard | null;
}

/**
 * Why two records are not of one sweep (what differs first), or null when they are: the same
 * grid, scenario file bytes, history bytes and dlsim version. The sweep file's own bytes and names
 * may differ (a comment changed, another path), and so may the shard.
 */
export function recordDifference(a: SweepRecord, b: SweepRecord): string | null {
  if (a.dlsimVersion !== b.dlsimVersion) return `made by dlsim ${a.dlsimVersion}, not ${b.dlsimVersion}`;
  if (a.scenarioFile.sha256 !== b.scenarioFile.sha256) return `its scenario file differs (${a.scenarioFile.name} sha256 ${a.scenarioFile.sha256.slice(0, 12)}, not ${b.scenarioFile.name} ${b.scenarioFile.sha256.slice(0, 12)})`;
  if (a.historyFile?.sha256 !== b.historyFile?.sha256) return 'its scenario history file differs';
  if (JSON.stringify(a.grid.policies) !== JSON.stringify(b.grid.policies)) return `its policies differ (${a.grid.policies.join(', ')}, not ${b.grid.policies.join(', ')})`;
  if (JSON.stringify(a.grid.seeds) !== JSON.stringify(b.grid.seeds)) return `its seeds differ (${a.grid.seeds.join(', ')}, not ${b.grid.seeds.join(', ')})`;
  if (JSON.stringify(a.grid.parameters) !== JSON.stringify(b.grid.parameters)) {
    const pathsA = a.grid.parameters.map((p) => p.path).join(', ');
    const pathsB = b.grid.parameters.map((p) => p.path).join(', ');
    return pathsA === pathsB ? `the values of its parameters differ` : `its parameters differ (${pathsA || 'none'}, not ${pathsB || 'none'})`;
  }
  return null;
}
