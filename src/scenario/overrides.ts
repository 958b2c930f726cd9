import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import { formatYamlPath } from '../io/yaml-errors.js';
import { recursivePath } from '../io/yaml-file.js';

/** One step of a `--set` path: a key, or a list index written `[n]`. */
interface PathStep {
  readonly key: string;
  /** True when written `[n]`: the container must be a list. */
  readonly bracketed: boolean;
}

const SEGMENT_PATTERN = /^([^.[\]]+)?((?:\[\d+\])*)$/;

/** Splits `a.b[0].c` or `a.b.0.c` into steps; null when malformed. */
function parsePath(pathText: string): PathStep[] | null {
  if (pathText.trim() === '') return null;
  const steps: PathStep[] = [];
  for (const segment of pathText.trim().split('.')) {
    const match = SEGMENT_PATTERN.exec(segment);
    if (!match || segment === '' || segment.startsWith('__proto__')) return null;
    if (match[1] !== undefined) steps.push({ key: match[1], bracketed: false });
    for (const index of match[2]!.match(/\d+/g) ?? []) steps.push({ key: index, bracketed: true });
  }
  return steps;
}

/** How messages name an assignment: `--set path=value`, quoted when it holds a line break or another control character. */
export function setOption(assignment: string): string {
  return `--set ${/[\u0000-\u001f\u007f]/.test(assignment) ? JSON.stringify(assignment) : assignment}`;
}

/** Splits `path=value` at the first "="; throws ConfigError naming the assignment when malformed. */
function splitAssignment(assignment: string): { steps: PathStep[]; valueText: string } {
  const where = setOption(assignment);
  const equals = assignment.indexOf('=');
  const steps = equals < 0 ? null : parsePath(assignment.slice(0, equals));
  if (steps === null) {
    throw new ConfigError(where, 'expected path=value, e.g. cluster.nodes[0].count=16');
  }
  return { steps, valueText: assignment.slice(equals + 1) };
}

/** The path an assignment sets, as plain segments ("cluster.nodes[0].count=16" -> ["cluster", "nodes", "0", "count"]). */
export function assignmentPath(assignment: string): readonly string[] {
  return splitAssignment(assignment).steps.map((step) => step.key);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'a mapping';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Applies one CLI `--set path=value` to a parsed scenario document and returns the new document
 * (the input is not modified). The path is dotted with optional indices (`cluster.nodes[0].count`,
 * `cluster.nodes.0.count`); the value is read as YAML (`16` a number, `[A100]` a list, `2h` a
 * string). Missing or null mappings on the way are created. Throws ConfigError naming
 * `--set <assignment>` for a malformed assignment, a path through a scalar or an index out of range.
 */
export function applySet(raw: unknown, assignment: string): unknown {
  const where = setOption(assignment);
  const { steps, valueText } = splitAssignment(assignment);
  // Silent: a YAML warning (an unknown tag) is reported here, on one line, like an error.
  const document = parseDocument(valueText, { prettyErrors: false, logLevel: 'silent' });
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw new ConfigError(where, `the value is not valid YAML: ${problem.message.split('\n')[0]!}`);
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw new ConfigError(where, `the value is not valid YAML: ${message}`);
  }
  if (recursivePath(value) !== null) throw new ConfigError(where, 'the value is a recursive alias (an anchor used inside itself)');
  const root: unknown = raw === null || raw === undefined ? {} : structuredClone(raw);
  if (!isPlainObject(root)) {
    throw new ConfigError(where, `the scenario is ${describe(root)}, not a mapping`);
  }

  let container: Record<string, unknown> | unknown[] = root;
  const walked: (string | number)[] = [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const isLast = i === steps.length - 1;
    const here = formatYamlPath(walked) || 'the scenario';
    let slot: string | number;
    if (Array.isArray(container)) {
      const index = /^\d+$/.test(step.key) ? Number(step.key) : NaN;
      if (Number.isNaN(index)) {
        throw new ConfigError(where, `${here} is a list: expected an index, not "${step.key}"`);
      }
      if (index >= container.length) {
        throw new ConfigError(where, `index ${index} is out of range: ${here} has ${container.length} item(s)`);
      }
      slot = index;
    } else {
      if (step.bracketed) {
        throw new ConfigError(where, `${here} is not a list, so [${step.key}] does not apply`);
      }
      slot = step.key;
    }
    walked.push(slot);
    const parent: Record<string, unknown> | unknown[] = container;
    const current: unknown = Array.isArray(parent) ? parent[slot as number] : parent[slot as string];
    if (isLast) {
      if (Array.isArray(parent)) parent[slot as number] = value;
      else parent[slot as string] = value;
      break;
    }
    if (current === undefined || current === null) {
      const next = steps[i + 1]!;
      if (next.bracketed) {
        throw new ConfigError(where, `index ${next.key} is out of range: ${formatYamlPath(walked)} does not exist`);
      }
      const created: Record<string, unknown> = {};
      if (Array.isArray(parent)) parent[slot as number] = created;
      else parent[slot as string] = created;
      container = created;
    } else if (Array.isArray(current) || isPlainObject(current)) {
      container = current;
    } else {
      throw new ConfigError(where, `cannot set inside ${formatYamlPath(walked)}: it is ${describe(current)}`);
    }
  }
  return root;
}
