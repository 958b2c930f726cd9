import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { casesRun, fuzz, fuzzSeed, Scratch } from './harness.js';
import { NASTY_CELLS } from './mutate.js';
import { SAMPLES } from './scenario-seeds.js';

/** Cases run in this process through `main` (the CLI's parser and commands). */
const IN_PROCESS_RUNS = 1300;
/** Cases run by spawning the built CLI, to check the in-process cases stand for it. */
const SPAWNED_RUNS = 24;
const CLI = join(import.meta.dirname, '../../dist/cli/main.js');

const scratch = new Scratch();
fuzzSeed();

afterAll(() => {
  scratch.dispose();
  console.info('fuzz cases (command line):', [...casesRun].map(([name, count]) => `${name} ${count}`).join(', '));
});

/** A scenario small enough to run in a few milliseconds. */
const TINY = `cluster:
  nodes:
    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512}
workload:
  jobs:
    - {id: a, gpus: 4, duration: 1h}
    - {id: b, submit: 10m, gpus: 8, duration: 30m}
`;

/** A word of the command line that names a path, resolved against the case's folder when it starts with "@". */
const PATHS = [
  '@tiny.yaml', '@tiny.yaml', '@missing.yaml', '@', '@folder', '@file.txt', '@file.txt/x', '@out', '@out/deeper/x.jsonl', '@out.jsonl',
  '@folder/out.jsonl', '@tiny.yaml/out', '/dev/null', '/proc/self/status', '/proc/nope/x', '', ' ', '-', '--', '.', '..', 'x'.repeat(5000),
  `@${'d/'.repeat(300)}x`, 'a\u0000b', '😀.yaml', join(SAMPLES, 'helios/cluster_log.csv'), join(SAMPLES, 'native/philly.jsonl'),
  join(SAMPLES, 'philly/cluster_job_log.json'), join(SAMPLES, 'alibaba-pai-2020/pai_job_table.csv'), join(SAMPLES, 'alibaba-pai-2020/pai_task_table.csv'),
];

/** Option names, with the values each is tried with (paths as above). */
const OPTIONS: Readonly<Record<string, readonly string[]>> = {
  '--policy': ['fifo', 'drf', 'dlrover', 'nope', '', 'FIFO', '__proto__'],
  '--policies': ['fifo', 'fifo,drf', 'fifo,fifo', ',', '', 'nope', 'fifo,,drf'],
  '--seed': ['0', '1', '-1', '1.5', 'x', '', '9007199254740993', '1e3', ' 2 '],
  '--seeds': ['1', '2', '0', '-1', 'x', '1e3', ''],
  // Workers beyond 1 start worker threads from the built files; in-process cases keep to one.
  '--workers': ['1', '0', '-1', 'x', '1.5', ''],
  '--set': ['seed=2', 'sim.horizon=1h', 'cluster.nodes[0].count=2', 'cluster.nodes[5].count=1', 'x=1', '=', 'seed', 'a\nb=1', 'workload.jobs[0].gpus=-1', '__proto__.x=1'],
  '--out': PATHS,
  '--format': ['native', 'helios', 'philly', 'acme', 'alibaba-gpu-2023', 'alibaba-pai-2020', 'nope', '', 'NATIVE'],
  '--limit': ['1', '3', '0', '-1', 'x', '1.5', ''],
  '--style': ['philly', 'alibaba-pai', 'ant', 'nope', ''],
  '--jobs': ['1', '5', '0', '-1', 'x', '10000001', '1e3', ''],
  '--json': [],
  '--strict': [],
  '--check-invariants': [],
  '--json=maybe': [],
  '--strict=false': [],
  '--bogus': ['1'],
  '-x': [],
};

const COMMANDS: readonly (readonly string[])[] = [
  ['run'], ['run'], ['compare'], ['list'], ['trace', 'import'], ['trace', 'import'], ['trace', 'inspect'], ['trace', 'generate'], ['trace'], [], ['nope'], ['trace', 'nope'],
];

/** One command line, as choices that the case's folder turns into words. */
const commandLine = fc.record({
  command: fc.constantFrom(...COMMANDS),
  positionals: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PATHS) }, { weight: 1, arbitrary: fc.constantFrom(...NASTY_CELLS) }), { maxLength: 3 }),
  options: fc.array(
    fc.record({ name: fc.constantFrom(...Object.keys(OPTIONS)), value: fc.nat(), equals: fc.boolean() }),
    { maxLength: 5 },
  ),
  shuffle: fc.nat(),
});

