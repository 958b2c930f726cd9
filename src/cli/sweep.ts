import { relative, isAbsolute, join, sep } from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { checkOutDir } from '../io/destination.js';
import { cpuQuantityError, memoryQuantityError, parseCpuMilli, parseMemMiB } from '../io/k8s-quantity.js';
import { alignColumns } from '../report/summary-table.js';
import { cellCount, combinationCount } from '../sweep/grid.js';
import { defaultJobName, isJobName, k8sJobYaml, MAX_JOB_NAME, type K8sJobSpec } from '../sweep/k8s-job.js';
import { planSweep, sweepName, type SweepPlan } from '../sweep/plan.js';
import type { CellWatcher } from '../sweep/run-cells.js';
import { runSweep, type SweepOutcome } from '../sweep/run-sweep.js';
import { MAX_SHARDS, parseShard, shardText, type Shard } from '../sweep/shard.js';
import { dlsimVersion } from '../report/version.js';
import { oneValueOption, wholeNumberOption } from './options.js';
import { createProgress, type Progress, type RunProgress } from './progress.js';
import { defaultWorkers } from './run-many.js';

interface SweepArgs {
  sweep: string;
  workers?: number;
  out?: string;
  resume?: boolean;
  shard?: string;
  checkInvariants?: boolean;
  quiet?: boolean;
  emitK8sJob?: boolean;
  shards?: number;
  parallelism?: number;
  image?: string;
  pvc?: string;
  jobName?: string;
  cpu?: string;
  memory?: string;
  containerFile?: string;
}

/** The folder a sweep writes to when --out is not given. */
export function defaultSweepOut(file: string, shard: Shard | null): string {
  const base = join('results', `sweep-${sweepName(file)}`);
  return shard === null ? base : `${base}-shard-${shard.index}`;
}

/** The grid's size as a phrase: "3 policies x 2 seeds x 4 parameter combinations = 24 cells". */
function gridText(plan: SweepPlan): string {
  const { grid } = plan;
  const parts = [`${grid.policies.length} ${grid.policies.length === 1 ? 'policy' : 'policies'}`, `${grid.seeds.length} ${grid.seeds.length === 1 ? 'seed' : 'seeds'}`];
  if (grid.parameters.length > 0) parts.push(`${combinationCount(grid)} parameter combination${combinationCount(grid) === 1 ? '' : 's'}`);
  return `${parts.join(' x ')} = ${cellCount(grid)} cells`;
}

/** The sweep file's path inside the image: the path given, when it is relative and inside the working folder (the image's /app holds the same layout). */
function containerSweepFile(file: string, given: string | undefined): string {
  if (given !== undefined) {
    if (given.trim() === '') throw new ConfigError('--container-file', 'expected a path, got ""');
    return given;
  }
  const inside = isAbsolute(file) ? relative(process.cwd(), file) : relative('.', file);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new ConfigError('--container-file', `${file} is outside the working folder: give the sweep file's path inside the image (e.g. scenarios/sweeps/${sweepName(file)}.yaml)`);
  }
  return inside.split(sep).join('/');
}

/** The Job spec from the options; a bad option is a ConfigError naming it. */
function jobSpec(plan: SweepPlan, args: SweepArgs, shard: Shard | null): K8sJobSpec {
  const shards = args.shards ?? shard?.count;
  if (shards === undefined) throw new ConfigError('--emit-k8s-job', 'give the number of shards: --shards N (one pod per shard)');
  if (shards > MAX_SHARDS) throw new ConfigError('--shards', `expected at most ${MAX_SHARDS} shards, got ${shards}`);
  if (args.shards !== undefined && shard !== null && shard.count !== args.shards) throw new ConfigError('--shards', `${args.shards} disagrees with --shard ${shardText(shard)}`);
  const cpu = args.cpu ?? '2';
  const cpuMilli = parseCpuMilli(cpu);
  if (cpuMilli === null || cpuMilli <= 0) throw new ConfigError('--cpu', cpuQuantityError(cpu));
  const memory = args.memory ?? '4Gi';
  const memMiB = parseMemMiB(memory);
  if (memMiB === null || memMiB <= 0) throw new ConfigError('--memory', memoryQuantityError(memory));
  const name = args.jobName ?? defaultJobName(plan.record.name);
  if (!isJobName(name)) throw new ConfigError('--job-name', `expected a Kubernetes name (lower-case letters, digits and "-", at most ${MAX_JOB_NAME} characters), got ${JSON.stringify(name)}`);
  const pvc = args.pvc ?? 'dlsim-results';
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(pvc) || pvc.length > 253) throw new ConfigError('--pvc', `expected a PersistentVolumeClaim name, got ${JSON.stringify(pvc)}`);
  const image = args.image ?? `dlsim:${dlsimVersion()}`;
  if (image.trim() === '' || /\s/.test(image)) throw new ConfigError('--image', `expected an image reference, got ${JSON.stringify(image)}`);
  return {
    name,
    sweepName: plan.record.name,
    image,
    sweepFile: containerSweepFile(plan.sweep.file, args.containerFile),
    shards,
    parallelism: Math.min(args.parallelism ?? shards, shards),
    workers: args.workers ?? Math.max(1, Math.floor(cpuMilli / 1000)),
    cpu,
    memory,
    pvc,
  };
}

