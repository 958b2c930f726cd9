import { nativeFormat } from './formats/native.js';
import type { TraceFormat } from './trace-format.js';

/** Trace formats by id: one line each. */
export const traceFormats: Readonly<Record<string, TraceFormat>> = {
  native: nativeFormat,
};

/** Ids of all trace formats, in declaration order. */
export function traceFormatIds(): string[] {
  return Object.keys(traceFormats);
}
