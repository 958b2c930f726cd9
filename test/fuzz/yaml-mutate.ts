/**
 * Mutations of YAML documents (scenarios, fault catalogs) as fast-check arbitraries: edits of the
 * parsed value at a picked path (set, delete, rename a key) written back as YAML, and edits of the
 * text (lines, indentation, YAML-only constructs, bytes, encodings).
 */
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { applyFileMutation, NASTY_CELLS, type FileMutation } from './mutate.js';

/** Values that trip up scenario and catalog checks. */
export const NASTY_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, -0, 0.5, 1.5, 1e-9, 1e308, -1e308, Infinity, -Infinity, NaN, 2 ** 53 + 1, 128, 129, 4096, 65536,
  100_000, 100_001, 1_000_000, 10_000_001, 1e12, 1e13, '', ' ', 'x', '0', '-1', '1h', '-1h', '0s', '90s', '15m', '2d', '1e400s',
  '101y', '100y', 'NaNs', '1h30m', 'fifo', 'drf', 'dlrover', 'A100', 'ant-2023', 'none', 'crash', 'gpu-down', 'slowdown',
  'batch', 'allreduce', 'ps', 'llm', 'worker', 'native', 'philly', 'helios', '__proto__', 'constructor', 'x'.repeat(2000),
  '😀', '\u0000', '\uD800', [], [null], ['A100', 7], [[]], {}, { min: 5, max: 1 }, { kind: 'fixed', seconds: -1 },
  { kind: 'slowdown', factor: 2 }, { kind: 'lognormal', medianS: '1h', sigma: -1 }, { 1: 0.5, 2: -1 }, { 0: 0 }, { a100: 1 },
];

/** Keys a mutation may rename a key to. */
const KEY_NAMES = ['x', '', '__proto__', 'constructor', 'toString', 'nodes', 'jobs', 'count', 'id', '0', 'types', 'name', '😀'];

/** YAML-only text: tags, anchors, aliases, merge keys, directives, several documents, tabs. */
const YAML_LINES = [
  'x: !!binary aGk=', 'x: !foo bar', 'x: !!timestamp 2001-12-14', 'x: &a [1, *a]', 'x: *missing', '<<: {a: 1}', '? [a]',
  '%YAML 1.1', '---', '...', '\tx: 1', 'x: |', 'x: >-', '- - -', '{', '[', ']', '"', "'", 'x: "\\u00"', '&a a: 1',
  'a: &a [1, 2]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'x: 0x1F', 'x: 0o17', 'x: 1_000', 'x: .inf', 'x: -.inf', 'x: .nan', 'x: ~', 'x: 2001-12-14t21:59:43.10-05:00', '__proto__: {a: 1}',
  ...NASTY_CELLS.slice(0, 40).map((cell) => `x: ${cell}`),
];

/** One edit of a YAML document. */
export type YamlEdit =
  | { readonly op: 'set'; readonly pick: readonly number[]; readonly value: unknown }
  | { readonly op: 'delete'; readonly pick: readonly number[] }
  | { readonly op: 'rename'; readonly pick: readonly number[]; readonly name: string }
  | { readonly op: 'indent'; readonly line: number; readonly by: number }
  | { readonly op: 'insertYaml'; readonly line: number; readonly text: string };

/** Edits of a YAML document and of its text, in that order. */
export interface YamlMutation {
  readonly edits: readonly YamlEdit[];
  readonly text: FileMutation | null;
}

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_VALUES) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);
const pick = fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 6 });

const yamlEdit: fc.Arbitrary<YamlEdit> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), pick, value }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), pick, name: fc.constantFrom(...KEY_NAMES) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('indent' as const), line: fc.nat({ max: 300 }), by: fc.integer({ min: -4, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('insertYaml' as const), line: fc.nat({ max: 300 }), text: fc.constantFrom(...YAML_LINES) }) },
);

/** Mutations of a YAML document; text edits reuse the CSV line edits (lines, bytes, encodings). */
export function yamlMutation(textMutation: fc.Arbitrary<FileMutation>): fc.Arbitrary<YamlMutation> {
  return fc.record({
    edits: fc.array(yamlEdit, { minLength: 1, maxLength: 3 }),
    text: fc.option(textMutation, { nil: null, freq: 3 }),
  });
}

/** Applies a YAML mutation to a document's text; returns the bytes to write. */
export function applyYamlMutation(text: string, mutation: YamlMutation): Buffer {
  const structural = mutation.edits.filter((edit) => edit.op === 'set' || edit.op === 'delete' || edit.op === 'rename');
  let out = text;
  if (structural.length > 0) {
    const root = safeParse(text);
    for (const edit of structural) editValue(root, edit);
    out = stringify(root, { aliasDuplicateObjects: false });
  }
  const lines = out.split('\n');
  for (const edit of mutation.edits) {
    if (edit.op === 'indent' && lines.length > 0) {
      const at = edit.line % lines.length;
      lines[at] = edit.by >= 0 ? `${' '.repeat(edit.by)}${lines[at]}` : lines[at]!.replace(new RegExp(`^ {0,${-edit.by}}`), '');
    } else if (edit.op === 'insertYaml') {
      lines.splice(edit.line % (lines.length + 1), 0, edit.text);
    }
  }
  out = lines.join('\n');
  return mutation.text === null ? Buffer.from(out, 'utf8') : applyFileMutation(out, mutation.text);
}

/** The document's value, or an empty mapping when the text does not parse. */
function safeParse(text: string): unknown {
  try {
    return parse(text) as unknown;
  } catch {
    return {};
  }
}

/** Walks down `pick` (indices into keys or items) and edits the last step. */
function editValue(root: unknown, edit: YamlEdit & { pick: readonly number[] }): void {
  let container = root;
  for (let step = 0; step < edit.pick.length; step++) {
    if (typeof container !== 'object' || container === null) return;
    const keys = Object.keys(container);
    if (keys.length === 0) {
      if (edit.op === 'set' && !Array.isArray(container)) (container as Record<string, unknown>)['x'] = edit.value;
      return;
    }
    const key = keys[edit.pick[step]! % keys.length]!;
    const child = (container as Record<string, unknown>)[key];
    const isLast = step === edit.pick.length - 1 || typeof child !== 'object' || child === null;
    if (!isLast) {
      container = child;
      continue;
    }
    const record = container as Record<string, unknown>;
    if (edit.op === 'set') record[key] = structuredClone(edit.value);
    else if (edit.op === 'delete') {
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete record[key];
    } else if (edit.op === 'rename' && !Array.isArray(container)) {
      const moved = record[key];
      delete record[key];
      Object.defineProperty(record, edit.name, { value: moved, enumerable: true, writable: true, configurable: true });
    }
    return;
  }
}
