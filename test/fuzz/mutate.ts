/**
 * Mutations of input files as fast-check arbitraries, so a case is a plain value that prints,
 * replays and shrinks: line and column edits for CSV, value edits inside JSON lines, byte flips,
 * truncation and re-encodings (CRLF, BOM, UTF-16, Latin-1).
 */
import fc from 'fast-check';

/** Cell texts that trip up number, time and text parsing. */
export const NASTY_CELLS: readonly string[] = [
  '', ' ', '-1', '-0', '0', '0.5', '1.5', '-1e-9', '1e308', '1e309', '-1e309', '9007199254740993', '99999999999999999999999',
  '1e21', '4294967296', '2147483648', '-2147483649', 'NaN', 'nan', 'Infinity', '-Infinity', 'inf', '0x10', '0b1', '1_000', ' 7 ',
  '１２', '٣', 'None', 'null', 'NaT', 'true', '"', '""', '"a,b"', ',', ';', '\t', '\\', '\u0000', '\uFEFF', '\uD800', '😀',
  'ä', 'Ǆ', '\u202E', 'x'.repeat(5000), '2020-02-30 00:00:00', '2020-04-01 24:00:00', '9999-12-31 23:59:59',
  '0000-01-01 00:00:00', '1970-01-01 00:00:00', '1900-01-01 00:00:00', '2020-04-01 00:00:00+99:99', '2020-04-01T00:00:00Z',
  '2020-04-01 00:00:60', '2020-04-01 00:00:00.123456789', '-5', '100', '101', '250', '1000', '1001', '129', '100000', '100001',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'CPU', 'MISC', 'P100', 'V100M32', 'worker', 'ps', 'chief',
  'evaluator', 'Pending', 'Running', 'COMPLETED',
];

/** JSON values that trip up field checks. */
export const NASTY_JSON: readonly unknown[] = [
  null, true, false, 0, -1, -0, 0.5, 1e308, -1e308, 9007199254740993, 1e21, 4294967296, '', ' ', 'x', '1', '-1', 'NaN', '😀',
  '\u0000', '\uD800', [], [null], [[]], {}, { kind: 'fixed' }, { role: 'worker' }, '2017-10-01 00:00:00', '2017-02-30 00:00:00',
  'None', '__proto__', 'x'.repeat(5000), [1, 2, 3], { gpus: [] }, { gpus: 'gpu0' }, { ip: 'm0', gpus: ['a', 'b'] },
];

/** One edit of a text file, addressed by numbers taken modulo the file's size. */
export type Mutation =
  | { readonly op: 'flip'; readonly at: number; readonly bit: number }
  | { readonly op: 'insertBytes'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'dropLine'; readonly line: number }
  | { readonly op: 'dupLine'; readonly line: number }
  | { readonly op: 'swapLines'; readonly a: number; readonly b: number }
  | { readonly op: 'insertLine'; readonly line: number; readonly text: string }
  | { readonly op: 'dropColumn'; readonly column: number; readonly line: number | null }
  | { readonly op: 'swapColumns'; readonly a: number; readonly b: number; readonly line: number | null }
  | { readonly op: 'setCell'; readonly line: number; readonly column: number; readonly text: string }
  | { readonly op: 'jsonSet'; readonly line: number; readonly pick: readonly number[]; readonly value: unknown }
  | { readonly op: 'jsonDelete'; readonly line: number; readonly pick: readonly number[] }
  | { readonly op: 'jsonRename'; readonly line: number; readonly pick: readonly number[]; readonly name: string };

/** How the mutated text is written to disk. */
export type Encoding = 'utf8' | 'bom' | 'crlf' | 'cr' | 'utf16le' | 'utf16be' | 'latin1' | 'no-final-newline' | 'blank-lines';

const ENCODINGS: readonly Encoding[] = ['utf8', 'bom', 'crlf', 'cr', 'utf16le', 'utf16be', 'latin1', 'no-final-newline', 'blank-lines'];

/** A cell text: mostly a nasty one, sometimes a random number or string. */
export const cellText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_CELLS) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

