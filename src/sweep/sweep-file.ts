/** The sweep file (SWEEP.yaml): read, validated with zod, each problem located by file, line and YAML path. */
import { dirname, isAbsolute, join } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { firstIssue, says, yamlErrorMap, type YamlPath } from '../io/yaml-errors.js';
import { lineOf, parseYamlFile, protoKeyPath, readYamlText, recursivePath } from '../io/yaml-file.js';
import { parameterValuesSchema, type ParameterValues } from './parameter-values.js';

const seedSchema = z.int(says('expected a non-negative integer')).min(0, says('expected a non-negative integer'));
const countSchema = z.int(says('expected a positive integer')).min(1, says('expected a positive integer'));

/** How seeds are given: a count from the scenario seed, a first seed and a count, or a list. */
const seedsSchema = z.union(
  [
    countSchema,
    z.strictObject({ from: seedSchema, count: countSchema }),
    z.array(seedSchema).min(1, says('expected at least one seed')),
  ],
  says('expected a count of seeds (e.g. 5), {from: 1, count: 5} or a list of seeds'),
);

const sweepSchema = z.strictObject(
  {
    scenario: z.string(says('expected a scenario file name (relative to the sweep file)')).min(1, says('expected a scenario file name (relative to the sweep file)')),
    policies: z.array(z.string(says('expected a preset name')).min(1, says('expected a preset name')), says('expected a list of presets, e.g. [fifo, drf]')).min(1, says('expected at least one preset')).optional(),
    seeds: seedsSchema.default(3),
    parameters: z.record(z.string(), parameterValuesSchema, says('expected a mapping of --set paths to lists of values')).default({}),
  },
  says('expected a mapping with scenario, policies, seeds, parameters'),
);

/** The seeds as the sweep file gives them (resolved against the scenario seed by the grid). */
export type SeedsSpec = number | { readonly from: number; readonly count: number } | readonly number[];

/** A validated sweep file. */
export interface SweepFile {
  /** The sweep file's path as given. */
  readonly file: string;
  /** The scenario file's path, resolved against the sweep file's folder. */
  readonly scenarioFile: string;
  /** Presets to run (absent: the scenario's own policy). */
  readonly policies?: readonly string[];
  readonly seeds: SeedsSpec;
  /** Swept `--set` paths in file order, each with its values (ranges already expanded). */
  readonly parameters: readonly { readonly path: string; readonly values: ParameterValues }[];
  /** Where a YAML path of the sweep file is: "file:line: path" (the deepest existing part's line). */
  readonly locate: (path: YamlPath) => string;
}

/** Formats a sweep-file path for messages; keys holding dots or brackets (parameter paths) are quoted. */
export function formatSweepPath(path: YamlPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else {
      const key = /^[A-Za-z_][\w-]*$/.test(segment) ? segment : JSON.stringify(segment);
      text += text === '' ? key : `.${key}`;
    }
  }
  return text;
}

/** A locator of YAML paths in one document: "file:line: path". */
function locator(file: string, document: Document, lineCounter: LineCounter): (path: YamlPath) => string {
  return (path) => {
    const line = lineOf(document, lineCounter, path, true);
    const at = line === null ? file : `${file}:${line}`;
    const shown = formatSweepPath(path);
    return shown === '' ? at : `${at}: ${shown}`;
  };
}

/** Reads and validates a sweep file; every problem is a one-line ConfigError naming the file, line and YAML path. */
export function readSweepFile(file: string): SweepFile {
  const text = readYamlText(file, 'sweep file');
  const { document, lineCounter, raw } = parseYamlFile(file, text);
  const locate = locator(file, document, lineCounter);
  const recursive = recursivePath(raw);
  if (recursive) throw new ConfigError(locate(recursive), 'a recursive alias (an anchor used inside itself)');
  const proto = protoKeyPath(raw);
  if (proto) throw new ConfigError(locate(proto), 'the key "__proto__" is not allowed');
  if (raw === null || raw === undefined) throw new ConfigError(file, 'the sweep file is empty: expected a mapping with scenario, policies, seeds, parameters');
  const parsed = sweepSchema.safeParse(raw, { error: yamlErrorMap });
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new ConfigError(locate(issue.unknownKey === undefined ? issue.path : [...issue.path, issue.unknownKey]), issue.message);
  }
  const doc = parsed.data;
  return {
    file,
    scenarioFile: isAbsolute(doc.scenario) ? doc.scenario : join(dirname(file), doc.scenario),
    ...(doc.policies === undefined ? {} : { policies: doc.policies }),
    seeds: doc.seeds,
    parameters: Object.entries(doc.parameters).map(([path, values]) => ({ path, values })),
    locate,
  };
}
