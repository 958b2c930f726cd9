/** Checks a sweep's parameters against real loads of its scenario before any cell runs; problems name the sweep file's YAML path. */
import { ConfigError } from '../errors.js';
import { assignmentPath } from '../scenario/overrides.js';
import { loadScenario } from '../scenario/load.js';
import { assignment, type SweepGrid } from './grid.js';
import type { SweepFile } from './sweep-file.js';

/** Paths a sweep sets its own way, and why they cannot be swept as parameters. */
const RESERVED: readonly (readonly [first: string, reason: string])[] = [
  ['seed', 'seeds are swept by the sweep file\'s seeds'],
  ['policy', 'policies are swept by the sweep file\'s policies'],
  ['history', 'the history is read once for every cell: it cannot be swept'],
];

/** A ConfigError raised by `--set assignment` as a problem of the parameter's value in the sweep file; null when another raised it. */
function asParameterError(error: unknown, sweep: SweepFile, path: string, value: unknown, setText: string): ConfigError | null {
  if (!(error instanceof ConfigError)) return null;
  const prefix = `--set ${setText}`;
  if (error.where !== prefix && !error.where.startsWith(`${prefix}: `)) return null;
  const inScenario = error.where.slice(prefix.length).replace(/^: /, '');
  return new ConfigError(sweep.locate(['parameters', path]), `value ${JSON.stringify(value)}: ${inScenario === '' ? '' : `${inScenario}: `}${error.reason}`);
}

/**
 * Loads the scenario once with every parameter at its first value, then once per other value of
 * each parameter (the rest at their first values), under the first policy and seed: an unknown
 * path or a bad value fails here, naming the sweep file, line and parameter. Combinations are not
 * all loaded (their count is a product): a combination that fails later names its cell.
 */
export async function checkParameters(sweep: SweepFile, grid: SweepGrid, knownPolicies: readonly string[]): Promise<void> {
  for (const parameter of grid.parameters) {
    const where = sweep.locate(['parameters', parameter.path]);
    let steps: readonly string[];
    try {
      steps = assignmentPath(assignment(parameter.path, 0));
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(where, 'not a --set path: expected a dotted path like cluster.nodes[0].count');
      throw error;
    }
    const reserved = RESERVED.find(([first]) => steps[0] === first);
    if (reserved) throw new ConfigError(where, `${reserved[0]} cannot be a parameter: ${reserved[1]}`);
  }
  const load = async (chosen: readonly number[]): Promise<void> => {
    const sets = grid.parameters.map((parameter, p) => assignment(parameter.path, parameter.values[chosen[p]!]!));
    try {
      await loadScenario(sweep.scenarioFile, { policy: grid.policies[0]!, seed: grid.seeds[0]!, sets, knownPolicies });
    } catch (error) {
      for (let p = 0; p < grid.parameters.length; p++) {
        const parameter = grid.parameters[p]!;
        const mapped = asParameterError(error, sweep, parameter.path, parameter.values[chosen[p]!], sets[p]!);
        if (mapped) throw mapped;
      }
      throw error;
    }
  };
  const firsts = grid.parameters.map(() => 0);
  await load(firsts);
  for (let p = 0; p < grid.parameters.length; p++) {
    for (let v = 1; v < grid.parameters[p]!.values.length; v++) await load(firsts.map((first, q) => (q === p ? v : first)));
  }
}
