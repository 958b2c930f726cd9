import { readFileSync } from 'node:fs';

let version: string | null = null;

/** dlsim's version, from its package.json (read once). */
export function dlsimVersion(): string {
  if (version === null) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    version = typeof pkg.version === 'string' ? pkg.version : 'unknown';
  }
  return version;
}
