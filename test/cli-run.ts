/** Helpers for tests that run the built CLI or need scratch files: the spawn, a folder of files, a rejection. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository's root folder. */
export const ROOT = join(import.meta.dirname, '..');
/** The built CLI (npm run build makes it). */
export const CLI = join(ROOT, 'dist/cli/main.js');

/** What one CLI run gave: exit code, standard output and standard error. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI with `args` from the repository root and waits for it. */
export function dlsim(...args: string[]): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: ROOT });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary folder holding the given files (name → contents); returns its path. */
export function folderWith(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-test-'));
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(dir, name), contents);
  return dir;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
