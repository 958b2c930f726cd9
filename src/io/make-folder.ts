import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates a folder and its missing parents, one level at a time. Node's own recursive mkdirSync
 * never returns for some paths (a missing folder under /proc answers ENOENT forever); each level
 * made here fails once, with the file system's error, instead.
 */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) mkdirSync(folder);
}
