import { fileURLToPath } from 'node:url';
import { formatBaselines, readBaselines, type BaselineRun, formatChange } from '../bench/baselines.js';
import { checkBaselines } from '../bench/check.js';
import { formatGate, gateFails } from '../bench/gates.js';
import { type BenchFigure, checkRatioFloors, formatRatioCheck } from '../bench/perf-gate.js';
import { scenarioFiles } from '../bench/plan.js';
import { SimError } from '../errors.js';
import { checkOutFile } from '../io/destination.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { withProgress } from './progress.js';
import { endingBySignal, runTiedChild } from './restart.js';
import { defaultWorkers, runMany } from './run-many.js';

/** What `dlsim bench --check FILE` / `--update FILE` is asked to do. */
export interface BenchCheckOptions {
  /** The baselines file. */
  readonly file: string;
  /** True to rewrite the file with the fresh baselines instead of failing on a change. */
  readonly update: boolean;
  /** Scenario files and folders. */
  readonly scenarios: readonly string[];
  readonly sets: readonly string[];
  readonly workers?: number;
  /** Run the performance gate (`dlsim bench --quick --json` in a child process). */
  readonly perf: boolean;
  /** No progress bars on stderr (`--quiet`). */
  readonly quiet?: boolean;
}

/**
 * Reruns the baselines and published figures, prints what moved (old → new, scenario, preset,
 * seed, metric), every gate and, with `perf`, the performance ratios; writes the file with `update`.
 * Throws a one-line SimError (exit 1) when a baseline moved (check only), a gate failed or a ratio
 * fell below its floor.
 */
export async function benchCheck(options: BenchCheckOptions): Promise<void> {
  const files = scenarioFiles(options.scenarios);
  if (options.update) checkOutFile(options.file, '--update');
  const recorded: BaselineRun[] = options.update ? readIfPresent(options.file) : readBaselines(options.file);
  const result = await checkBaselines(files, options.sets, recorded, (requests) => {
    const workers = options.workers ?? defaultWorkers(requests.length);
    return withProgress({ runs: requests.length, lanes: workers, quiet: options.quiet }, (progress) => runMany(requests, workers, progress));
  });
  const out: string[] = [];
  for (const skip of result.skipped) out.push(`skipped  ${skip.file}: ${skip.reason} (its baselines are kept, not checked)`);
  const verb = options.update ? 'updated' : 'moved';
  out.push(
    result.changes.length === 0
      ? `baselines: ${result.fresh.length} runs of ${result.plans.length} scenarios match ${options.file}`
      : `baselines: ${result.changes.length} change${result.changes.length === 1 ? '' : 's'} ${verb} (scenario  preset  seed  metric  old → new):`,
  );
  for (const change of result.changes) out.push(`  ${formatChange(change)}`);
  if (result.gates.length > 0) out.push(`published figures (${result.gates.length}):`);
  for (const gate of result.gates) out.push(`  ${formatGate(gate)}`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (options.update) writeFileAtomic(options.file, formatBaselines(result.updated));

  const problems: string[] = [];
  if (!options.update && result.changes.length > 0) problems.push(`${result.changes.length} baseline metric${result.changes.length === 1 ? '' : 's'} moved`);
  const failedGates = result.gates.filter(gateFails).length;
  if (failedGates > 0) problems.push(`${failedGates} published figure${failedGates === 1 ? '' : 's'} failed`);
  if (options.perf && !options.update) {
    const checks = checkRatioFloors(await quickFigures());
    process.stdout.write(`performance ratios:\n${checks.map((check) => `  ${formatRatioCheck(check)}`).join('\n')}\n`);
    const regressed = checks.filter((check) => !check.ok).length;
    if (regressed > 0) problems.push(`${regressed} performance ratio${regressed === 1 ? '' : 's'} below the floor`);
  }
  if (problems.length > 0) {
    const hint = !options.update && result.changes.length > 0 ? `; if intended, run dlsim bench --update ${options.file} and explain the diff in the commit` : '';
    throw new SimError(`bench ${options.update ? '--update' : '--check'} failed: ${problems.join(', ')}${hint}`);
  }
  process.stdout.write(`${options.update ? `wrote ${options.file}` : 'bench --check passed'} (${result.runs} runs)\n`);
}

/** The recorded baselines, or none when the file does not exist yet (a first --update). */
function readIfPresent(file: string): BaselineRun[] {
  try {
    return readBaselines(file);
  } catch (error) {
    if (error instanceof SimError && error.message.includes('no such file')) return [];
    throw error;
  }
}

/** How long the quick benchmarks may take before the check gives up on them (they take seconds). */
const QUICK_TIMEOUT_MS = 300_000;

/**
 * Runs `dlsim bench --quick --json --only engine-ratios` in a fresh process (nothing else of this
 * one loads it), tied to this one (an interrupt ends both), and returns its figures.
 */
async function quickFigures(): Promise<BenchFigure[]> {
  const cli = fileURLToPath(new URL('./main.js', import.meta.url));
  const child = await runTiedChild([cli, 'bench', '--quick', '--json', '--only', 'engine-ratios'], QUICK_TIMEOUT_MS);
  if (child.interrupted !== null) return endingBySignal(child.interrupted);
  if (child.code !== 0) {
    const why = child.timedOut ? `no answer within ${QUICK_TIMEOUT_MS / 1000} s` : child.signal !== null ? `ended by ${child.signal}` : (child.stderr.trim().split('\n').find((line) => line.trim() !== '') ?? '').trim();
    throw new SimError(`dlsim bench --quick --json failed: ${why}`);
  }
  return (JSON.parse(child.stdout) as { figures: BenchFigure[] }).figures;
}
