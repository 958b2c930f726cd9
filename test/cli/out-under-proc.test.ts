import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('an output folder the system cannot create', () => {
  // Node's recursive mkdirSync never returns for a missing folder under /proc; the CLI makes folders level by level.
  it.skipIf(!existsSync('/proc/self'))('trace import and trace generate fail in one line instead of hanging', () => {
    for (const args of [
      ['trace', 'import', '--format', 'philly', '--out', '/proc/nope/x.jsonl', 'traces/samples/philly/philly_jobs.csv'],
      ['trace', 'generate', '--style', 'philly', '--jobs', '3', '--out', '/proc/nope/x.jsonl'],
    ]) {
      const run = spawnSync(process.execPath, ['dist/cli/main.js', ...args], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^dlsim: \/proc\/nope\/x\.jsonl: cannot write/);
    }
  });
});
