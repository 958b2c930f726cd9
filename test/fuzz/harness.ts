/**
 * The fuzz harness: the run's seed (printed, replayable with DLSIM_FUZZ_SEED), a fast-check runner
 * with a wall-time budget per case, and the check every case ends with: success, or a ConfigError /
 * TraceError whose message is one line naming where the problem is; never another exception and
 * never a leftover temporary file.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ConfigError, TraceError } from '../../src/errors.js';
import { ImportStoppedError } from '../../src/workload/import.js';

/** Wall-time budget of one case, in milliseconds (a case takes a few ms; a hang is caught at this). */
export const CASE_TIME_LIMIT_MS = 5000;

let printedSeed: number | null = null;

/**
 * The seed of this fuzz run: DLSIM_FUZZ_SEED when set (to replay a failure), else fresh from the
 * clock. Printed once per test file, so a failing run can be replayed.
 */
export function fuzzSeed(): number {
  if (printedSeed !== null) return printedSeed;
  const given = process.env['DLSIM_FUZZ_SEED'];
  let seed: number;
  if (given !== undefined && given.trim() !== '') {
    seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`DLSIM_FUZZ_SEED must be an integer, got ${JSON.stringify(given)}`);
  } else {
    seed = Date.now() % 2 ** 31;
  }
  printedSeed = seed;
  console.info('fuzz seed', seed, `(replay: DLSIM_FUZZ_SEED=${seed} npx vitest run test/fuzz)`);
  return seed;
}

/** Cases run in this process, by fuzz target (each test file reports its own total). */
export const casesRun = new Map<string, number>();

/**
 * Runs `numRuns` cases of `property` from the fuzz seed (offset by `salt`, so the targets of one
 * file draw different cases), each under CASE_TIME_LIMIT_MS. A failing case throws fast-check's
 * report (seed, path, counterexample) with the replay command added. The budget stops a case that
 * waits; one that loops without waiting holds the thread until vitest's test timeout: run with
 * DLSIM_FUZZ_LOG=file to see the last case started.
 */
export async function fuzz<T>(target: string, salt: number, numRuns: number, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>): Promise<void> {
  const seed = (fuzzSeed() + salt) | 0;
  let count = 0;
  // A synchronous hang cannot be timed out: DLSIM_FUZZ_LOG=file records each case before it runs.
  const log = process.env['DLSIM_FUZZ_LOG'];
  const property = fc.asyncProperty(arbitrary, async (value) => {
    count++;
    if (log) appendFileSync(log, `${target} #${count}: ${fc.stringify(value)}\n`);
    await check(value);
  });
  try {
    await fc.assert(property, { seed, numRuns, includeErrorInReport: true, plugins: [fc.timeout(CASE_TIME_LIMIT_MS)] });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`fuzz target "${target}" failed (fuzz seed ${fuzzSeed()}; replay: DLSIM_FUZZ_SEED=${fuzzSeed()} npx vitest run test/fuzz)\n${message}`, { cause: error });
  } finally {
    casesRun.set(target, (casesRun.get(target) ?? 0) + count);
  }
}

/** Where an accepted error may point: input paths (files or folders) and CLI options. */
export interface Locations {
  /** Paths the message may name (a file, with or without :line, or a folder holding the inputs). */
  readonly paths: readonly string[];
  /** True when a `--option` or `--set …` at the start of the message is an accepted location. */
  readonly options?: boolean;
}

/**
 * Null when `error` is an accepted failure: a ConfigError or TraceError (or a strict import's stop
 * at one) whose message is a single line without a stack that names one of `where.paths` (a
 * TraceError as "file:line:") or, when allowed, starts with a `--option`. Otherwise the reason.
 */
export function rejectionProblem(error: unknown, where: Locations): string | null {
  if (!(error instanceof ConfigError || error instanceof TraceError || error instanceof ImportStoppedError)) {
    const described = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
    return `not a ConfigError or TraceError: ${described}`;
  }
  const message = error.message;
  if (message.includes('\n') || message.includes('\r')) return `message is not one line: ${JSON.stringify(message)}`;
  if (/\n\s+at /.test(error.message) || message.includes('[object Object]')) return `message holds a stack or an object: ${message}`;
  const traceError = error instanceof ImportStoppedError ? error.traceError : error instanceof TraceError ? error : null;
  if (traceError !== null) {
    if (!where.paths.some((path) => traceError.file.startsWith(path))) return `TraceError names no input file: ${message}`;
    if (!(Number.isInteger(traceError.line) && traceError.line >= 0)) return `TraceError has no line: ${message}`;
    if (!message.startsWith(`${traceError.file}:${traceError.line}: `)) return `TraceError message is not "file:line: …": ${message}`;
    return null;
  }
  if (where.options && /^--[a-z]/.test(message)) return null;
  if (where.paths.some((path) => message.includes(path))) return null;
  return `ConfigError names no input path${where.options ? ' or option' : ''}: ${message}`;
}

/** Throws when `error` is not an accepted failure (see rejectionProblem). */
export function expectAcceptedError(error: unknown, where: Locations): void {
  const problem = rejectionProblem(error, where);
  if (problem !== null) throw new Error(problem);
}

/** Runs `action`; success passes, an accepted error passes, anything else throws the reason. */
export async function expectSuccessOrAcceptedError(action: () => Promise<unknown> | unknown, where: Locations): Promise<void> {
  try {
    await action();
  } catch (error) {
    expectAcceptedError(error, where);
  }
}

/** Every file under `dir` (recursively) whose name ends in ".tmp". */
export function temporaryFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.tmp')) found.push(join(entry.parentPath, entry.name));
  }
  return found;
}

/** A scratch folder for one fuzz file's cases, with a fresh sub-folder per case. */
export class Scratch {
  readonly root = mkdtempSync(join(tmpdir(), 'dlsim-fuzz-'));
  private next = 0;

  /** A new empty folder for one case. */
  caseDir(): string {
    const dir = join(this.root, `case-${this.next++}`);
    mkdirSync(dir);
    return dir;
  }

  /** Throws when a case left a temporary file, then removes the case's folder. */
  finish(dir: string): void {
    const left = temporaryFiles(dir);
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`leftover temporary file(s): ${left.join(', ')}`);
  }

  /** Removes everything. */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
