/** The dlsim package version, read once from its package.json. */
import { readFileSync } from 'node:fs';

let cached: string | null = null;

/** The version in dlsim's package.json (src/ and dist/ alike sit one folder below the package root). */
export function dlsimVersion(): string {
  if (cached === null) {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    cached = String((JSON.parse(text) as { version?: unknown }).version ?? '0.0.0');
  }
  return cached;
}
