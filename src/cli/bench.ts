import { fileURLToPath } from 'node:url';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { measureAgainstHeap, measureHoldRatio } from '../bench/hold-ratio.js';
import { benchImportMemory } from '../bench/import-memory.js';
import type { BenchFigure as Figure } from '../bench/perf-gate.js';
import { benchSimThroughput, simEvents } from '../bench/sim-throughput.js';
import {
  CASE_ROUNDS,
  caseNames,
  formatDelayS,
  isReplayCase,
  MAX_ARRIVALS_PER_MINUTE,
  MAX_CASE_ROUNDS,
  REPLAY_ARRIVALS_PER_MINUTE,
  runCaseHere,
  SCALING_JOBS,
  targetOf,
  type CaseResult,
} from '../bench/cases.js';
import { ConfigError, SimError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { alignColumns } from '../report/summary-table.js';
import { loadScenario } from '../scenario/load.js';
import { benchCheck } from './bench-check.js';
import { listOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';
import { endingBySignal, runTiedChild, type TiedRun } from './restart.js';
import { withProgress } from './progress.js';

interface BenchArgs {
  only?: string;
  list?: boolean;
  case?: string;
  caseTimeout?: number;
  rounds?: number;
  arrivalsPerMinute?: number;
  rows?: number;
  json?: boolean;
  quick?: boolean;
  check?: string;
  update?: string;
  scenarios: string;
  set?: string | string[];
  workers?: number;
  perf: boolean;
  quiet?: boolean;
}

/** Sizes of the quick run (`--quick`): small versions of the benchmarks, for the performance gate. */
const QUICK = { jobs: 2000, faultJobs: 500, importRows: 20_000 } as const;

/**
 * Fault rate multiplier of `sim-faults`: heavy (~7 faults a day on the default 256 GPUs) while the
 * cluster stays mostly up (16% of GPUs out of service on average); at 100x, 82% are, and 20,000
 * jobs wait for decades of simulated faults.
 */
const SIM_FAULTS_SCALE = 10;

/** The benchmarks by name: each returns its figures. */
const BENCHMARKS: Readonly<Record<string, (args: BenchArgs) => Promise<Figure[]>>> = {
  'sim-default': async () => {
    const r = await benchSimThroughput('scenarios/default.yaml');
    return [
      { bench: 'sim-default', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs, ${r.events} events` },
      { bench: 'sim-default', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'sim-20k-jobs': async (args) => {
    const r = await benchSimThroughput('scenarios/default.yaml', [`workload.synthetic.jobs=${args.quick ? QUICK.jobs : 20000}`]);
    return [
      { bench: 'sim-20k-jobs', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs, ${r.events} events` },
      { bench: 'sim-20k-jobs', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'sim-faults': async (args) => {
    const sets = [`workload.synthetic.jobs=${args.quick ? QUICK.faultJobs : 20000}`, 'policy=dlrover', 'faults.catalog=ant-2023', `faults.scale=${SIM_FAULTS_SCALE}`];
    const r = await benchSimThroughput('scenarios/default.yaml', sets);
    return [
      { bench: 'sim-faults', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs under dlrover, ant-2023 x ${SIM_FAULTS_SCALE}, ${r.events} events` },
      { bench: 'sim-faults', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'import-memory': async (args) => {
    const cli = fileURLToPath(new URL('./main.js', import.meta.url));
    // The import runs in a child tied to this process: interrupted, it ends, its files are removed, then this process ends by the same signal.
    let interrupted: NodeJS.Signals | null = null;
    const runChild = async (childArgs: readonly string[]): Promise<TiedRun> => {
      const run = await runTiedChild(childArgs);
      interrupted = run.interrupted;
      return run;
    };
    const r = await benchImportMemory(cli, args.rows ?? (args.quick ? QUICK.importRows : 1_000_000), runChild).catch((error: unknown) => {
      if (interrupted === null) throw error;
      return endingBySignal(interrupted);
    });
    return [
      { bench: 'import-memory', metric: 'peak RSS', value: r.peakRssMiB, unit: 'MiB', target: `< 1024 MiB for ${r.rows} rows` },
      { bench: 'import-memory', metric: 'import time', value: r.seconds, unit: 's', target: `${r.jobs} jobs imported` },
    ];
  },
  'engine-ratios': async () => {
    const hold = measureHoldRatio();
    const scenario = await loadScenario('scenarios/default.yaml', { knownPolicies: presetNames() });
    const simRatio = measureAgainstHeap(() => simEvents(scenario));
    const note = 'measured in this process; the check holds it above a floor';
    return [
      { bench: 'engine-ratios', metric: 'engine events/s', value: hold.engineEventsPerS, unit: '1/s', target: 'hold model, 10,000 pending events' },
      { bench: 'engine-ratios', metric: 'heap ops/s', value: hold.heapOpsPerS, unit: '1/s', target: 'bare FastPriorityQueue, same pops and pushes' },
      { bench: 'engine-ratios', metric: 'engine ÷ heap (hold model)', value: round3(hold.ratio), unit: 'x', target: note },
      { bench: 'engine-ratios', metric: 'sim-default events/s ÷ heap', value: round5(simRatio), unit: 'x', target: note },
    ];
  },
};

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function round5(value: number): number {
  return Math.round(value * 100_000) / 100_000;
}

/**
 * `dlsim bench`: measures the simulator's speed and memory (never part of the tests); with
 * `--check FILE` / `--update FILE`, reruns the committed baselines and published figures instead.
 */
export const benchCommand: CommandModule<object, BenchArgs> = {
  command: 'bench',
  describe: 'Run the benchmarks and print their figures, or check the committed baselines (--check)',
  builder: (yargs: Argv<object>) =>
    yargs
      .option('only', { type: 'string', describe: 'comma-separated cases and benchmarks (default: all; `dlsim bench --list` names them)' })
      .option('list', { type: 'boolean', describe: 'print the names of every case and benchmark, one a line, and stop' })
      .option('case-timeout', { type: 'string', coerce: wholeNumberOption('--case-timeout', 1), describe: 'seconds each run of a case (of each size of a scaling case) may take before it is stopped and reported as failing its target (default: no limit)' })
      .option('rounds', { type: 'string', coerce: wholeNumberOption('--rounds', 1, MAX_CASE_ROUNDS), describe: `rounds of each timed case: the case once a round (a scaling case every size), its least time kept (default ${CASE_ROUNDS}, at most ${MAX_CASE_ROUNDS})` })
      .option('arrivals-per-minute', {
        type: 'string',
        coerce: wholeNumberOption('--arrivals-per-minute', 1, MAX_ARRIVALS_PER_MINUTE),
        describe: `arrivals a minute of the replay and scaling cases' jobs (default ${REPLAY_ARRIVALS_PER_MINUTE}, about the PAI machines' GPU capacity in work; their targets are judged at the default only)`,
      })
      .option('case', { type: 'string', hidden: true, describe: 'run one case in this process and print its figures as JSON (what each case\'s child process does)' })
      .option('rows', { type: 'string', coerce: wholeNumberOption('--rows', 1), describe: 'rows of the generated trace import-memory imports (default 1,000,000; 20,000 with --quick)' })
      .option('json', { type: 'boolean', describe: 'print the figures as one JSON object' })
      .option('quick', { type: 'boolean', describe: 'small sizes of every benchmark (seconds, not minutes)' })
      .option('check', { type: 'string', describe: 'rerun the baselines in FILE and the scenarios\' published figures; exit 1 on any change' })
      .option('update', { type: 'string', describe: 'rerun the baselines and rewrite FILE with them, printing what changed' })
      .option('scenarios', { type: 'string', default: 'scenarios,scenarios/validation', describe: 'comma-separated scenario files and folders for --check/--update' })
      .option('set', { type: 'string', nargs: 1, describe: 'override a value in every scenario of --check/--update: path=value (repeatable)' })
      .option('workers', { type: 'string', coerce: wholeNumberOption('--workers', 1), describe: 'worker threads for --check/--update (default: one per core); results do not depend on it' })
      .option('perf', { type: 'boolean', default: true, describe: 'with --check, also gate the ratios of bench --quick (--no-perf skips them)' })
      .option('quiet', { type: 'boolean', describe: 'no progress bars on stderr (they are drawn only on a terminal)' })
      .conflicts('check', 'update') as Argv<BenchArgs>,
  handler: async (args: ArgumentsCamelCase<BenchArgs>) => {
    const baselines = args.check ?? args.update;
    if (baselines !== undefined) {
      if (baselines.trim() === '') throw new ConfigError(args.check !== undefined ? '--check' : '--update', 'expected the baselines file, e.g. results/baselines.json');
      const scenarios = args.scenarios.split(',').map((p) => p.trim()).filter((p) => p !== '');
      if (scenarios.length === 0) throw new ConfigError('--scenarios', 'name at least one scenario file or folder');
      return benchCheck({
        file: baselines,
        update: args.update !== undefined,
        scenarios,
        sets: listOption(args.set),
        ...(args.workers === undefined ? {} : { workers: args.workers }),
        perf: args.perf,
        quiet: args.quiet,
      });
    }
    const arrivalsPerMinute = args.arrivalsPerMinute ?? REPLAY_ARRIVALS_PER_MINUTE;
    if (args.case !== undefined) return printJson(await childFigures(args.case, args.quick === true, arrivalsPerMinute));
    const rounds = args.rounds ?? CASE_ROUNDS;
    const cases = caseNames();
    if (args.list === true) {
      process.stdout.write(`${[...cases, ...Object.keys(BENCHMARKS)].join('\n')}\n`);
      return;
    }
    const names = args.only ? args.only.split(',').map((n) => n.trim()).filter((n) => n !== '') : [...cases, ...Object.keys(BENCHMARKS)];
    for (const name of names) {
      if (!BENCHMARKS[name] && !cases.includes(name)) {
        throw new ConfigError('--only', `unknown case "${name}"; known: ${[...cases, ...Object.keys(BENCHMARKS)].join(', ')}`);
      }
    }
    const figures: Figure[] = [];
    const results: CaseResult[] = [];
    // Cases whose process failed: printed with the others, then the command fails.
    const failures: string[] = [];
    await withProgress({ runs: names.length, unit: 'cases', quiet: args.quiet }, async (progress) => {
      for (const name of names) {
        if (!args.json) progress.log(`running ${name}…`);
        const bar = progress.startRun(name);
        try {
          if (BENCHMARKS[name]) figures.push(...(await BENCHMARKS[name]!(args)));
          else {
            const { result, failure } = await runCase(name, { quick: args.quick === true, arrivalsPerMinute }, args.caseTimeout, rounds);
            results.push(result);
            if (failure !== null) failures.push(`${name} (${failure})`);
            if (!args.json) progress.log(`  ${result.wallS === null ? '-' : `${result.wallS} s`}${result.ratio === null ? '' : `, ratio ${result.ratio}`}, target ${result.target}: ${result.pass === null ? '-' : result.pass ? 'held' : 'MISSED'} (${result.note})`);
          }
        } finally {
          bar.finish();
        }
      }
    });
    const fail = (): void => {
      if (failures.length > 0) throw new SimError(`bench: ${failures.length} case(s) failed: ${failures.join('; ')}`);
    };
    if (args.json) {
      printJson({ cases: results, figures });
      return fail();
    }
    if (results.length > 0) {
      const rows = [
        ['case', 'wall', 'events/s', 'peak RSS', 'ratio', 'target', 'pass', 'note'],
        ...results.map((r) => [
          r.name,
          r.wallS === null ? '-' : `${r.wallS} s`,
          r.eventsPerS === null ? '-' : String(r.eventsPerS),
          r.maxRssMiB === null ? '-' : `${r.maxRssMiB} MiB`,
          r.ratio === null ? '-' : String(r.ratio),
          r.target,
          r.pass === null ? '-' : r.pass ? 'yes' : 'NO',
          r.note,
        ]),
      ];
      process.stdout.write(`${alignColumns(rows)}\n`);
    }
    if (figures.length > 0) {
      const rows = [['benchmark', 'metric', 'value', 'note'], ...figures.map((f) => [f.bench, f.metric, `${f.value} ${f.unit}`, f.target])];
      process.stdout.write(`${alignColumns(rows)}\n`);
    }
    fail();
  },
};

/** What a child process prints for one case. */
interface ChildFigures {
  readonly wallS?: number;
  readonly events?: number | null;
  readonly ratio?: number;
  readonly meanQueueDelayS?: number;
  readonly note?: string;
  readonly skipped?: string;
  readonly maxRssMiB: number;
}

/** Runs one case in this process (a child of `dlsim bench`), with the process's peak memory. */
async function childFigures(name: string, quick: boolean, arrivalsPerMinute: number): Promise<ChildFigures> {
  const figures = await runCaseHere(name, quick, arrivalsPerMinute);
  return { ...figures, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) };
}

/** How the cases run: small sizes (`--quick`), and the replay's arrivals a minute. */
interface CaseSetup {
  readonly quick: boolean;
  readonly arrivalsPerMinute: number;
}

/**
 * Runs a case in a fresh process (its memory is its own) in each of `rounds` rounds, a scaling case
 * each of its sizes, keeping the least time (a size's), and checks the target (a replay's only at
 * the default arrivals a minute); `failure` says why its process failed (null when it ran). The
 * `engine` case runs once (see CASE_ROUNDS).
 */
async function runCase(name: string, setup: CaseSetup, timeoutS: number | undefined, rounds: number): Promise<{ result: CaseResult; failure: string | null }> {
  const { quick } = setup;
  const target = targetOf(name);
  const scaling = name.startsWith('scaling/');
  const sizes = scaling ? (quick ? SCALING_JOBS.quick : SCALING_JOBS.full) : [null];
  // A case without figures: missed (pass false) or not run (pass null).
  const withoutFigures = (pass: false | null, note: string): CaseResult => ({ name, wallS: null, eventsPerS: null, maxRssMiB: null, ratio: null, target: target.text, pass, note });
  // Per size, its runs in round order.
  const bySize: ChildFigures[][] = sizes.map(() => []);
  for (let round = 0; round < (name === 'engine' ? 1 : rounds); round++) {
    for (const [k, size] of sizes.entries()) {
      const run = await spawnCase(size === null ? name : `${name}/${size}`, setup, timeoutS);
      const what = size === null ? '' : ` at ${size} jobs`;
      if (run === null) return { result: withoutFigures(false, `stopped after ${timeoutS} s${what}`), failure: null };
      if ('failed' in run) return { result: withoutFigures(false, `failed${what}: ${run.failed}`), failure: run.failed };
      // A case that cannot run here (its input is absent) is not asked again.
      if (run.skipped !== undefined) return { result: withoutFigures(null, `not run: ${run.skipped}`), failure: null };
      bySize[k]!.push(run);
    }
  }
  // Each size's run of least time (the first of equal ones).
  const runs = bySize.map((sizeRuns) => sizeRuns.reduce((best, run) => ((run.wallS ?? Infinity) < (best.wallS ?? Infinity) ? run : best)));
  const last = runs[runs.length - 1]!;
  let ratio = last.ratio ?? null;
  let note = last.note ?? '';
  const roundsRun = bySize[0]!.length;
  if (runs.length === 1 && roundsRun > 1) note = `least of ${roundsRun} runs (${bySize[0]!.map((r) => r.wallS).join(' / ')} s); ${note}`;
  if (runs.length > 1) {
    const ratios = runs.slice(1).map((run, k) => run.wallS! / runs[k]!.wallS!);
    ratio = Math.round(Math.max(...ratios) * 100) / 100;
    // Each size's congestion: a larger replay that queues longer does more work a job.
    const delays = runs.every((r) => r.meanQueueDelayS !== undefined) ? `; mean queue delay ${runs.map((r) => formatDelayS(r.meanQueueDelayS!)).join(' / ')}` : '';
    const least = roundsRun > 1 ? `least of ${roundsRun} rounds ` : '';
    const eachRound = roundsRun > 1 ? `; rounds ${bySize[0]!.map((_, round) => bySize.map((sizeRuns) => sizeRuns[round]!.wallS).join(' / ')).join(', ')} s` : '';
    note = `${sizes.join(' / ')} jobs: ${least}${runs.map((r) => `${r.wallS} s`).join(' / ')} (ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}${delays}${eachRound}); ${note.replace(/^\d+ /, '').replace(/; mean queue delay [^)]*\)/, ')')}`;
  }
  const wallS = last.wallS ?? null;
  const events = last.events ?? null;
  const judged = !isReplayCase(name) || setup.arrivalsPerMinute === REPLAY_ARRIVALS_PER_MINUTE;
  // The most any run of the case held: a round's memory counts even when its time was not the least.
  const maxRssMiB = Math.max(...bySize.flat().map((r) => r.maxRssMiB));
  const result: CaseResult = {
    name,
    wallS,
    eventsPerS: events !== null && wallS !== null && wallS > 0 ? Math.round(events / wallS) : null,
    maxRssMiB,
    ratio,
    target: target.text,
    pass: judged ? target.holds(wallS, maxRssMiB, ratio) : null,
    note: judged ? note : `target judged at ${REPLAY_ARRIVALS_PER_MINUTE}/min only; ${note}`,
  };
  return { result, failure: null };
}

/**
 * `dlsim bench --case NAME` in a child process, under the node options this process was started
 * with (a V8 heap setting, a profiler); its figures, null when it ran past `timeoutS`, or why it
 * failed. The child is tied to this process (see startTiedChild): a SIGINT or SIGTERM goes on to
 * it, and when it ends by one this process ends by it too (no later case runs); a child whose
 * parent was killed outright ends once its case does.
 */
async function spawnCase(name: string, setup: CaseSetup, timeoutS: number | undefined): Promise<ChildFigures | { failed: string } | null> {
  const cli = fileURLToPath(new URL('./main.js', import.meta.url));
  const rate = setup.arrivalsPerMinute === REPLAY_ARRIVALS_PER_MINUTE ? [] : ['--arrivals-per-minute', String(setup.arrivalsPerMinute)];
  const run = await runTiedChild([...process.execArgv, cli, 'bench', '--case', name, ...(setup.quick ? ['--quick'] : []), ...rate], timeoutS === undefined ? undefined : timeoutS * 1000);
  if (run.timedOut) return null;
  // Interrupted (the signal went to this process too, or to the child alone): no later case runs.
  if (run.interrupted !== null) return endingBySignal(run.interrupted);
  if (run.signal !== null) return { failed: `ended by ${run.signal}` };
  if (run.code !== 0) {
    // The first line that says why (past the generic line of an internal error), so the other cases' figures are kept.
    const lines = run.stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    return { failed: (lines[0]?.includes('internal error') ? lines[1] : lines[0]) ?? `exit ${run.code}` };
  }
  return JSON.parse(run.stdout) as ChildFigures;
}
