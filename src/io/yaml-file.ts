import { readFileSync } from 'node:fs';
import { type Document, LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import type { YamlPath } from './yaml-errors.js';

/** A YAML file's text; a missing, directory or unreadable file is a ConfigError naming it (`what`: "scenario file", …). */
export function readYamlText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(file, 'no such file');
    if (code === 'EISDIR') throw new ConfigError(file, `is a directory, not a ${what}`);
    throw new ConfigError(file, `cannot read the file (${code ?? String(error)})`);
  }
}

/** A YAML file parsed: the document, its line counter and its plain value. */
export interface ParsedYaml {
  readonly document: Document;
  readonly lineCounter: LineCounter;
  readonly raw: unknown;
}

/**
 * Parses a YAML file's text; a syntax problem (an error, or a warning such as an unknown tag or an
 * unsupported YAML version: as much a problem) is a ConfigError naming the file and line, and a
 * document whose value cannot be built (an alias to nothing) one naming the file.
 */
export function parseYamlFile(file: string, text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'silent', uniqueKeys: true });
  const syntaxError = document.errors[0] ?? document.warnings[0];
  if (syntaxError) throw new ConfigError(`${file}:${lineCounter.linePos(syntaxError.pos[0]).line}`, firstLine(syntaxError.message));
  try {
    return { document, lineCounter, raw: document.toJS() };
  } catch (error) {
    throw new ConfigError(file, firstLine(error instanceof Error ? error.message : String(error)));
  }
}

/** The first line of a message, trimmed (errors are one line). */
export function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/**
 * 1-based line of the node at `path` in a YAML document (a key's own line for mapping entries), or
 * null when the path is not in the document; with `deepest`, the line of its deepest existing part
 * instead (for a missing key, the mapping that lacks it).
 */
export function lineOf(document: Document, lineCounter: LineCounter, path: YamlPath, deepest = false): number | null {
  let node: unknown = document.contents;
  let offset: number | null = null;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    let next: unknown;
    let nextOffset: number | null = null;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair) {
        next = pair.value;
        nextOffset = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : null;
      }
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item !== undefined) {
        next = item;
        nextOffset = isScalar(item) || isMap(item) || isSeq(item) || isAlias(item) ? (item.range?.[0] ?? null) : null;
      }
    }
    if (next === undefined) {
      if (!deepest) return null;
      break;
    }
    node = next;
    offset = deepest ? (nextOffset ?? offset) : nextOffset;
  }
  return offset === null ? null : lineCounter.linePos(offset).line;
}

/**
 * The path of the first value that contains itself (an anchor used inside itself, `a: &x [*x]`),
 * or null: such a value has no end, and walking it would never stop.
 */
export function recursivePath(value: unknown, path: readonly (string | number)[] = [], open = new Set<object>()): (string | number)[] | null {
  if (typeof value !== 'object' || value === null) return null;
  if (open.has(value)) return [...path];
  open.add(value);
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const found = recursivePath(item, [...path, key], open);
    if (found) return found;
  }
  open.delete(value);
  return null;
}

/** The path of the first `__proto__` key in a parsed YAML value, or null: such a key could reach an object's prototype. */
export function protoKeyPath(value: unknown, path: readonly (string | number)[] = []): (string | number)[] | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = protoKeyPath(value[i], [...path, i]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return [...path, key];
      const found = protoKeyPath((value as Record<string, unknown>)[key], [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
