import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { readYamlText } from '../io/yaml-file.js';

/**
 * The data files a scenario reads that are absent (a replayed trace, a machine list, a fault
 * trace), resolved against the scenario's folder. A scenario whose data lives outside the
 * repository (../shared/traces) cannot run without it: the bench skips it and says why.
 * Malformed documents give no paths here; loading the scenario reports them.
 */
export function missingInputs(file: string): string[] {
  let raw: unknown;
  try {
    raw = parse(readYamlText(file, 'scenario file'), { logLevel: 'silent' });
  } catch {
    return [];
  }
  const named: string[] = [];
  const at = (value: unknown, ...keys: string[]): unknown => keys.reduce((node, key) => (isRecord(node) ? node[key] : undefined), value);
  const files = at(raw, 'workload', 'trace', 'files');
  for (const path of Array.isArray(files) ? files : [files]) if (typeof path === 'string') named.push(path);
  for (const path of [at(raw, 'cluster', 'from', 'file'), at(raw, 'faults', 'trace', 'file')]) if (typeof path === 'string') named.push(path);
  return named.map((path) => resolve(dirname(file), path)).filter((path) => !existsSync(path));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
