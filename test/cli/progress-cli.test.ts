import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, dlsim, folderWith, ROOT } from '../cli-run.js';

/** The JSON a command printed, wall-clock figures taken out (they differ between any two runs). */
function withoutTimes(stdout: string): unknown {
  return JSON.parse(stdout, (key, value: unknown) => (key === 'perf' ? undefined : value));
}

const ESC = '\x1b';
const RUN = ['run', 'scenarios/quickstart.yaml', '--json'];
const COMPARE = ['compare', 'scenarios/default.yaml', '--policies', 'fifo,drf', '--seeds', '1', '--set', 'workload.synthetic.jobs=40', '--workers', '2', '--json'];

describe('progress when stderr is not a terminal', () => {
  it('run: no bar on stderr, and the same stdout with and without --quiet', () => {
    const plain = dlsim(...RUN);
    const quiet = dlsim(...RUN, '--quiet');
    expect(plain.code).toBe(0);
    expect(quiet.code).toBe(0);
    expect(plain.stderr).not.toContain(ESC);
    expect(plain.stderr).toBe(quiet.stderr);
    expect(withoutTimes(plain.stdout)).toEqual(withoutTimes(quiet.stdout));
  });

  it('compare in worker threads: no bar on stderr, and the same stdout with and without --quiet', () => {
    const plain = dlsim(...COMPARE);
    const quiet = dlsim(...COMPARE, '--quiet');
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toContain(ESC);
    expect(plain.stderr).toBe(quiet.stderr);
    expect(plain.stdout).toBe(quiet.stdout);
  });

  it('--quiet takes true or false only', () => {
    const bad = dlsim('run', 'scenarios/quickstart.yaml', '--quiet=maybe');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('dlsim: --quiet: expected true or false, got "maybe"\n');
  });
});

/** util-linux `script`, to give the CLI a terminal for stderr (absent: those tests are skipped). */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

/** Runs the CLI with stderr on a pseudo-terminal and stdout into a file; returns what the terminal showed and the file. */
function dlsimOnTerminal(args: readonly string[]): { terminal: string; stdout: string; code: number | null } {
  const out = join(folderWith({}), 'stdout.txt');
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols 150 2>/dev/null; ${[process.execPath, CLI, ...args].map(quote).join(' ')} > ${quote(out)}`;
  const result = spawnSync(SCRIPT!, ['-q', '-e', '-c', command, '/dev/null'], { encoding: 'utf8', cwd: ROOT });
  return { terminal: result.stdout, stdout: readFileSync(out, 'utf8'), code: result.status };
}

describe.skipIf(SCRIPT === undefined)('progress when stderr is a terminal', () => {
  it('compare draws the runs line and a line per worker, clears them, and prints the same stdout as without a terminal', () => {
    const shown = dlsimOnTerminal(COMPARE);
    expect(shown.code).toBe(0);
    expect(shown.terminal).toMatch(/runs +\[[=-]+\] \d\/2 runs/);
    expect(shown.terminal).toMatch(/(fifo|drf) s1 +\[/);
    // Cleared at the end: the last thing on the terminal erases the bars.
    expect(shown.terminal.trimEnd().endsWith(`${ESC}[0J`)).toBe(true);
    expect(shown.stdout).toBe(dlsim(...COMPARE).stdout);
  });

  it('--quiet draws nothing', () => {
    const quiet = dlsimOnTerminal([...COMPARE, '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.terminal).not.toContain('[');
    expect(quiet.stdout).toBe(dlsim(...COMPARE).stdout);
  });

  it('run draws its bar and prints the same stdout as without a terminal', () => {
    const shown = dlsimOnTerminal(RUN);
    expect(shown.code).toBe(0);
    expect(shown.terminal).toMatch(/fifo s1 +\[/);
    expect(withoutTimes(shown.stdout)).toEqual(withoutTimes(dlsim(...RUN).stdout));
  });
});
