import { performance } from 'node:perf_hooks';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { RunSummary } from '../metrics/summary.js';
import { presetNames } from '../policies/presets.js';
import { checkOutDir } from '../io/destination.js';
import { runOutputFiles, writeRunFiles } from '../report/run-files.js';
import { summaryTable } from '../report/summary-table.js';
import { RunHistory, runLabelOf } from '../sim/history.js';
import { loadScenario } from '../scenario/load.js';
import { simulate } from '../sim/simulation.js';
import { listOption, oneValueOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';
import { runFill } from './run-fill.js';

interface RunArgs {
  scenario: string;
  policy?: string;
  seed?: number;
  set?: string | string[];
  out?: string;
  json?: boolean;
  checkInvariants?: boolean;
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
      .option('check-invariants', { type: 'boolean', describe: 'check the run after every instant and at its end (stops at the first breach, exit 2)' }) as Argv<RunArgs>,
  handler: async (args: ArgumentsCamelCase<RunArgs>) => {
    if (args.out !== undefined) checkOutDir(args.out, '--out');
    const scenario = await loadScenario(args.scenario, {
      policy: args.policy,
      seed: args.seed,
      sets: listOption(args.set),
      knownPolicies: presetNames(),
    });
    for (const warning of scenario.warnings) process.stderr.write(`dlsim: warning: ${warning}\n`);
    if (scenario.fill !== undefined) return runFill(scenario, args);
    // The history as it is now: the run's policies read it; its finished PS jobs are added after.
    const history = scenario.history === undefined ? null : await RunHistory.open(scenario.history);
    const startedMs = performance.now();
    const result = simulate(scenario, { checkInvariants: args.checkInvariants ?? false, ...(history === null ? {} : { history: history.view }), record: args.out !== undefined });
    const wallS = (performance.now() - startedMs) / 1000;
    const summary: RunSummary = {
      ...result.summary,
      perf: { wallS: Math.round(wallS * 1000) / 1000, eventsPerS: wallS > 0 ? Math.round(result.summary.events / wallS) : 0 },
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
