/** A sweep made ready to run: its file read, its scenario and parameters checked, its grid and record built. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { ConfigError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { loadScenario } from '../scenario/load.js';
import { RunHistory } from '../sim/history.js';
import { checkParameters } from './check-parameters.js';
import { cellCount, checkGridSize, resolveSeeds, type SweepGrid } from './grid.js';
import { readSweepFile, type SweepFile } from './sweep-file.js';
import { sha256 } from '../report/provenance.js';
import { SWEEP_RECORD_FORMAT, type FileStamp, type SweepRecord } from './sweep-record.js';
import { dlsimVersion } from '../report/version.js';

/** Everything a sweep run needs besides its options. */
export interface SweepPlan {
  readonly sweep: SweepFile;
  readonly grid: SweepGrid;
  /** sweep.json for the whole grid (a shard's run sets its shard). */
  readonly record: SweepRecord;
  /** The scenario's name. */
  readonly scenarioName: string;
  /** The scenario's history, read once for every cell (absent: it has none). */
  readonly history?: { readonly file: string; readonly records: number; readonly snapshot: Uint8Array };
}

/** The sweep file's base name without extension (default folder and Job names use it). */
export function sweepName(file: string): string {
  return basename(file, extname(file));
}

/** A file's name and the SHA-256 of its bytes (of nothing when it is missing). */
function stampOf(file: string): FileStamp {
  return { name: basename(file), sha256: sha256(existsSync(file) ? readFileSync(file) : '') };
}

/** Presets must be known and named once; a problem names the sweep file's policies entry. */
function checkPolicies(sweep: SweepFile, policies: readonly string[], known: readonly string[]): void {
  policies.forEach((policy, i) => {
    if (!known.includes(policy)) throw new ConfigError(sweep.locate(['policies', i]), `unknown policy "${policy}"; known policies: ${known.join(', ')}`);
    const first = policies.indexOf(policy);
    if (first !== i) throw new ConfigError(sweep.locate(['policies', i]), `the policy "${policy}" is named twice (also [${first}])`);
  });
}

/**
 * Reads and checks a sweep file: its scenario loads, its policies are presets, its seeds are
 * distinct, its grid has at most MAX_GRID_CELLS cells, and every parameter value loads (see
 * checkParameters). Any problem is a one-line ConfigError before any cell runs.
 */
export async function planSweep(file: string): Promise<SweepPlan> {
  const sweep = readSweepFile(file);
  const scenarioFile = sweep.scenarioFile;
  if (!existsSync(scenarioFile)) throw new ConfigError(sweep.locate(['scenario']), `${scenarioFile}: no such file`);
  if (statSync(scenarioFile).isDirectory()) throw new ConfigError(sweep.locate(['scenario']), `${scenarioFile}: is a folder, not a scenario file`);
  const known = presetNames();
  if (sweep.policies !== undefined) checkPolicies(sweep, sweep.policies, known);
  const scenario = await loadScenario(scenarioFile, { knownPolicies: known });
  if (scenario.fill !== undefined) throw new ConfigError(sweep.locate(['scenario']), `${scenarioFile} is a fill scenario: a sweep makes timed runs (remove its fill section)`);
  const seeds = resolveSeeds(sweep.seeds, scenario.seed);
  const repeated = seeds.findIndex((seed, i) => seeds.indexOf(seed) !== i);
  if (repeated >= 0) throw new ConfigError(sweep.locate(['seeds', repeated]), `the seed ${seeds[repeated]} is given twice`);
  const grid: SweepGrid = { policies: sweep.policies ?? [scenario.policy], seeds, parameters: sweep.parameters };
  checkGridSize(grid, file);
  await checkParameters(sweep, grid, known);
  let history: SweepPlan['history'];
  if (scenario.history !== undefined) {
    const opened = await RunHistory.open(scenario.history);
    try {
      history = { file: opened.file, records: opened.size, snapshot: opened.bytes() };
    } finally {
      opened.close();
    }
  }
  const record: SweepRecord = {
    format: SWEEP_RECORD_FORMAT,
    dlsimVersion: dlsimVersion(),
    name: sweepName(file),
    sweepFile: stampOf(file),
    scenarioFile: stampOf(scenarioFile),
    ...(scenario.history === undefined ? {} : { historyFile: stampOf(scenario.history.file) }),
    grid,
    cells: cellCount(grid),
    shard: null,
  };
  return { sweep, grid, record, scenarioName: scenario.name, ...(history === undefined ? {} : { history }) };
}
