import { performance } from 'node:perf_hooks';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { RunSummary } from '../metrics/summary.js';
import { presetNames } from '../policies/presets.js';
import { checkOutDir } from '../io/destination.js';
import { runProvenance, type RunProvenance } from '../report/provenance.js';
import { runOutputFiles, writeRunFiles } from '../report/run-files.js';
import { summaryTable } from '../report/summary-table.js';
import { RunHistory, runLabelOf } from '../sim/history.js';
import { loadScenario } from '../scenario/load.js';
import { simulate, type SimResult } from '../sim/simulation.js';
import { listOption, oneValueOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';
import { createProgress } from './progress.js';
import { runFill } from './run-fill.js';

interface RunArgs {
  scenario: string;
  policy?: string;
  seed?: number;
  set?: string | string[];
  out?: string;
  json?: boolean;
  checkInvariants?: boolean;
  quiet?: boolean;
}

/** `dlsim run SCENARIO`: simulates one scenario with one policy and seed. */
export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <scenario>',
  describe: 'Simulate a scenario and print its summary',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario YAML file' })
      .option('policy', { type: 'string', describe: 'policy preset (see dlsim list); overrides the scenario' })
      .option('seed', { type: 'string', coerce: wholeNumberOption('--seed', 0), describe: 'random seed; overrides the scenario' })
      .option('set', { type: 'string', nargs: 1, describe: 'override a scenario value: path=value (repeatable)' })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), describe: 'folder to write summary.json, jobs.csv, timeline.csv, usage.csv, gantt.csv, autoscale.csv, scaleplans/ and report.html to' })
      .option('json', { type: 'boolean', describe: 'print the summary as one JSON object' })
      .option('check-invariants', { type: 'boolean', describe: 'check the run after every instant and at its end (stops at the first breach, exit 2)' })
      .option('quiet', { type: 'boolean', describe: 'no progress bar on stderr (it is drawn only on a terminal)' }) as Argv<RunArgs>,
  handler: async (args: ArgumentsCamelCase<RunArgs>) => {
    if (args.out !== undefined) checkOutDir(args.out, '--out');
    const sets = listOption(args.set);
    const scenario = await loadScenario(args.scenario, {
      policy: args.policy,
      seed: args.seed,
      sets,
      knownPolicies: presetNames(),
    });
    for (const warning of scenario.warnings) process.stderr.write(`dlsim: warning: ${warning}\n`);
    if (scenario.fill !== undefined) return runFill(scenario, { ...args, provenance: runProvenance(args.scenario, scenario, sets) });
    // The history as it is now: the run's policies read it; its finished PS jobs are added after.
    const history = scenario.history === undefined ? null : await RunHistory.open(scenario.history);
    // The simulation holds the thread: Ctrl-C ends it at once rather than after it (the bar is left as drawn).
    const progress = createProgress({ runs: 1, quiet: args.quiet, clearOnSignal: false });
    const bar = progress.startRun(`${scenario.policy} s${scenario.seed}`);
    const startedMs = performance.now();
    let result: SimResult;
    try {
      result = simulate(scenario, { checkInvariants: args.checkInvariants ?? false, ...(history === null ? {} : { history: history.view }), ...(progress.shown ? { onProgress: (p) => bar.update(p) } : {}), record: args.out !== undefined });
    } finally {
      progress.stop();
    }
    const wallS = (performance.now() - startedMs) / 1000;
    // With how it was made; not a metric (comparisons and baselines leave `provenance` out).
    const summary: RunSummary & { readonly provenance: RunProvenance } = {
      ...result.summary,
      perf: { wallS: Math.round(wallS * 1000) / 1000, eventsPerS: wallS > 0 ? Math.round(result.summary.events / wallS) : 0 },
      provenance: runProvenance(args.scenario, scenario, sets),
    };
    if (args.out !== undefined) {
      // An earlier run's plans that this run does not rewrite go with its summary.
      writeRunFiles(args.out, runOutputFiles(result, summary, { folder: args.out }));
    }
    if (history !== null) {
      history.record(result, runLabelOf(scenario));
      history.save();
      history.close();
    }
    if (args.json) printJson(summary);
    else process.stdout.write(`${summaryTable(summary)}\n`);
  },
};

/** The files `dlsim run --out` writes (moved to report/run-files.ts; re-exported for callers of this module). */
export { runOutputFiles } from '../report/run-files.js';
