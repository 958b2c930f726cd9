import { acmeFormat } from './formats/acme.js';
import { alibabaGpu2023Format } from './formats/alibaba-gpu-2023.js';
import { alibabaPai2020Format } from './formats/alibaba-pai-2020.js';
import { alibabaSpot2026Format } from './formats/alibaba-spot-2026.js';
import { alibabaPaiSimFormat } from './formats/alibaba-pai-sim.js';
import { heliosFormat } from './formats/helios.js';
import { nativeFormat } from './formats/native.js';
import { phillyFormat } from './formats/philly.js';
import type { TraceFormat } from './trace-format.js';

/** Trace formats by id: one line each. */
export const traceFormats: Readonly<Record<string, TraceFormat>> = {
  native: nativeFormat,
  'alibaba-gpu-2023': alibabaGpu2023Format,
  'alibaba-pai-2020': alibabaPai2020Format,
  'alibaba-spot-2026': alibabaSpot2026Format,
  'alibaba-pai-sim': alibabaPaiSimFormat,
  philly: phillyFormat,
  helios: heliosFormat,
  acme: acmeFormat,
};

/** Ids of all trace formats, in declaration order. */
export function traceFormatIds(): string[] {
  return Object.keys(traceFormats);
}

/** The trace format registered under `id`, or undefined (only the registry's own entries, never an inherited name like "constructor"). */
export function traceFormatById(id: string): TraceFormat | undefined {
  return Object.hasOwn(traceFormats, id) ? traceFormats[id] : undefined;
}