/** `dlsim sweep SWEEP.yaml`: a grid of presets x seeds x scenario overrides, resumable and shardable. */
export const sweepCommand: CommandModule<object, SweepArgs> = {
  command: 'sweep <sweep>',
  describe: 'Run a grid of policies x seeds x scenario overrides (resumable, shardable; Kubernetes Job)',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('sweep', { type: 'string', demandOption: true, describe: 'sweep YAML file (scenario, policies, seeds, parameters)' })
      .option('workers', { type: 'string', coerce: wholeNumberOption('--workers', 1), describe: 'worker threads (default: one per core); results do not depend on it' })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), describe: 'sweep folder (default: results/sweep-<sweep file name>[-shard-I])' })
      .option('resume', { type: 'boolean', describe: 'finish the sweep in --out: skip finished cells, run the others' })
      .option('shard', { type: 'string', coerce: oneValueOption('--shard'), describe: 'run only shard I of N (cells whose index mod N is I), e.g. 0/4' })
      .option('check-invariants', { type: 'boolean', describe: 'check every run after every instant and at its end (stops at the first breach, exit 2)' })
      .option('quiet', { type: 'boolean', describe: 'draw no progress bar on stderr (none is drawn when stderr is not a terminal)' })
      .option('emit-k8s-job', { type: 'boolean', describe: 'write --out/k8s-job.yaml (a Kubernetes Indexed Job running the shards) instead of running' })
      .option('shards', { type: 'string', coerce: wholeNumberOption('--shards', 1), describe: 'with --emit-k8s-job: number of shards (pods)' })
      .option('parallelism', { type: 'string', coerce: wholeNumberOption('--parallelism', 1), describe: 'with --emit-k8s-job: pods at once (default: all)' })
      .option('image', { type: 'string', coerce: oneValueOption('--image'), describe: 'with --emit-k8s-job: the dlsim image (default: dlsim:<version>)' })
      .option('pvc', { type: 'string', coerce: oneValueOption('--pvc'), describe: 'with --emit-k8s-job: PersistentVolumeClaim for results (default: dlsim-results)' })
      .option('job-name', { type: 'string', coerce: oneValueOption('--job-name'), describe: 'with --emit-k8s-job: the Job name (default: dlsim-sweep-<sweep name>)' })
      .option('cpu', { type: 'string', coerce: oneValueOption('--cpu'), describe: 'with --emit-k8s-job: CPU each pod requests (default: 2; also its worker threads)' })
      .option('memory', { type: 'string', coerce: oneValueOption('--memory'), describe: 'with --emit-k8s-job: memory each pod requests (default: 4Gi)' })
      .option('container-file', { type: 'string', coerce: oneValueOption('--container-file'), describe: "with --emit-k8s-job: the sweep file's path in the image (default: the path given)" }) as Argv<SweepArgs>,
  handler: async (args: ArgumentsCamelCase<SweepArgs>) => {
    const shard = args.shard === undefined ? null : parseShard(args.shard);
    const k8sOnly = ['shards', 'parallelism', 'image', 'pvc', 'jobName', 'cpu', 'memory', 'containerFile'] as const;
    if (!args.emitK8sJob) {
      const given = k8sOnly.find((key) => args[key] !== undefined);
      if (given !== undefined) throw new ConfigError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'applies only with --emit-k8s-job');
    }
    const out = args.out ?? defaultSweepOut(args.sweep, shard);
    checkOutDir(out, '--out');
    const plan = await planSweep(args.sweep);
    if (args.emitK8sJob) {
      const spec = jobSpec(plan, args, shard);
      const path = join(out, 'k8s-job.yaml');
      writeFileAtomic(path, k8sJobYaml(spec));
      process.stdout.write(`${alignColumns([
        ['sweep', `${args.sweep}: ${gridText(plan)}`],
        ['Job', `${spec.name}: ${spec.shards} shards, ${spec.parallelism} at once, image ${spec.image}`],
        ['manifest', path],
      ], true)}\n`);
      return;
    }
    if (plan.history !== undefined) {
      process.stderr.write(`dlsim: note: the sweep reads the history ${plan.history.file} (${plan.history.records} records) and does not add to it: every cell sees it as it is now\n`);
    }
    const workers = args.workers ?? defaultWorkers(cellCount(plan.grid));
    // A bar of cells done (and a line per running cell) on stderr when it is a terminal.
    let progress: Progress | null = null;
    const watch = (pending: number, skipped: number): CellWatcher => {
      progress = createProgress({ runs: pending + skipped, lanes: workers, unit: 'cells', quiet: args.quiet });
      progress.skip(skipped);
      const running = new Map<number, RunProgress>();
      return {
        started: (i, label) => void running.set(i, progress!.startRun(label)),
        ended: (i) => running.get(i)?.finish(),
      };
    };
    let outcome: SweepOutcome;
    try {
      outcome = await runSweep(plan, { out, workers, resume: args.resume ?? false, shard, watch, ...(args.checkInvariants === undefined ? {} : { checkInvariants: args.checkInvariants }) });
    } finally {
      (progress as Progress | null)?.stop();
    }
    const shardNote = shard === null ? '' : ` (shard ${shardText(shard)}: ${outcome.cells} cells)`;
    process.stdout.write(`${alignColumns([
      ['sweep', `${args.sweep}: scenario ${plan.scenarioName}, ${gridText(plan)}${shardNote}`],
      ['cells run', String(outcome.run)],
      ['cells skipped', `${outcome.skipped}${outcome.skipped > 0 ? ' (finished before)' : ''}`],
      ['wall time', `${outcome.wallS.toFixed(1)}s (${workers} worker${workers === 1 ? '' : 's'})`],
      ['sweep.csv', outcome.csvPath],
      ['summary', outcome.summaryPath],
      ['report', join(out, 'report.html')],
    ], true)}\n`);
  },
};