/** A JSON value: mostly a nasty one, sometimes random JSON. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_JSON) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: cellText },
);

const lineRef = fc.nat({ max: 200 });
const someLine = fc.option(lineRef, { nil: null, freq: 2 });
const pick = fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 });

/** Line and cell edits of CSV files. */
const csvMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('dropLine' as const), line: lineRef }),
  fc.record({ op: fc.constant('dupLine' as const), line: lineRef }),
  fc.record({ op: fc.constant('swapLines' as const), a: lineRef, b: lineRef }),
  fc.record({ op: fc.constant('insertLine' as const), line: lineRef, text: fc.array(cellText, { maxLength: 14 }).map((cells) => cells.join(',')) }),
  fc.record({ op: fc.constant('dropColumn' as const), column: fc.nat({ max: 20 }), line: someLine }),
  fc.record({ op: fc.constant('swapColumns' as const), a: fc.nat({ max: 20 }), b: fc.nat({ max: 20 }), line: someLine }),
  { arbitrary: fc.record({ op: fc.constant('setCell' as const), line: lineRef, column: fc.nat({ max: 20 }), text: cellText }), weight: 4 },
);

/** Value edits inside JSON lines (or JSON array elements written one per line). */
const jsonMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('jsonSet' as const), line: lineRef, pick, value: jsonValue }), weight: 4 },
  fc.record({ op: fc.constant('jsonDelete' as const), line: lineRef, pick }),
  fc.record({ op: fc.constant('jsonRename' as const), line: lineRef, pick, name: fc.constantFrom('x', '', '__proto__', 'id', 'jobid', 'gpus', 'roles') }),
  fc.record({ op: fc.constant('dropLine' as const), line: lineRef }),
  fc.record({ op: fc.constant('dupLine' as const), line: lineRef }),
  fc.record({ op: fc.constant('swapLines' as const), a: lineRef, b: lineRef }),
);

/** Byte-level damage. */
const byteMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat({ max: 7 }) }),
  fc.record({ op: fc.constant('insertBytes' as const), at: fc.nat(), bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 8 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

/** A list of edits and an encoding for a file of the given kind. */
export interface FileMutation {
  readonly edits: readonly Mutation[];
  readonly encoding: Encoding;
}

/** Mutations of a CSV file (kind "csv") or a JSON-per-line file (kind "json"). */
export function fileMutation(kind: 'csv' | 'json'): fc.Arbitrary<FileMutation> {
  const edit = fc.oneof({ arbitrary: kind === 'csv' ? csvMutation : jsonMutation, weight: 4 }, { arbitrary: byteMutation, weight: 1 });
  return fc.record({
    edits: fc.array(edit, { minLength: 1, maxLength: 4 }),
    encoding: fc.oneof({ arbitrary: fc.constant<Encoding>('utf8'), weight: 3 }, { arbitrary: fc.constantFrom(...ENCODINGS), weight: 2 }),
  });
}

/** Applies the edits, then the encoding; returns the bytes to write. */
export function applyFileMutation(text: string, mutation: FileMutation): Buffer {
  const lines = text.replace(/\n$/, '').split('\n');
  let bytes: Buffer | null = null;
  for (const edit of mutation.edits) {
    if (edit.op === 'flip' || edit.op === 'insertBytes' || edit.op === 'truncate') continue;
    applyLineEdit(lines, edit);
  }
  bytes = encode(`${lines.join('\n')}\n`, mutation.encoding);
  for (const edit of mutation.edits) {
    if (edit.op === 'flip' && bytes.length > 0) {
      const at = edit.at % bytes.length;
      bytes[at] = bytes[at]! ^ (1 << edit.bit);
    } else if (edit.op === 'insertBytes') {
      const at = edit.at % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(edit.bytes), bytes.subarray(at)]);
    } else if (edit.op === 'truncate') {
      bytes = bytes.subarray(0, edit.at % (bytes.length + 1));
    }
  }
  return bytes;
}

