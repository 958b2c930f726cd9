/** Base class of every error dlsim raises on purpose. */
export class SimError extends Error {
  override name = 'SimError';
}

/** The text with its line breaks written as \n and \r, so that a message naming a user's value stays one line. */
export function oneLine(text: string): string {
  return text.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/** A user error in a scenario or option, located by file and YAML path (and line when known). */
export class ConfigError extends SimError {
  override name = 'ConfigError';
  /** @param where "file.yaml:12: cluster.nodes[1].gpus" or just a file or option name. */
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(oneLine(where ? `${where}: ${reason}` : reason));
  }
}

/** A bad row in a trace file, located by file and line; `column: reason` is what bad rows are counted by. */
export class TraceError extends SimError {
  override name = 'TraceError';
  /**
   * @param reason a short fixed phrase ("not a number", "negative time", "missing column") so rows can be counted by it
   * @param value the offending text, when there is one
   */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string,
    readonly reason: string,
    readonly value?: string,
  ) {
    super(oneLine(`${file}:${line}: ${column}: ${reason}${value === undefined ? '' : ` (${JSON.stringify(value)})`}`));
  }

  /** The key bad rows are counted by: "column: reason". */
  get countKey(): string {
    return `${this.column}: ${this.reason}`;
  }
}

/** A broken internal invariant: a bug in dlsim, never a user error. */
export class InvariantError extends SimError {
  override name = 'InvariantError';
}

/** True when the error is the user's to fix (exit code 1), false when it is a bug (exit code 2). */
export function isUserError(error: unknown): error is SimError {
  return error instanceof SimError && !(error instanceof InvariantError);
}

/** Exhaustiveness check for switches over discriminated unions: reaching it is a bug. */
export function assertNever(value: never): never {
  throw new InvariantError(`unexpected value ${JSON.stringify(value)}`);
}
