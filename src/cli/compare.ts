import { performance } from 'node:perf_hooks';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { checkOutDir } from '../io/destination.js';
import { writeFilesAtomic } from '../io/atomic-write.js';
import { buildComparison, comparisonCsv, comparisonTable, type ComparisonRun } from '../report/compare.js';
import { runFolderOf, writeCompareReport } from '../report/run-files.js';
import { loadScenario } from '../scenario/load.js';
import type { HistorySetting } from '../scenario/scenario.js';
import { RunHistory } from '../sim/history.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { compareFill } from './compare-fill.js';
import { listOption, oneValueOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';
import { defaultWorkers, runMany } from './run-many.js';

interface CompareArgs {
  scenario: string;
  policies: string | string[];
  seeds: number;
  seed?: number;
  set?: string | string[];
  out?: string;
  json?: boolean;
  workers?: number;
  checkInvariants?: boolean;
}

/**
 * The scenario's history read once, for every run to see the same (compare never writes it), with
 * a note on stderr saying so.
 */
async function readHistorySnapshot(setting: HistorySetting): Promise<Uint8Array> {
  const history = await RunHistory.open(setting);
  try {
    process.stderr.write(`dlsim: note: compare reads the history ${history.file} (${history.size} records) and does not add to it: every run sees it as it is now\n`);
    return history.bytes();
  } finally {
    history.close();
  }
}

/** `dlsim compare SCENARIO --policies a,b,c`: every policy on the same seeds, side by side. */
export const compareCommand: CommandModule<object, CompareArgs> = {
  command: 'compare <scenario>',
  describe: 'Run several policies on the same seeds and compare their summaries',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('scenario', { type: 'string', demandOption: true, describe: 'scenario YAML file' })
      .option('policies', { type: 'string', demandOption: true, describe: 'comma-separated presets; the first is the baseline' })
      .option('seeds', { type: 'string', default: '3', coerce: wholeNumberOption('--seeds', 1), describe: 'number of seeds: the scenario seed and the ones after it' })
      .option('seed', { type: 'string', coerce: wholeNumberOption('--seed', 0), describe: 'first seed (default: the scenario seed)' })
      .option('set', { type: 'string', nargs: 1, describe: 'override a scenario value: path=value (repeatable)' })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), describe: 'folder to write comparison.csv, comparison.json, runs/<policy>/ (the first seed\'s run files) and report.html to' })
      .option('json', { type: 'boolean', describe: 'print the comparison as one JSON object' })
      .option('workers', { type: 'string', coerce: wholeNumberOption('--workers', 1), describe: 'worker threads (default: one per core); results do not depend on it' })
      .option('check-invariants', { type: 'boolean', describe: 'check every run after every instant and at its end (stops at the first breach, exit 2)' }) as Argv<CompareArgs>,
  handler: async (args: ArgumentsCamelCase<CompareArgs>) => {
    // Repeated --policies add up: `--policies a --policies b` is `--policies a,b`.
    const policies = listOption(args.policies).join(',').split(',').map((p) => p.trim()).filter((p) => p !== '');
    if (policies.length === 0) throw new ConfigError('--policies', 'name at least one policy');
    const known = presetNames();
    for (const policy of policies) {
      if (!known.includes(policy)) throw new ConfigError('--policies', `unknown policy "${policy}"; known policies: ${known.join(', ')}`);
    }
    if (new Set(policies).size !== policies.length) throw new ConfigError('--policies', 'a policy is named twice');
    if (!(Number.isInteger(args.seeds) && args.seeds >= 1)) throw new ConfigError('--seeds', `expected a positive integer, got ${args.seeds}`);
    if (args.workers !== undefined && !(Number.isInteger(args.workers) && args.workers >= 1)) {
      throw new ConfigError('--workers', `expected a positive integer, got ${args.workers}`);
    }
    if (args.out !== undefined) checkOutDir(args.out, '--out');
    const sets = listOption(args.set);
    // Load once here so that scenario errors are reported as such, before any run starts.
    const scenario = await loadScenario(args.scenario, { policy: policies[0], seed: args.seed, sets, knownPolicies: known });
    for (const warning of scenario.warnings) process.stderr.write(`dlsim: warning: ${warning}\n`);
    const seeds = Array.from({ length: args.seeds }, (_, i) => scenario.seed + i);
    if (scenario.fill !== undefined) {
      return compareFill(scenario, { file: args.scenario, policies, seeds, sets, knownPolicies: known, out: args.out, json: args.json, checkInvariants: args.checkInvariants });
    }
    const historySnapshot = scenario.history === undefined ? undefined : await readHistorySnapshot(scenario.history);
    const requests: RunRequest[] = policies.flatMap((policy) =>
      seeds.map((seed) => ({
        file: args.scenario,
        policy,
        seed,
        sets,
        ...(args.checkInvariants === undefined ? {} : { checkInvariants: args.checkInvariants }),
        ...(historySnapshot === undefined ? {} : { historySnapshot }),
        ...(args.out !== undefined && seed === seeds[0] ? { outDir: runFolderOf(args.out, policy) } : {}),
      })),
    );
    const startedMs = performance.now();
    const summaries = await runMany(requests, args.workers ?? defaultWorkers(requests.length));
    const wallS = (performance.now() - startedMs) / 1000;
    const runs: ComparisonRun[] = requests.map((r, i) => ({ policy: r.policy, seed: r.seed, summary: summaries[i]! }));
    const comparison = buildComparison(scenario.name, policies, runs);
    if (args.out !== undefined) {
      // comparison.json last: when it is there, comparison.csv is from the same comparison.
      writeFilesAtomic(args.out, [
        ['comparison.csv', comparisonCsv(runs)],
        ['comparison.json', `${JSON.stringify(comparison, null, 2)}\n`],
      ]);
      writeCompareReport(args.out);
    }
    if (args.json) return printJson(comparison);
    process.stdout.write(`${comparisonTable(comparison)}\n\n${requests.length} runs in ${wallS.toFixed(1)}s\n`);
  },
};
