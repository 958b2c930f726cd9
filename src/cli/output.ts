import { isUserError } from '../errors.js';

/** Prints a JSON value as the single object on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Turns an error into the exit contract: a user error prints one line and exits 1;
 * anything else is a bug: its stack is printed and the exit code is 2.
 */
export function reportError(error: unknown): number {
  if (isUserError(error)) {
    process.stderr.write(`dlsim: ${firstLine(error.message)}\n`);
    return 1;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`dlsim: internal error (a bug; please report it with the command you ran)\n${stack}\n`);
  return 2;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
