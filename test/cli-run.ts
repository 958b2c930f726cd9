/** Helpers for tests that run the built CLI or need scratch files: the spawn, a folder of files, a rejection. */
import { spawnSync, type ChildProcess } from 'node:child_process';
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

/**
 * Waits `waitMs`, sends `signal` to the child and resolves with how it ended (the signal that
 * ended it, or its exit code as text) and the milliseconds from the signal to its end.
 */
export async function interrupt(child: ChildProcess, waitMs: number, signal: NodeJS.Signals): Promise<{ endedBy: string; afterMs: number }> {
  const ended = new Promise<{ endedBy: string; atMs: number }>((done) => child.on('exit', (code, by) => done({ endedBy: by ?? String(code), atMs: performance.now() })));
  await new Promise((done) => setTimeout(done, waitMs));
  const sentMs = performance.now();
  child.kill(signal);
  const { endedBy, atMs } = await ended;
  return { endedBy, afterMs: atMs - sentMs };
}

/** Checks every 25 ms until `check` holds or `timeoutMs` pass; resolves with whether it held. */
export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (let waitedMs = 0; waitedMs < timeoutMs; waitedMs += 25) {
    await new Promise((done) => setTimeout(done, 25));
    if (check()) return true;
  }
  return false;
}
