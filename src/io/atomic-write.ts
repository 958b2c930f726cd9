import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { releaseTemporary, trackTemporary } from './temporaries.js';
import { makeFolder } from './make-folder.js';

/** The temporary name a file is written under before it is renamed into place (same folder). */
export function temporaryPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
}

/**
 * Writes a file (text or bytes) atomically: to a temporary name in the same folder, then renamed over the target.
 * On failure the temporary file is removed; a file-system refusal is a ConfigError naming the path.
 */
export function writeFileAtomic(path: string, contents: string | Uint8Array): void {
  writeFilesAtomic(dirname(path), [[basename(path), contents]]);
}

/**
 * Writes files into `folder` as one set: every file goes to its temporary name first, then the
 * earlier copy of the last file (the set's marker, e.g. summary.json) is removed, then `stale` files
 * (an earlier set's that this one does not replace), then the files are renamed into place with the
 * marker last. So when the marker is present, every file beside it is from the same set; a failure
 * leaves no temporary file and no marker. Names may hold subfolders ("scaleplans/a.yaml"), made as needed.
 */
export function writeFilesAtomic(
  folder: string,
  files: readonly (readonly [name: string, contents: string | Uint8Array])[],
  stale: readonly string[] = [],
): void {
  const temporaries: string[] = [];
  try {
    makeFolder(folder);
    for (const [name, contents] of files) {
      const temporary = temporaryPath(join(folder, name));
      makeFolder(dirname(temporary));
      temporaries.push(temporary);
      trackTemporary(temporary);
      writeFileSync(temporary, contents);
    }
    const marker = files[files.length - 1];
    if (marker !== undefined && files.length > 1) rmSync(join(folder, marker[0]), { force: true });
    for (const name of stale) rmSync(join(folder, name), { force: true });
    files.forEach(([name], i) => renameSync(temporaries[i]!, join(folder, name)));
  } catch (error) {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // A file-system refusal is the user's to fix; anything else is a bug and keeps its stack.
    if (code === undefined) throw error;
    throw new ConfigError(folder, `cannot write ${files.map(([name]) => name).join(', ')} (${code})`);
  } finally {
    for (const temporary of temporaries) releaseTemporary(temporary);
  }
}