function encode(text: string, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'bom':
      return Buffer.from(`\uFEFF${text}`, 'utf8');
    case 'crlf':
      return Buffer.from(text.replace(/\n/g, '\r\n'), 'utf8');
    case 'cr':
      return Buffer.from(text.replace(/\n/g, '\r'), 'utf8');
    case 'utf16le':
      return Buffer.from(`\uFEFF${text}`, 'utf16le');
    case 'utf16be':
      return Buffer.from(`\uFEFF${text}`, 'utf16le').swap16();
    case 'latin1':
      return Buffer.from(text, 'latin1');
    case 'no-final-newline':
      return Buffer.from(text.replace(/\n$/, ''), 'utf8');
    case 'blank-lines':
      return Buffer.from(text.replace(/\n/g, '\n\n  \n'), 'utf8');
  }
}

function applyLineEdit(lines: string[], edit: Mutation): void {
  const n = lines.length;
  const at = (line: number): number => line % Math.max(n, 1);
  switch (edit.op) {
    case 'dropLine':
      if (n > 0) lines.splice(at(edit.line), 1);
      return;
    case 'dupLine':
      if (n > 0) lines.splice(at(edit.line), 0, lines[at(edit.line)]!);
      return;
    case 'swapLines': {
      if (n === 0) return;
      const [a, b] = [at(edit.a), at(edit.b)];
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return;
    }
    case 'insertLine':
      lines.splice(edit.line % (n + 1), 0, edit.text);
      return;
    case 'dropColumn':
    case 'swapColumns':
    case 'setCell':
      for (let i = 0; i < n; i++) {
        if ('line' in edit && edit.line !== null && i !== at(edit.line)) continue;
        lines[i] = editCells(lines[i]!, edit);
      }
      return;
    case 'jsonSet':
    case 'jsonDelete':
    case 'jsonRename':
      if (n > 0) lines[at(edit.line)] = editJsonLine(lines[at(edit.line)]!, edit);
      return;
    default:
      return;
  }
}

function editCells(line: string, edit: Mutation): string {
  const cells = line.split(',');
  const index = (column: number): number => column % cells.length;
  if (edit.op === 'dropColumn') cells.splice(index(edit.column), 1);
  else if (edit.op === 'swapColumns') {
    const [a, b] = [index(edit.a), index(edit.b)];
    [cells[a], cells[b]] = [cells[b]!, cells[a]!];
  } else if (edit.op === 'setCell') cells[index(edit.column)] = edit.text;
  return cells.join(',');
}

/**
 * Edits the JSON value on one line (a trailing comma, as in a JSON array written one element per
 * line, is kept): `pick` walks down by index into keys or items; the last step is set, deleted or
 * renamed. A line that is not JSON is left as it is.
 */
function editJsonLine(line: string, edit: Mutation & { pick: readonly number[] }): string {
  const trailing = /,\s*$/.test(line) ? ',' : '';
  let value: unknown;
  try {
    value = JSON.parse(trailing ? line.replace(/,\s*$/, '') : line);
  } catch {
    return line;
  }
  if (typeof value !== 'object' || value === null) return line;
  let container = value as Record<string, unknown> | unknown[];
  for (let step = 0; step < edit.pick.length; step++) {
    const keys = Object.keys(container);
    if (keys.length === 0) break;
    const key = keys[edit.pick[step]! % keys.length]!;
    const isLast = step === edit.pick.length - 1;
    const child = (container as Record<string, unknown>)[key];
    if (!isLast && typeof child === 'object' && child !== null) {
      container = child as Record<string, unknown> | unknown[];
      continue;
    }
    const record = container as Record<string, unknown>;
    if (edit.op === 'jsonSet') record[key] = edit.value;
    else if (edit.op === 'jsonDelete') {
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete record[key];
    } else if (edit.op === 'jsonRename' && !Array.isArray(container)) {
      const moved = record[key];
      delete record[key];
      Object.defineProperty(record, edit.name, { value: moved, enumerable: true, writable: true, configurable: true });
    }
    break;
  }
  return `${JSON.stringify(value)}${trailing}`;
}
