import { createReadStream, type ReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { ConfigError, TraceError } from '../errors.js';
import type { TraceReadOptions } from './trace-format.js';

/** One CSV record with its 1-based line number and typed, checked accessors that throw TraceError. */
export class CsvRow {
  constructor(
    readonly file: string,
    readonly line: number,
    private readonly cells: readonly string[],
    private readonly columns: ReadonlyMap<string, number>,
  ) {}

  /** True when the file has this column and the row a non-empty cell in it. */
  has(column: string): boolean {
    const index = this.columns.get(column);
    return index !== undefined && (this.cells[index] ?? '').trim() !== '';
  }

  /** The cell's text, trimmed; "" when empty. Throws "missing column" when the row is too short or the file lacks it. */
  text(column: string): string {
    const index = this.columns.get(column);
    if (index === undefined || index >= this.cells.length) throw this.error(column, 'missing column');
    return this.cells[index]!.trim();
  }

  /** The cell's text, or `fallback` when the column is absent or empty. */
  optionalText(column: string, fallback = ''): string {
    return this.has(column) ? this.text(column) : fallback;
  }

  /** A finite number; throws "empty" or "not a number". */
  number(column: string): number {
    const text = this.text(column);
    if (text === '') throw this.error(column, 'empty');
    const value = Number(text);
    if (!Number.isFinite(value)) throw this.error(column, 'not a number', text);
    return value;
  }

  /** A finite number, or `fallback` when the column is absent or empty. */
  optionalNumber(column: string, fallback: number): number {
    return this.has(column) ? this.number(column) : fallback;
  }

  /** A non-negative number; throws "negative" for values below zero (timestamps: "negative time"). */
  nonNegative(column: string, reason = 'negative'): number {
    const value = this.number(column);
    if (value < 0) throw this.error(column, reason, this.text(column));
    return value;
  }

  /** A TraceError at this row. */
  error(column: string, reason: string, value?: string): TraceError {
    return new TraceError(this.file, this.line, column, reason, value);
  }
}

/** Where the column names come from: the file's first line, or a fixed list for headerless files. */
export type CsvHeader = { readonly kind: 'first-line' } | { readonly kind: 'fixed'; readonly columns: readonly string[] };

/**
 * Streams a CSV file's records as CsvRows (memory stays flat however large the file). Records with
 * a different cell count than the header are still passed on: accessors report "missing column".
 */
export async function* csvRows(file: string, header: CsvHeader): AsyncGenerator<CsvRow> {
  let input: ReadStream | undefined;
  let columns: Map<string, number> | null =
    header.kind === 'fixed' ? new Map(header.columns.map((name, i) => [name, i])) : null;
  try {
    input = createReadStream(file);
    const parser = parse({ relax_column_count: true, skip_empty_lines: true, info: true, bom: true });
    // pipe() does not pass a read error (a missing file) on: hand it to the parser so the loop throws it.
    input.on('error', (error) => parser.destroy(error));
    input.pipe(parser);
    for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (columns === null) {
        columns = new Map(record.record.map((name, i) => [name.trim(), i]));
        continue;
      }
      yield new CsvRow(file, record.info.lines, record.record, columns);
    }
  } catch (error) {
    throw fileError(file, error);
  } finally {
    // A reader that stops early (a limit, a strict stop) leaves the rest unread: close the file.
    input?.destroy();
  }
}

/** Turns a failure to read or parse a file into a user error naming the file (and line when known). */
export function fileError(file: string, error: unknown): Error {
  if (error instanceof TraceError || error instanceof ConfigError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ConfigError(file, 'no such file');
  if (code === 'EISDIR') return new ConfigError(file, 'is a directory, not a trace file');
  const lines = (error as { lines?: number }).lines;
  if (typeof lines === 'number') return new TraceError(file, lines, 'record', 'malformed CSV');
  return new ConfigError(file, `cannot read the file (${code ?? (error instanceof Error ? error.message : String(error))})`);
}

/**
 * Applies the bad-row policy around one row's conversion: returns the value, or null when the row
 * was bad and skipped (reported to `onSkip`); in strict mode the TraceError propagates.
 */
export function convertRow<T>(options: TraceReadOptions, convert: () => T): T | null {
  try {
    return convert();
  } catch (error) {
    if (!(error instanceof TraceError) || options.strict) throw error;
    options.onSkip(error);
    return null;
  }
}
