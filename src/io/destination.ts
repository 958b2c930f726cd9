/** Checks of an output path (`--out`) made before anything is computed or written. */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * Throws a ConfigError at `option` unless `path` can become a regular file: not empty, not a
 * folder or a special file (device, pipe, socket), not one of `inputs`, and inside a folder that
 * exists or can be made and is writable.
 */
export function checkOutFile(path: string, option: string, inputs: readonly string[] = []): void {
  const target = nonEmpty(path, option);
  const stats = statOrNull(target);
  if (stats !== null) {
    if (stats.isDirectory()) throw new ConfigError(option, `${path}: is a folder, expected a file`);
    if (!stats.isFile()) throw new ConfigError(option, `${path}: is not a regular file (a device, pipe or socket); refusing to replace it`);
    for (const input of inputs) {
      const inputStats = statOrNull(input);
      if (inputStats !== null && inputStats.dev === stats.dev && inputStats.ino === stats.ino) {
        throw new ConfigError(option, `${path}: is also an input file; refusing to overwrite it`);
      }
    }
  }
  checkWritableFolder(dirname(target), path, option);
}

/** Throws a ConfigError at `option` unless `path` is, or can become, a writable folder. */
export function checkOutDir(path: string, option: string): void {
  const target = nonEmpty(path, option);
  const stats = statOrNull(target);
  if (stats !== null && !stats.isDirectory()) throw new ConfigError(option, `${path}: is not a folder`);
  checkWritableFolder(target, path, option);
}

function nonEmpty(path: string, option: string): string {
  if (path.trim() === '') throw new ConfigError(option, 'expected a path, got ""');
  return resolve(path);
}

/** The nearest existing folder at or above `folder` must be a folder and writable (to write in it or make the rest). */
function checkWritableFolder(folder: string, shown: string, option: string): void {
  let existing = folder;
  let stats = statOrNull(existing);
  while (stats === null && dirname(existing) !== existing) {
    existing = dirname(existing);
    stats = statOrNull(existing);
  }
  if (stats === null) return;
  if (!stats.isDirectory()) throw new ConfigError(option, `${shown}: ${existing} is a file, not a folder`);
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new ConfigError(option, `${shown}: cannot write into ${existing} (${(error as NodeJS.ErrnoException).code ?? 'denied'})`);
  }
}

/** The path's stats (following links), or null when nothing is there; any other failure is reported at the path. */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') return null;
    throw new ConfigError(path, `cannot check the path (${code ?? String(error)})`);
  }
}
