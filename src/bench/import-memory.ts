import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RandomStreams } from '../engine/random.js';
import { InvariantError } from '../errors.js';

/** What the import-memory benchmark measured. */
export interface ImportMemoryResult {
  readonly rows: number;
  readonly jobs: number;
  /** Peak resident memory of the importing process, in MiB. */
  readonly peakRssMiB: number;
  readonly seconds: number;
}

/** Writes a Philly-layout CSV of `rows` jobs (seeded; GPU counts and durations roughly as in Philly). */
export async function writeLargePhillyCsv(path: string, rows: number, seed = 1): Promise<void> {
  const stream = new RandomStreams(seed).stream('bench-rows');
  const out = createWriteStream(path);
  const gpuChoices = [1, 1, 1, 1, 1, 1, 2, 4, 8, 16];
  out.write('timestamp,duration,num_gpus,gpu_time,cluster\n');
  const startMs = Date.UTC(2017, 9, 1);
  for (let i = 0; i < rows; i++) {
    const at = new Date(startMs + Math.floor(stream.uniform() * 90 * 86400) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    const durationS = Math.max(1, Math.round(stream.logNormal(600, 1.5)));
    const gpus = gpuChoices[stream.int(gpuChoices.length)]!;
    if (!out.write(`${at},${durationS}.0,${gpus},${durationS * gpus}.0,vc${i % 13}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Runs `node args` in a child process and gives back how it ended and what it wrote (the caller's choice of how it is tied to this process). */
export type ChildRunner = (args: readonly string[]) => Promise<{ readonly code: number | null; readonly signal: string | null; readonly stdout: string; readonly stderr: string }>;

/**
 * Generates a `rows`-row Philly CSV and imports it with `dlsim trace import` in a child process,
 * whose peak resident memory (getrusage maxrss) is the figure: it must stay flat in the file size.
 */
export async function benchImportMemory(cliPath: string, rows: number, runChild: ChildRunner): Promise<ImportMemoryResult> {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-bench-'));
  try {
    const csv = join(dir, 'philly-large.csv');
    await writeLargePhillyCsv(csv, rows);
    const script = `
      process.argv = [process.argv[0], ${JSON.stringify(cliPath)}, 'trace', 'import', '--format', 'philly', ${JSON.stringify(csv)}, '--out', ${JSON.stringify(join(dir, 'out.jsonl'))}, '--json'];
      const started = performance.now();
      process.on('beforeExit', () => {
        process.stderr.write(JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, seconds: (performance.now() - started) / 1000 }) + '\\n');
      });
      await import(${JSON.stringify(cliPath)});
    `;
    const child = await runChild(['--input-type=module', '-e', script]);
    if (child.code !== 0) throw new InvariantError(`import benchmark failed: ${child.signal !== null ? `ended by ${child.signal}` : child.stderr.split('\n')[0]}`);
    const report = JSON.parse(child.stdout) as { jobs: number };
    const usage = JSON.parse(child.stderr.trim().split('\n').pop()!) as { maxRssKiB: number; seconds: number };
    return { rows, jobs: report.jobs, peakRssMiB: Math.round(usage.maxRssKiB / 1024), seconds: Math.round(usage.seconds * 10) / 10 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
