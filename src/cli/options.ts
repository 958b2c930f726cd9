/** Parsing of option values the way users type them, with one-line errors naming the option. */
import { ConfigError } from '../errors.js';

/** Options that take no value but `--name` or `--name=true|false`. */
const BOOLEAN_FLAGS: ReadonlySet<string> = new Set(['strict', 'json', 'check-invariants', 'help', 'version', 'quick', 'perf', 'quiet', 'resume', 'emit-k8s-job', 'allow-partial']);

/**
 * Throws a ConfigError for `--flag=value` on a boolean flag when the value is not true or false
 * (the parser would quietly read `--strict=maybe` as false).
 */
export function checkBooleanFlags(argv: readonly string[]): void {
  for (const arg of argv) {
    if (arg === '--') return;
    const match = /^--([^=]+)=(.*)$/s.exec(arg);
    if (match && BOOLEAN_FLAGS.has(match[1]!) && match[2] !== 'true' && match[2] !== 'false') {
      throw new ConfigError(`--${match[1]}`, `expected true or false, got ${JSON.stringify(match[2])}`);
    }
  }
}

/**
 * A yargs `coerce` for a whole-number option given as text: digits only, at least `min` and at
 * most `max`; anything else (text, a fraction, a repeated option) is a ConfigError quoting what was given.
 */
export function wholeNumberOption(option: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: unknown) => number {
  const expected = min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : `an integer ≥ ${min}`;
  return (value: unknown): number => {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
      const shown = Array.isArray(value) ? `${value.length} values (give it once)` : JSON.stringify(value);
      throw new ConfigError(option, `expected ${expected}, got ${shown}`);
    }
    if (Number(text) > max) throw new ConfigError(option, `expected at most ${max}, got ${Number(text)}`);
    return Number(text);
  };
}

/** A yargs `coerce` for a string option that may be given once: a repeated one is a ConfigError. */
export function oneValueOption(option: string): (value: unknown) => string {
  return (value: unknown): string => {
    if (Array.isArray(value)) throw new ConfigError(option, `given ${value.length} times (give it once)`);
    return String(value);
  };
}

/** The values of a repeatable string option as a list (absent: empty). */
export function listOption(value: string | readonly string[] | undefined): string[] {
  return value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
}

/** A yargs `coerce` for `--seeds`: a positive integer, or `auto` (add seeds until the intervals are narrow enough). */
export function seedsOption(option: string): (value: unknown) => number | 'auto' {
  const whole = wholeNumberOption(option, 1);
  return (value: unknown): number | 'auto' => {
    if (typeof value === 'string' && value.trim() === 'auto') return 'auto';
    try {
      return whole(value);
    } catch {
      const shown = Array.isArray(value) ? `${value.length} values (give it once)` : JSON.stringify(value);
      throw new ConfigError(option, `expected a positive integer or auto, got ${shown}`);
    }
  };
}

/**
 * A yargs `coerce` for a share given as a percentage ("5%", "0.5%") or a fraction below 1 ("0.05"):
 * the share as a fraction in (0, 1). Anything else is a ConfigError quoting what was given.
 */
export function shareOption(option: string): (value: unknown) => number {
  return (value: unknown): number => {
    const text = typeof value === 'number' ? String(value) : value;
    const match = typeof text === 'string' ? /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(text) : null;
    const share = match ? Number(match[1]) / (match[2] === '%' ? 100 : 1) : Number.NaN;
    if (!(share > 0 && share < 1)) {
      const shown = Array.isArray(value) ? `${value.length} values (give it once)` : JSON.stringify(value);
      throw new ConfigError(option, `expected a percentage such as 5% or a fraction below 1 such as 0.05, got ${shown}`);
    }
    return share;
  };
}
