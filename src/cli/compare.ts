import { performance } from 'node:perf_hooks';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { checkOutDir } from '../io/destination.js';
import { writeFilesAtomic } from '../io/atomic-write.js';
import { adaptiveSeedsFooter, addSeedsUntilNarrow } from '../report/adaptive-seeds.js';
import { buildComparison, comparisonCsv, comparisonTable, knownMetricNames, OPEN_METRIC_PREFIXES, type AdaptiveSeedsOutcome, type Comparison, type ComparisonRun } from '../report/compare.js';
import { comparisonProvenance } from '../report/provenance.js';
import { parseMetricsOption } from '../report/table-rows.js';
import { runFolderOf, writeCompareReport } from '../report/run-files.js';
import { loadScenario } from '../scenario/load.js';
import type { HistorySetting } from '../scenario/scenario.js';
import { RunHistory } from '../sim/history.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { compareFill } from './compare-fill.js';
import { listOption, oneValueOption, seedsOption, shareOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';
import { withProgress } from './progress.js';
import { defaultWorkers, runMany } from './run-many.js';

interface CompareArgs {
  scenario: string;
  policies: string | string[];
  seeds: number | 'auto';
  ci?: number;
  maxSeeds?: number;
  metrics?: string;
  seed?: number;
  set?: string | string[];
  out?: string;
  json?: boolean;
  workers?: number;
  checkInvariants?: boolean;
  quiet?: boolean;
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
      .option('seeds', { type: 'string', default: '3', coerce: seedsOption('--seeds'), describe: 'number of seeds: the scenario seed and the ones after it; auto: add seeds until every headline metric\'s 95% CI is within --ci of its mean' })
      .option('ci', { type: 'string', coerce: shareOption('--ci'), describe: 'with --seeds auto: widest 95% CI half-width allowed, as a share of the mean (default 5%)' })
      .option('max-seeds', { type: 'string', coerce: wholeNumberOption('--max-seeds', 2), describe: 'with --seeds auto: most seeds to run (default 200)' })
      .option('metrics', { type: 'string', coerce: oneValueOption('--metrics'), describe: 'comma-separated table rows: dotted metric names, groups (jctS) or aliases (failed, faults, lostGpuHours, downtimeGpuHours, waiting, …)' })
      .option('seed', { type: 'string', coerce: wholeNumberOption('--seed', 0), describe: 'first seed (default: the scenario seed)' })
      .option('set', { type: 'string', nargs: 1, describe: 'override a scenario value: path=value (repeatable)' })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), describe: 'folder to write comparison.csv, comparison.json, runs/<policy>/ (the first seed\'s run files) and report.html to' })
      .option('json', { type: 'boolean', describe: 'print the comparison as one JSON object' })
      .option('workers', { type: 'string', coerce: wholeNumberOption('--workers', 1), describe: 'worker threads (default: one per core); results do not depend on it' })
      .option('check-invariants', { type: 'boolean', describe: 'check every run after every instant and at its end (stops at the first breach, exit 2)' })
      .option('quiet', { type: 'boolean', describe: 'no progress bars on stderr (they are drawn only on a terminal)' }) as Argv<CompareArgs>,
  handler: async (args: ArgumentsCamelCase<CompareArgs>) => {
    // Repeated --policies add up: `--policies a --policies b` is `--policies a,b`.
    const policies = listOption(args.policies).join(',').split(',').map((p) => p.trim()).filter((p) => p !== '');
    if (policies.length === 0) throw new ConfigError('--policies', 'name at least one policy');
    const known = presetNames();
    for (const policy of policies) {
      if (!known.includes(policy)) throw new ConfigError('--policies', `unknown policy "${policy}"; known policies: ${known.join(', ')}`);
    }
    if (new Set(policies).size !== policies.length) throw new ConfigError('--policies', 'a policy is named twice');
    const auto = args.seeds === 'auto';
    if (!auto && !(Number.isInteger(args.seeds) && (args.seeds as number) >= 1)) throw new ConfigError('--seeds', `expected a positive integer or auto, got ${args.seeds}`);
    if (!auto && args.ci !== undefined) throw new ConfigError('--ci', 'applies only with --seeds auto');
    if (!auto && args.maxSeeds !== undefined) throw new ConfigError('--max-seeds', 'applies only with --seeds auto');
    const rows = args.metrics === undefined ? undefined : parseMetricsOption(args.metrics, knownMetricNames(), OPEN_METRIC_PREFIXES);
    if (args.workers !== undefined && !(Number.isInteger(args.workers) && args.workers >= 1)) {
      throw new ConfigError('--workers', `expected a positive integer, got ${args.workers}`);
    }
    if (args.out !== undefined) checkOutDir(args.out, '--out');
    const sets = listOption(args.set);
    // Load once here so that scenario errors are reported as such, before any run starts.
    const scenario = await loadScenario(args.scenario, { policy: policies[0], seed: args.seed, sets, knownPolicies: known });
    for (const warning of scenario.warnings) process.stderr.write(`dlsim: warning: ${warning}\n`);
    if (scenario.fill !== undefined && auto) throw new ConfigError('--seeds', 'auto does not apply to a fill scenario (its figures are placements, not timed runs): give a number');
    if (scenario.fill !== undefined && rows !== undefined) throw new ConfigError('--metrics', 'does not apply to a fill scenario (its table has its own rows)');
    const seeds = Array.from({ length: auto ? 0 : (args.seeds as number) }, (_, i) => scenario.seed + i);
    if (scenario.fill !== undefined) {
      const provenance = comparisonProvenance(args.scenario, scenario, policies, sets, seeds);
      return compareFill(scenario, { file: args.scenario, policies, seeds, sets, knownPolicies: known, out: args.out, json: args.json, checkInvariants: args.checkInvariants, provenance });
    }
    const historySnapshot = scenario.history === undefined ? undefined : await readHistorySnapshot(scenario.history);
    const requestsOf = (batch: readonly number[]): RunRequest[] =>
      policies.flatMap((policy) =>
        batch.map((seed) => ({
          file: args.scenario,
          policy,
          seed,
          sets,
          ...(args.checkInvariants === undefined ? {} : { checkInvariants: args.checkInvariants }),
          ...(historySnapshot === undefined ? {} : { historySnapshot }),
          // The first seed's run of each policy writes its files for the report.
          ...(args.out !== undefined && seed === scenario.seed ? { outDir: runFolderOf(args.out, policy) } : {}),
        })),
      );
    const runs: ComparisonRun[] = [];
    const startedMs = performance.now();
    const runSeeds = async (batch: readonly number[]): Promise<Comparison> => {
      const requests = requestsOf(batch);
      const workers = args.workers ?? defaultWorkers(requests.length);
      const summaries = await withProgress({ runs: requests.length, lanes: workers, quiet: args.quiet }, (progress) => runMany(requests, workers, progress));
      requests.forEach((r, i) => runs.push({ policy: r.policy, seed: r.seed, summary: summaries[i]! }));
      // Preset order, then seed order, whatever the batches: the same comparison as a fixed count.
      runs.sort((a, b) => policies.indexOf(a.policy) - policies.indexOf(b.policy) || a.seed - b.seed);
      return buildComparison(scenario.name, policies, runs);
    };
    let comparison: Comparison;
    let adaptive: AdaptiveSeedsOutcome | undefined;
    if (auto) {
      const onBatch = (line: string): void => void process.stderr.write(`dlsim: ${line}\n`);
      const result = await addSeedsUntilNarrow({ firstSeed: scenario.seed, target: args.ci ?? DEFAULT_CI_SHARE, maxSeeds: args.maxSeeds ?? DEFAULT_MAX_SEEDS, runSeeds, onBatch });
      ({ comparison, outcome: adaptive } = result);
      seeds.push(...result.seeds);
    } else {
      comparison = await runSeeds(seeds);
    }
    const wallS = (performance.now() - startedMs) / 1000;
    comparison = { ...comparison, provenance: comparisonProvenance(args.scenario, scenario, policies, sets, seeds), ...(adaptive === undefined ? {} : { adaptiveSeeds: adaptive }) };
    if (args.out !== undefined) {
      // comparison.json last: when it is there, comparison.csv is from the same comparison.
      writeFilesAtomic(args.out, [
        ['comparison.csv', comparisonCsv(runs)],
        ['comparison.json', `${JSON.stringify(comparison, null, 2)}\n`],
      ]);
      writeCompareReport(args.out);
    }
    if (args.json) return printJson(comparison);
    const footer = adaptive === undefined ? '' : `\n${adaptiveSeedsFooter(adaptive)}`;
    process.stdout.write(`${comparisonTable(comparison, rows === undefined ? {} : { rows })}\n\n${runs.length} runs in ${wallS.toFixed(1)}s${footer}\n`);
  },
};

/** `--ci` when --seeds auto is given without it: 5% of the mean. */
const DEFAULT_CI_SHARE = 0.05;
/** `--max-seeds` when --seeds auto is given without it. */
const DEFAULT_MAX_SEEDS = 200;