/** One drawn command line. */
type CommandLine = typeof commandLine extends fc.Arbitrary<infer T> ? T : never;

/** The words of a command line for a case folder (which holds tiny.yaml, folder/, file.txt). */
function argvOf(line: CommandLine, dir: string): string[] {
  const path = (word: string): string => (word.startsWith('@') ? join(dir, word.slice(1)) : word);
  const words: string[] = [...line.command];
  const rest: string[][] = line.positionals.map((word) => [path(word)]);
  for (const { name, value, equals } of line.options) {
    const values = OPTIONS[name]!;
    if (values.length === 0) rest.push([name]);
    else {
      const chosen = path(values[value % values.length]!);
      rest.push(equals ? [`${name}=${chosen}`] : [name, chosen]);
    }
  }
  // Positionals and options in any order.
  const k = rest.length > 0 ? line.shuffle % rest.length : 0;
  return [...words, ...rest.slice(k).flat(), ...rest.slice(0, k).flat()];
}

/** A fresh case folder with the files the command lines name. */
function caseFolder(): string {
  const dir = scratch.caseDir();
  writeFileSync(join(dir, 'tiny.yaml'), TINY);
  writeFileSync(join(dir, 'file.txt'), 'not a scenario\n');
  mkdirSync(join(dir, 'folder'));
  return dir;
}

/** Runs `main` in this process with stdout and stderr captured. */
async function runInProcess(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  try {
    const code = await main(argv);
    return { code, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Throws unless the exit follows the contract: 0, or 1 with exactly one "dlsim: …" line on stderr (warnings aside). */
function checkExit(argv: readonly string[], code: number | null, stderr: string): void {
  const shown = JSON.stringify(argv);
  if (code === 0) return;
  if (code !== 1) throw new Error(`exit ${code} for ${shown}:\n${stderr}`);
  const lines = stderr.trimEnd().split('\n').filter((line) => !line.startsWith('dlsim: warning: '));
  if (lines.length !== 1 || !lines[0]!.startsWith('dlsim: ')) throw new Error(`exit 1 without one error line for ${shown}:\n${stderr}`);
  if (/\n\s+at /.test(stderr)) throw new Error(`a stack for ${shown}:\n${stderr}`);
}

/** Forces one worker on `compare` (the in-process CLI cannot start worker threads from source files). */
function oneWorker(argv: string[]): string[] {
  return argv[0] === 'compare' && !argv.some((word) => word.startsWith('--workers')) ? [...argv, '--workers', '1'] : argv;
}

/** Arguments that would print help or the version (yargs ends the process after them). */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.some((word) => /^(--help|-h|--version)(=|$)/.test(word));
}

describe('fuzzing the command line', () => {
  it('random and misused arguments and --out paths exit 0, or 1 with one error line; never a bug or a temporary file', async () => {
    await fuzz('cli in-process', 21, IN_PROCESS_RUNS, commandLine, async (line) => {
      const dir = caseFolder();
      try {
        const argv = oneWorker(argvOf(line, dir));
        if (asksForHelp(argv)) return;
        const { code, stderr } = await runInProcess(argv);
        checkExit(argv, code, stderr);
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('cli in-process')).toBe(IN_PROCESS_RUNS);
  });

  it('the built CLI, spawned, keeps the same contract', async () => {
    if (!existsSync(CLI)) {
      console.warn(`skipping the spawned command-line cases: ${CLI} is absent (npm run build makes it)`);
      return;
    }
    await fuzz('cli spawned', 22, SPAWNED_RUNS, commandLine, async (line) => {
      const dir = caseFolder();
      try {
        const argv = argvOf(line, dir).filter((word) => !word.includes('\u0000'));
        if (asksForHelp(argv)) return;
        const result = spawnSync(process.execPath, [CLI, ...argv], { encoding: 'utf8', timeout: 20_000 });
        checkExit(argv, result.status, result.stderr);
      } finally {
        scratch.finish(dir);
      }
    });
    expect(casesRun.get('cli spawned')).toBe(SPAWNED_RUNS);
  });
});
