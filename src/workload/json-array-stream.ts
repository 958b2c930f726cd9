/**
 * Streams the elements of a file that holds one top-level JSON array (the raw Philly
 * `cluster_job_log` is ~300 MB: JSON.parse of the whole file is not streaming). A small scanner
 * splits the array at commas outside strings and brackets; each element is handed on as text with
 * the line it starts on, so the caller parses (and may skip) one element at a time and memory
 * stays at about one element. Structural problems (not an array, truncated) are TraceErrors of
 * column "file"; a malformed element is only the caller's JSON.parse error.
 */
import { createReadStream } from 'node:fs';
import { TraceError } from '../errors.js';
import { fileError } from './csv-rows.js';

/** One element of a top-level JSON array: its raw JSON text (trimmed) and the 1-based line it starts on. */
export interface JsonArrayItem {
  readonly text: string;
  readonly line: number;
}

const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const BOM = 0xfeff;

function isWhitespace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === BOM;
}

/** Where the scanner is in the array. */
type ScanState = 'before-array' | 'in-array' | 'after-array';

/**
 * Streams the elements of the top-level JSON array in `file`, in order. An empty element
 * (`[1,,2]`, a trailing comma) is yielded as empty text so the caller's JSON.parse reports it.
 * Throws TraceError (column "file") when the file is not an array, is truncated or has text after
 * the array, and the fileError of a file that cannot be read.
 */
export async function* jsonArrayItems(file: string): AsyncGenerator<JsonArrayItem> {
  let state: ScanState = 'before-array';
  let line = 1;
  /** Text of the current element gathered from earlier chunks. */
  let pieces: string[] = [];
  /** Line of the current element's first non-blank character; 0 while none was seen. */
  let itemLine = 0;
  /** True after a comma: an element must follow, so `]` there yields an empty element. */
  let expectItem = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>) {
      /** Start of the current element's text within this chunk, or -1 when not inside one. */
      let from = itemLine > 0 ? 0 : -1;
      for (let i = 0; i < chunk.length; i++) {
        const code = chunk.charCodeAt(i);
        if (state === 'before-array') {
          if (code === NEWLINE) line++;
          else if (code === OPEN_BRACKET) state = 'in-array';
          else if (!isWhitespace(code)) throw new TraceError(file, line, 'file', 'not a JSON array', chunk[i]);
          continue;
        }
        if (state === 'after-array') {
          if (code === NEWLINE) line++;
          else if (!isWhitespace(code)) throw new TraceError(file, line, 'file', 'text after the array', chunk[i]);
          continue;
        }
        if (inString) {
          if (code === NEWLINE) line++;
          if (escaped) escaped = false;
          else if (code === BACKSLASH) escaped = true;
          else if (code === QUOTE) inString = false;
          continue;
        }
        if (depth === 0 && (code === COMMA || code === CLOSE_BRACKET)) {
          if (itemLine > 0 || expectItem || code === COMMA) {
            if (from >= 0) pieces.push(chunk.slice(from, i));
            yield { text: pieces.join('').trim(), line: itemLine > 0 ? itemLine : line };
          }
          pieces = [];
          itemLine = 0;
          from = -1;
          expectItem = code === COMMA;
          if (code === CLOSE_BRACKET) state = 'after-array';
          continue;
        }
        if (code === NEWLINE) line++;
        if (itemLine === 0) {
          if (isWhitespace(code)) continue;
          itemLine = line;
          from = i;
        }
        if (code === QUOTE) inString = true;
        else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
        else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth < 0) {
          throw new TraceError(file, line, 'file', 'unbalanced brackets', chunk[i]);
        }
      }
      if (from >= 0) pieces.push(chunk.slice(from));
    }
  } catch (error) {
    throw fileError(file, error);
  }
  if (state === 'before-array') throw new TraceError(file, line, 'file', 'not a JSON array');
  if (state === 'in-array') throw new TraceError(file, line, 'file', 'truncated JSON array');
}
