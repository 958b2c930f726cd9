import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Folder of the real public traces, beside the project (CI has it; a fresh clone elsewhere may not). */
export const SHARED_TRACES = join(import.meta.dirname, '../../shared/traces');

/**
 * Path of a real trace file under ../shared/traces, or null when it is absent; prints why the
 * tests that need it will skip, so no skip is silent.
 */
export function sharedTrace(relativePath: string): string | null {
  const path = join(SHARED_TRACES, relativePath);
  if (existsSync(path)) return path;
  console.warn(`skipping tests on ${relativePath}: ${path} is absent (the real traces live in ../shared/traces)`);
  return null;
}
