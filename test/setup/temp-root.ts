import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the test run a temporary folder of its own, as TMPDIR for the test workers and the programs
 * the tests start, and removes it when the run ends: the fixtures tests write there go with it.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'dlsim-tests-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
}
