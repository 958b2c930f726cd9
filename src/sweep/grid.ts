/** A sweep's grid: parameter combinations x policies x seeds, its cells in a fixed order, and each cell's run. */
import { ConfigError } from '../errors.js';
import { MAX_GRID_CELLS, type ParameterValue, type ParameterValues } from './parameter-values.js';
import type { SeedsSpec } from './sweep-file.js';

/** One swept `--set` path and its values. */
export interface SweptParameter {
  readonly path: string;
  readonly values: ParameterValues;
}

/** What a sweep runs: every combination of parameter values, under every policy, on every seed. */
export interface SweepGrid {
  readonly policies: readonly string[];
  readonly seeds: readonly number[];
  readonly parameters: readonly SweptParameter[];
}

/** One cell of the grid: its place, id, policy, seed and one value per parameter (in grid.parameters order). */
export interface GridCell {
  readonly index: number;
  readonly id: string;
  readonly policy: string;
  readonly seed: number;
  readonly values: readonly ParameterValue[];
}

/** The seeds a sweep file asks for: a count starts at the scenario seed. */
export function resolveSeeds(spec: SeedsSpec, scenarioSeed: number): number[] {
  if (typeof spec === 'number') return Array.from({ length: spec }, (_, i) => scenarioSeed + i);
  if (Array.isArray(spec)) return [...(spec as readonly number[])];
  const range = spec as { readonly from: number; readonly count: number };
  return Array.from({ length: range.count }, (_, i) => range.from + i);
}

/** Number of parameter combinations (1 with no parameter). */
export function combinationCount(grid: SweepGrid): number {
  return grid.parameters.reduce((product, parameter) => product * parameter.values.length, 1);
}

/** Number of cells: combinations x policies x seeds. */
export function cellCount(grid: SweepGrid): number {
  return combinationCount(grid) * grid.policies.length * grid.seeds.length;
}

/** Throws a one-line ConfigError at `where` when the grid has more than MAX_GRID_CELLS cells. */
export function checkGridSize(grid: SweepGrid, where: string): void {
  const cells = cellCount(grid);
  if (cells <= MAX_GRID_CELLS) return;
  const sizes = [`${grid.policies.length} policies`, `${grid.seeds.length} seeds`, ...grid.parameters.map((p) => `${p.values.length} values of ${p.path}`)];
  throw new ConfigError(where, `the grid has ${cells} cells (${sizes.join(' x ')}): at most ${MAX_GRID_CELLS}`);
}

/** A cell's id, also its file name: its index (zero-padded, so ids sort in grid order), policy and seed. */
export function cellId(index: number, policy: string, seed: number): string {
  return `${String(index).padStart(6, '0')}-${policy}-seed${seed}`;
}

/**
 * The cell at `index`. Order: parameter combinations outermost (the first parameter changes
 * slowest, values in the order given), then policies, then seeds (so a combination's policies run
 * on the same seeds, side by side).
 */
export function cellAt(grid: SweepGrid, index: number): GridCell {
  const seeds = grid.seeds.length;
  const policies = grid.policies.length;
  const seed = grid.seeds[index % seeds]!;
  const policy = grid.policies[Math.floor(index / seeds) % policies]!;
  const values = valueIndexes(grid, index).map((v, p) => grid.parameters[p]!.values[v]!);
  return { index, id: cellId(index, policy, seed), policy, seed, values };
}

/** Every cell in grid order. */
export function allCells(grid: SweepGrid): GridCell[] {
  return Array.from({ length: cellCount(grid) }, (_, i) => cellAt(grid, i));
}

/** A `--set` assignment giving `path` the value: written as JSON (which is YAML), so a string stays a string. */
export function assignment(path: string, value: ParameterValue): string {
  return `${path}=${JSON.stringify(value)}`;
}

/** The `--set` assignments of a cell, in parameter order. */
export function cellSets(grid: SweepGrid, cell: GridCell): string[] {
  return grid.parameters.map((parameter, p) => assignment(parameter.path, cell.values[p]!));
}

/** A cell's parameters as a mapping path -> value (parameter order), as cell files and messages show them. */
export function cellParameters(grid: SweepGrid, cell: GridCell): Record<string, ParameterValue> {
  return Object.fromEntries(grid.parameters.map((parameter, p) => [parameter.path, cell.values[p]!]));
}

/** The index of each parameter's value in the cell at `index` (grid.parameters order). */
export function valueIndexes(grid: SweepGrid, index: number): number[] {
  let combination = Math.floor(index / (grid.seeds.length * grid.policies.length));
  const indexes = new Array<number>(grid.parameters.length);
  for (let p = grid.parameters.length - 1; p >= 0; p--) {
    const count = grid.parameters[p]!.values.length;
    indexes[p] = combination % count;
    combination = Math.floor(combination / count);
  }
  return indexes;
}
