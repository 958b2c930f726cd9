import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';

/** Writes a file atomically: to a temporary name in the same folder, then renamed over the target. */
export function writeFileAtomic(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}
