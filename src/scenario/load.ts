import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { RandomStreams } from '../engine/random.js';
import { ConfigError } from '../errors.js';
import type { ClusterSpec, NodeSpec } from '../model/cluster-spec.js';
import type { JobSpec, LossCurveSpec, PsTruth, ReplicaDemand, RoleSpec, SpeedSpec } from '../model/job-spec.js';
import { dataSpecProblem } from '../model/data-shards.js';
import { markIdsUnique } from '../model/job-ids.js';
import { convergenceStep } from '../model/observations.js';
import { expectedDownShare, type FaultCatalog, loadCatalog, loadCatalogFile, scaledCatalog } from '../faults/catalog.js';
import { presetNames, presetStack } from '../policies/presets.js';
import { policyEntry, policyIds, type PolicyKind } from '../policies/registry.js';
import type { FaultOccurrence } from '../faults/occurrence.js';
import { readFaultTrace, replayOccurrences } from '../faults/trace-replay.js';
import { traceFormatById, traceFormatIds, traceFormats } from '../workload/formats.js';
import { MAX_FAULTS_PER_DAY, MAX_JOBS, MAX_NODES, MAX_STEPS } from '../model/limits.js';
import { readCheckedJobs } from '../workload/checked-jobs.js';
import { nativeIssue } from '../workload/formats/native.js';
import { type ElasticJobManifest, dataSteps, elasticJobKind, elasticJobSpec, readElasticJobFile } from '../workload/formats/elastic-job.js';
import { noJobError } from '../workload/import.js';
import { SharedRoles } from '../workload/shared-roles.js';
import { SkipCounter } from '../workload/skip-counter.js';
import { generateSyntheticJobs, SYNTHETIC_KINDS, type SyntheticSpec } from '../workload/synthetic.js';
import { PREPROCESSING_FAMILIES, type PreprocessingSpec } from '../model/preprocessing.js';
import type { TraceFormat } from '../workload/trace-format.js';
import { formatDurationS, parseDurationS } from '../io/duration.js';
import { applySet, assignmentPath, setOption } from './overrides.js';
import { type MachineSample, sampledMachines, sampleSize, scaledMachines } from './cluster-from.js';
import { drawnPreprocessing, inWindow, retimedArrivals, scaledProblem, scaledTraceJob, type TraceWindow } from './trace-jobs.js';
import { type YamlPath, firstIssue, formatYamlPath, yamlErrorMap } from '../io/yaml-errors.js';
import { lineOf, parseYamlFile, protoKeyPath, readYamlText, recursivePath } from '../io/yaml-file.js';
import {
  type ElasticJobEntryDoc,
  type FaultsDoc,
  type HistoryDoc,
  type JobDoc,
  type NodeGroupDoc,
  type RoleDoc,
  type ScenarioDoc,
  type SyntheticDoc,
  type TraceDoc,
  DURATION_HINT,
  largestNodeGpus,
  validateScenarioDoc,
} from './schema.js';
import {
  type BenchSettings,
  DEFAULT_SIM_PARAMS,
  type Expectation,
  type FaultSetup,
  type HistorySetting,
  type PolicyChoice,
  type PolicyChoices,
  type Scenario,
} from './scenario.js';

/** Options of `loadScenario`: CLI overrides and the policy names the registry knows. */
export interface LoadScenarioOptions {
  /** Overrides the YAML `policy` (CLI `--policy`). */
  readonly policy?: string;
  /** Overrides the YAML `seed` (CLI `--seed`); a non-negative integer. */
  readonly seed?: number;
  /** CLI `--set path=value` assignments, applied in order before validation. */
  readonly sets?: readonly string[];
  /** Valid policy names; the effective policy must be one of them. */
  readonly knownPolicies: readonly string[];
}

/** Default step time of allreduce jobs, in seconds. */
const DEFAULT_STEP_TIME_S = 1;
/** Default share of an allreduce step spent in all-reduce. */
const DEFAULT_COMM_FRACTION = 0.1;
/** Default Optimus PS speed parameters. */
const DEFAULT_PS_SPEED = { t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 } as const;

/**
 * Reads, overrides (`--set`), validates and builds a scenario. Throws ConfigError with a one-line
 * message naming the file, line and YAML path (or the CLI option) for any problem.
 */
export async function loadScenario(file: string, options: LoadScenarioOptions): Promise<Scenario> {
  const text = readYamlText(file, 'scenario file');
  const parsed = parseYamlFile(file, text);
  const { document, lineCounter } = parsed;
  let raw = parsed.raw;
  const recursive = recursivePath(raw);
  if (recursive) {
    const line = lineOf(document, lineCounter, recursive);
    throw new ConfigError(joinWhere(line === null ? file : `${file}:${line}`, formatYamlPath(recursive)), 'a recursive alias (an anchor used inside itself)');
  }
  const protoInFile = protoKeyPath(raw);
  if (protoInFile) {
    const line = lineOf(document, lineCounter, protoInFile);
    throw new ConfigError(joinWhere(line === null ? file : `${file}:${line}`, formatYamlPath(protoInFile)), 'the key "__proto__" is not allowed');
  }

  const sets = options.sets ?? [];
  for (const assignment of sets) {
    raw = applySet(raw, assignment);
    const protoSet = protoKeyPath(raw);
    if (protoSet) throw new ConfigError(setOption(assignment), 'the key "__proto__" is not allowed');
  }

  /** Where a problem at `path` is reported: the `--set` that wrote it, else the file with the line when known. */
  const locate = (path: YamlPath, unknownKey?: string): string => {
    const shown = formatYamlPath(path);
    const full = unknownKey === undefined ? path : [...path, unknownKey];
    for (let i = sets.length - 1; i >= 0; i--) {
      const assignment = sets[i]!;
      if (isPrefix(assignmentPath(assignment), full)) return joinWhere(setOption(assignment), shown);
    }
    const line = lineOf(document, lineCounter, full);
    return joinWhere(line === null ? file : `${file}:${line}`, shown);
  };

  const validated = validateScenarioDoc(raw);
  if (!validated.ok) {
    const { path, message, unknownKey } = validated.issue;
    throw new ConfigError(locate(path, unknownKey), message);
  }
  const doc = validated.doc;

  const policy = options.policy ?? doc.policy;
  if (!options.knownPolicies.includes(policy)) {
    const known = options.knownPolicies.length > 0 ? options.knownPolicies.join(', ') : '(none)';
    const where = options.policy !== undefined ? '--policy' : locate(['policy']);
    throw new ConfigError(where, `unknown policy "${policy}"; known policies: ${known}`);
  }
  if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0)) {
    throw new ConfigError('--seed', `expected a non-negative integer, got ${options.seed}`);
  }
  const seed = options.seed ?? doc.seed;
  if (doc.recovery !== undefined && !policyEntry('recovery', doc.recovery)) {
    throw new ConfigError(locate(['recovery']), `unknown recovery policy "${doc.recovery}"; known: ${policyIds('recovery').join(', ')}`);
  }
  if (doc.recovery !== undefined && doc.policies?.recovery !== undefined) {
    throw new ConfigError(locate(['policies', 'recovery']), 'the recovery policy is named twice (recovery and policies.recovery): keep one');
  }
  const policies = policyChoicesOf(doc.policies ?? {}, locate);
  const recoveryChoice = doc.policies?.recovery;
  const recovery = recoveryChoice?.name ?? doc.recovery;
  const recoveryTimes = { ...(doc.recoveryTimes ?? {}) };
  // A recovery policy's options are its times and counts, as recoveryTimes gives them.
  if (recoveryChoice !== undefined && Object.keys(recoveryChoice.options).length > 0) recoveryTimes[recoveryChoice.name] = recoveryChoice.options as Record<string, number | string>;
  const recoveryTimesS = Object.keys(recoveryTimes).length > 0 ? recoveryTimesOf(recoveryTimes, recovery ?? presetStack(policy).recovery, locate) : {};

  const warnings: string[] = [];
  const cluster = await resolveCluster(doc, file, seed, locate, warnings);
  if (doc.cluster.from !== undefined) checkGpuTypesAgainst(cluster, doc, locate);
  const traceJobs = doc.workload.trace ? await readTraceJobs(doc.workload.trace, file, locate, warnings) : [];
  const untimed = doc.fill === undefined ? traceJobs.find((job) => job.untimed) : undefined;
  if (untimed !== undefined) {
    throw new ConfigError(locate(['workload', 'trace']), `${untimed.source}: a job list without times replays only in a fill run (add a fill section)`);
  }
  const jobs = buildJobs(doc, file, seed, largestNodeGpus(cluster.nodes), traceJobs, locate);
  // Trace jobs' drawn preprocessing needs, beside their specs (a spec keeps the shape its format gave it).
  const preprocessing = new Map<string, PreprocessingSpec>();
  for (const job of traceJobs) {
    const drawn = drawnPreprocessing(job);
    if (drawn !== null) preprocessing.set(job.id, drawn);
  }
  const faults = doc.faults ? await resolveFaults(doc.faults, file, seed, cluster, locate, warnings) : null;
  const bench = benchSettingsOf(doc, policy, locate);
  return {
    name: doc.name ?? basename(file, extname(file)),
    file,
    seed,
    policy,
    ...(Object.keys(policies).length === 0 ? {} : { policies }),
    ...(recovery === undefined ? {} : { recovery }),
    recoveryTimesS,
    horizonS: doc.sim?.horizon ?? Infinity,
    params: {
      resizePauseS: doc.sim?.resizePause ?? DEFAULT_SIM_PARAMS.resizePauseS,
      crossRackSlowdown: doc.sim?.crossRackSlowdown ?? DEFAULT_SIM_PARAMS.crossRackSlowdown,
      oomAfterS: doc.sim?.oomAfter ?? DEFAULT_SIM_PARAMS.oomAfterS,
      samplePeriodS: doc.sim?.samplePeriod ?? DEFAULT_SIM_PARAMS.samplePeriodS,
      ...(doc.sim?.dataWorkerNetworkCap === undefined ? {} : { dataWorkerNetworkCapCpuMilli: Math.round(doc.sim.dataWorkerNetworkCap * 1000) }),
    },
    cluster,
    jobs,
    ...(preprocessing.size === 0 ? {} : { preprocessing }),
    ...(doc.users === undefined ? {} : { userWeights: Object.fromEntries(Object.entries(doc.users).map(([user, { weight }]) => [user, weight])) }),
    faults,
    ...(doc.fill === undefined ? {} : { fill: { order: doc.fill.order, coverage: doc.fill.coverage } }),
    ...(doc.history === undefined ? {} : { history: historySettingOf(doc.history, file, locate) }),
    bench,
    warnings,
  };
}

/**
 * The scenario's `history`: its file resolved against the scenario's folder (as trace files are).
 * A missing file is fine (`dlsim run` creates it); something there that is not a file is an error
 * at the key. Whether the file is a history is checked when it is opened.
 */
function historySettingOf(history: HistoryDoc, file: string, locate: (path: YamlPath) => string): HistorySetting {
  const historyFile = resolve(dirname(file), history.file);
  if (existsSync(historyFile) && !statSync(historyFile).isFile()) throw new ConfigError(locate(['history']), `${historyFile}: not a file`);
  return { file: historyFile, ...(history.startS === undefined ? {} : { startS: history.startS }) };
}

/**
 * The scenario's `policies:` checked against the registry: each name registered for its kind, each
 * kind's options valid for that policy (a ConfigError at the YAML path otherwise). Recovery's
 * options are its times and counts (checked with recoveryTimes), so they pass through here.
 */
function policyChoicesOf(byKind: NonNullable<ScenarioDoc['policies']>, locate: (path: YamlPath) => string): PolicyChoices {
  const choices: Partial<Record<PolicyKind, PolicyChoice>> = {};
  for (const kind of ['scheduling', 'placement', 'recovery', 'autoscale', 'data'] as const) {
    const choice = byKind[kind];
    if (choice === undefined) continue;
    const entry = policyEntry(kind, choice.name);
    if (!entry) throw new ConfigError(locate(['policies', kind]), `unknown ${kind} policy "${choice.name}"; known: ${policyIds(kind).join(', ')}`);
    if (kind === 'recovery') {
      choices.recovery = choice;
      continue;
    }
    const schema = 'options' in entry ? entry.options : undefined;
    if (schema === undefined) {
      const first = Object.keys(choice.options)[0];
      if (first !== undefined) throw new ConfigError(locate(['policies', kind, 'options', first]), `${kind} policy ${choice.name} takes no options`);
      choices[kind] = choice;
      continue;
    }
    const parsed = schema.safeParse(choice.options, { error: yamlErrorMap });
    if (!parsed.success) {
      const { path, message, unknownKey } = firstIssue(parsed.error);
      const full = unknownKey === undefined ? path : [...path, unknownKey];
      throw new ConfigError(locate(['policies', kind, 'options', ...full]), message);
    }
    choices[kind] = { name: choice.name, options: parsed.data };
  }
  return choices;
}

/**
 * The scenario's `compare` (default: the policy in use), `baselineSeeds` and `expect`: every policy
 * they name must be a preset (a ConfigError at its YAML path otherwise), and `compare` names each
 * preset once.
 */
function benchSettingsOf(doc: ScenarioDoc, policy: string, locate: (path: YamlPath) => string): BenchSettings {
  const known = presetNames();
  const checkPolicy = (name: string, path: YamlPath): void => {
    if (!known.includes(name)) throw new ConfigError(locate(path), `unknown policy "${name}"; known policies: ${known.join(', ')}`);
  };
  const compare = doc.compare ?? [policy];
  compare.forEach((name, index) => {
    checkPolicy(name, ['compare', index]);
    if (compare.indexOf(name) !== index) throw new ConfigError(locate(['compare', index]), `"${name}" is named twice`);
  });
  const expect: Expectation[] = doc.expect.map((entry, index) => {
    checkPolicy(entry.policy, ['expect', index, 'policy']);
    if (entry.baseline !== undefined) checkPolicy(entry.baseline, ['expect', index, 'baseline']);
    return {
      metric: entry.metric,
      policy: entry.policy,
      ...(entry.baseline === undefined ? {} : { baseline: entry.baseline }),
      target: entry.target,
      tolerance: entry.tolerance,
      seeds: entry.seeds,
      source: entry.source,
      ...(entry.gap === undefined ? {} : { gap: { model: entry.gap.model, drift: entry.gap.drift } }),
      where: locate(['expect', index]),
    };
  });
  return { compare, baselineSeeds: doc.baselineSeeds, expect };
}

/**
 * The scenario's faults: a shipped catalog by name (or a catalog file, path relative to the
 * scenario), its rates scaled and entries overridden, and the faults of a replayed fault trace.
 */
async function resolveFaults(
  faults: FaultsDoc,
  file: string,
  seed: number,
  cluster: ClusterSpec,
  locate: (path: YamlPath) => string,
  warnings: string[],
): Promise<FaultSetup> {
  const path: YamlPath = ['faults'];
  const atPath = <T>(sub: YamlPath, make: () => T): T => {
    try {
      return make();
    } catch (error) {
      if (error instanceof ConfigError && !error.where.includes(':')) throw new ConfigError(locate([...path, ...sub]), error.message);
      throw error;
    }
  };
  const base = atPath(['catalog'], () => {
    if (!/\.ya?ml$/.test(faults.catalog)) return loadCatalog(faults.catalog);
    const catalogFile = resolve(dirname(file), faults.catalog);
    // A catalog file that is missing or unreadable is reported at the scenario's key; its own problems at its lines.
    if (!existsSync(catalogFile)) throw new ConfigError(locate([...path, 'catalog']), `${catalogFile}: no such file`);
    if (!statSync(catalogFile).isFile()) throw new ConfigError(locate([...path, 'catalog']), `${catalogFile}: not a file`);
    return loadCatalogFile(catalogFile);
  });
  const catalog = atPath(['overrides'], () => scaledCatalog(base, faults.scale, faults.overrides));
  checkFaultsPerDay(catalog, cluster, locate);
  warnIfMostlyDown(catalog, cluster, locate, warnings);
  let replay: FaultOccurrence[] = [];
  if (faults.trace) {
    const traceFile = resolve(dirname(file), faults.trace.file);
    const traced = await atPathOfFile(locate([...path, 'trace', 'file']), () => readFaultTrace(traceFile));
    replay = replayOccurrences(traced, cluster, { timeScale: faults.trace.timeScale, startS: faults.trace.start, seed });
  }
  return { catalog, replay, hangTimeoutS: faults.hangTimeout };
}

/** Largest relaunch or other count a scenario's `recoveryTimes` may set. */
const MAX_RECOVERY_COUNT = 1_000_000;

/** Throws at `faults.scale` when the catalog, scaled, expects more than MAX_FAULTS_PER_DAY faults a day on the cluster. */
/** Share of GPUs out of service in the long run above which a scenario is warned that its jobs may never end. */
const MOSTLY_DOWN_SHARE = 0.5;

/**
 * Warns (at faults.scale) when the catalog's outages keep more than half of the cluster's GPUs out
 * of service on average: jobs then wait for rare windows of capacity, and a run without a horizon
 * may simulate years of faults before its last job ends.
 */
function warnIfMostlyDown(catalog: FaultCatalog, cluster: ClusterSpec, locate: (path: YamlPath) => string, warnings: string[]): void {
  const gpuNodes = cluster.nodes.filter((n) => n.gpus > 0);
  if (gpuNodes.length === 0) return;
  const gpusPerNode = gpuNodes.reduce((sum, n) => sum + n.gpus, 0) / gpuNodes.length;
  const share = expectedDownShare(catalog, gpusPerNode);
  if (share > MOSTLY_DOWN_SHARE) {
    warnings.push(
      `${locate(['faults', 'scale'])}: faults keep ${(share * 100).toFixed(0)}% of the GPUs out of service on average (rates × mean repair times); jobs may wait for years of simulated time (set sim.horizon, or lower the scale)`,
    );
  }
}

function checkFaultsPerDay(catalog: FaultCatalog, cluster: ClusterSpec, locate: (path: YamlPath) => string): void {
  let gpus = 0;
  for (const node of cluster.nodes) gpus += node.gpus;
  let perDay = 0;
  for (const type of catalog.types) perDay += type.ratePerGpuDay * gpus + type.ratePerNodeDay * cluster.nodes.length;
  if (!(perDay <= MAX_FAULTS_PER_DAY)) {
    throw new ConfigError(
      locate(['faults', 'scale']),
      `expects ${perDay.toPrecision(3)} faults per day on this cluster: expected at most ${MAX_FAULTS_PER_DAY} (lower the scale or the rates)`,
    );
  }
}

/**
 * The times and counts the scenario's `recoveryTimes` sets for the recovery policy in use: times as
 * seconds by option name (`dlrover: {replace: 3m}` -> replaceS: 180), counts as whole numbers under
 * their own name (`dlrover: {maxRelaunches: 5}`). Every policy's entry is checked, so one scenario
 * serves a comparison of stacks: an unknown policy, a name a policy does not have, a bad duration or
 * a count that is not a whole number from 0 to MAX_RECOVERY_COUNT is a ConfigError at its YAML path.
 */
function recoveryTimesOf(
  byPolicy: Readonly<Record<string, Readonly<Record<string, number | string>>>>,
  recovery: string,
  locate: (path: YamlPath) => string,
): Record<string, number> {
  let settings: Record<string, number> = {};
  for (const [policy, values] of Object.entries(byPolicy)) {
    const entry = policyEntry('recovery', policy);
    if (!entry) throw new ConfigError(locate(['recoveryTimes', policy]), `unknown recovery policy "${policy}"; known: ${policyIds('recovery').join(', ')}`);
    const policySettings: Record<string, number> = {};
    for (const [name, value] of Object.entries(values)) {
      const where = locate(['recoveryTimes', policy, name]);
      if (name in entry.defaultCounts) {
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_RECOVERY_COUNT) {
          throw new ConfigError(where, `expected a count, a whole number from 0 to ${MAX_RECOVERY_COUNT}; got ${value}`);
        }
        policySettings[name] = value;
      } else if (`${name}S` in entry.defaultTimesS) {
        const seconds = parseDurationS(value);
        if (seconds === null) throw new ConfigError(where, `expected a duration ${DURATION_HINT}, got ${value}`);
        policySettings[`${name}S`] = seconds;
      } else {
        const times = Object.keys(entry.defaultTimesS).map((key) => key.replace(/S$/, ''));
        const counts = Object.keys(entry.defaultCounts);
        const known = `its times: ${times.length > 0 ? times.join(', ') : '(none)'}${counts.length > 0 ? `; its counts: ${counts.join(', ')}` : ''}`;
        throw new ConfigError(where, `recovery policy ${policy} has no time "${name}"; ${known}`);
      }
    }
    if (policy === recovery) settings = policySettings;
  }
  return settings;
}

/**
 * The scenario's nodes: its node groups, then the machines of `cluster.from` when given (a sample
 * of them drawn from the scenario's seed, then `scale` copies).
 */
async function resolveCluster(
  doc: ScenarioDoc,
  file: string,
  seed: number,
  locate: (path: YamlPath) => string,
  warnings: string[],
): Promise<ClusterSpec> {
  const nodes: NodeSpec[] = [...buildCluster(doc.cluster.nodes ?? []).nodes];
  const from = doc.cluster.from;
  if (from !== undefined) {
    const format = knownFormat(from.format, ['cluster', 'from', 'format'], locate);
    if (!format.readCluster) {
      const withClusters = Object.values(traceFormats).filter((f) => f.readCluster).map((f) => f.id);
      throw new ConfigError(
        locate(['cluster', 'from', 'format']),
        `format "${format.id}" has no machine list; formats with one: ${withClusters.join(', ')}`,
      );
    }
    const skipped = new SkipCounter();
    const readCluster = format.readCluster.bind(format);
    const machines = await atPathOfFile(locate(['cluster', 'from', 'file']), () =>
      readCluster(resolve(dirname(file), from.file), { limit: Infinity, strict: false, onSkip: (error) => skipped.add(error) }),
    );
    if (machines.nodes.length === 0) {
      const first = skipped.examples[0];
      const why = first === undefined ? 'the file lists no machine' : `every row was skipped; the first: ${first.message}`;
      throw new ConfigError(locate(['cluster', 'from', 'file']), `no node read (${format.id}): ${why}`);
    }
    let read = machines.nodes;
    if (from.sample !== undefined) {
      const count = sampleSize(from.sample as MachineSample, read.length);
      if (count > read.length) throw new ConfigError(locate(['cluster', 'from', 'sample', 'nodes']), `${count} machines asked, the list has ${read.length}`);
      read = sampledMachines(read, count, new RandomStreams(seed).stream('cluster-sample'));
    }
    const total = nodes.length + read.length * from.scale;
    if (total > MAX_NODES) {
      const key = from.scale === 1 ? 'file' : 'scale';
      throw new ConfigError(locate(['cluster', 'from', key]), `${total} nodes in all: expected at most ${MAX_NODES}`);
    }
    read = scaledMachines(read, from.scale);
    if (skipped.total > 0) warnings.push(`cluster.from ${from.file}: ${skipped.describe()}`);
    const names = new Set(nodes.map((n) => n.name));
    for (const machine of read) {
      if (names.has(machine.name)) throw new ConfigError(locate(['cluster', 'from', 'file']), `node name "${machine.name}" is used twice`);
      names.add(machine.name);
      nodes.push(machine);
    }
  }
  return { nodes };
}

/** Inline and synthetic GPU types checked against a cluster read from a machine list. */
function checkGpuTypesAgainst(cluster: ClusterSpec, doc: ScenarioDoc, locate: (path: YamlPath) => string): void {
  const present = new Set(cluster.nodes.filter((n) => n.gpus > 0).map((n) => n.gpuType));
  const check = (wanted: readonly string[], path: YamlPath): void => {
    if (wanted.length > 0 && !wanted.some((type) => present.has(type))) {
      throw new ConfigError(locate(path), `no node has GPU type ${wanted.join(' or ')}`);
    }
  };
  doc.workload.jobs?.forEach((job, index) => check(job.gpuTypes, ['workload', 'jobs', index, 'gpuTypes']));
  if (doc.workload.synthetic) check(doc.workload.synthetic.gpuTypes, ['workload', 'synthetic', 'gpuTypes']);
}

/** The trace format registered under `id`, or a ConfigError at `path` listing the known ones. */
function knownFormat(id: string, path: YamlPath, locate: (path: YamlPath) => string): TraceFormat {
  const format = traceFormatById(id);
  if (!format) throw new ConfigError(locate(path), `unknown trace format "${id}"; known formats: ${traceFormatIds().join(', ')}`);
  return format;
}

/**
 * The jobs of `workload.trace`, read through its format: those submitted in `window` (on the
 * trace's own clock, shifted to start at 0), at most `limit` of them, their times scaled (see
 * scaledTraceJob), then re-timed when `arrivalsPerMinute` is given. Bad rows are skipped with a
 * warning, or stop the load when `strict`.
 */
async function readTraceJobs(
  trace: TraceDoc,
  file: string,
  locate: (path: YamlPath) => string,
  warnings: string[],
): Promise<JobSpec[]> {
  const format = knownFormat(trace.format, ['workload', 'trace', 'format'], locate);
  const files = trace.files.map((f) => resolve(dirname(file), f));
  const skipped = new SkipCounter();
  const jobs: JobSpec[] = [];
  const limit = trace.limit ?? Infinity;
  const window: TraceWindow | null = trace.window === undefined ? null : { fromS: trace.window.from, toS: trace.window.to ?? Infinity };
  const scaling = { timeScale: trace.timeScale, loadScale: trace.loadScale, loadScaleBy: trace.loadScaleBy };
  const roles = new SharedRoles();
  const read = readCheckedJobs(format, files, {
    // A window is cut before the limit: the reader cannot count the jobs it keeps.
    limit: window === null ? limit : Infinity,
    strict: trace.strict,
    onSkip: (error) => skipped.add(error),
  });
  let outOfBounds: ConfigError | null = null;
  await atPathOfFile(locate(['workload', 'trace', 'files']), async () => {
    for await (const job of read) {
      const kept = window === null ? job : inWindow(job, window);
      if (kept === null) continue;
      const scaled = scaledTraceJob(kept, scaling);
      const problem = scaledProblem(scaled);
      if (problem) {
        const key = trace.timeScale === 1 ? 'loadScale' : 'timeScale';
        outOfBounds = new ConfigError(locate(['workload', 'trace', key]), `job ${job.id} (${job.source}): ${problem}`);
        break;
      }
      jobs.push(roles.shared(scaled));
      if (jobs.length >= limit) break;
    }
  });
  if (outOfBounds) throw outOfBounds;
  if (jobs.length === 0 && window !== null && skipped.total === 0) {
    const span = `[${formatDurationS(window.fromS)}, ${Number.isFinite(window.toS) ? formatDurationS(window.toS) : 'the end'})`;
    throw new ConfigError(locate(['workload', 'trace', 'window']), `no job of the trace is submitted in ${span}`);
  }
  if (jobs.length === 0) throw new ConfigError(locate(['workload', 'trace']), noJobError(files, skipped).message);
  if (skipped.total > 0) warnings.push(`workload.trace: ${skipped.describe()}`);
  return trace.arrivalsPerMinute === undefined ? jobs : retimedArrivals(jobs, trace.arrivalsPerMinute);
}

/**
 * Runs `read`, which reads a file a scenario names; a file that cannot be read (missing, a
 * folder, unreadable) is reported at `where` (the scenario file, line and YAML path) too.
 */
async function atPathOfFile<T>(where: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(where, error.message);
    throw error;
  }
}

function joinWhere(prefix: string, shownPath: string): string {
  return shownPath === '' ? prefix : `${prefix}: ${shownPath}`;
}

function isPrefix(prefix: readonly string[], path: YamlPath): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => segment === String(path[i]));
}

function buildCluster(groups: readonly NodeGroupDoc[]): ClusterSpec {
  const nodes: NodeSpec[] = [];
  groups.forEach((group, groupIndex) => {
    const groupName = group.group ?? `group${groupIndex}`;
    for (let k = 0; k < group.count; k++) {
      nodes.push({
        name: `${groupName}-${String(k).padStart(4, '0')}`,
        group: groupName,
        gpuType: group.gpus > 0 ? (group.gpuType ?? null) : null,
        gpus: group.gpus,
        cpuMilli: Math.round(group.cpuCores * 1000),
        memMiB: Math.round(group.memGiB * 1024),
        rack: `${groupName}-r${Math.floor(k / group.nodesPerRack)}`,
      });
    }
  });
  return { nodes };
}

/** Inline jobs, ElasticJobs, synthetic ones, then trace ones, checked for duplicate ids, sorted by submission time (stable). */
function buildJobs(
  doc: ScenarioDoc,
  file: string,
  seed: number,
  largestGpusPerNode: number,
  traceJobs: readonly JobSpec[],
  locate: (path: YamlPath) => string,
): JobSpec[] {
  const jobs: { job: JobSpec; path: YamlPath }[] = [];
  (doc.workload.jobs ?? []).forEach((jobDoc, index) => {
    const path: YamlPath = ['workload', 'jobs', index];
    jobs.push({
      job: buildJob(jobDoc, index, `${file}: ${formatYamlPath(path)}`),
      path: jobDoc.id === undefined ? path : [...path, 'id'],
    });
  });
  (doc.workload.elasticJobs ?? []).forEach((entry, index) => {
    const path: YamlPath = ['workload', 'elasticJobs', index];
    jobs.push({ job: buildElasticJob(entry, path, file, locate), path: [...path, 'manifest'] });
  });
  const synthetic = doc.workload.synthetic;
  if (synthetic !== undefined && synthetic.jobs > MAX_JOBS) {
    throw new ConfigError(locate(['workload', 'synthetic', 'jobs']), `expected a positive integer up to ${MAX_JOBS}`);
  }
  if (synthetic !== undefined) {
    const spec = toSyntheticSpec(synthetic, synthetic.gpusPerNode ?? largestGpusPerNode);
    const source = `${file}: workload.synthetic`;
    for (const job of generateSyntheticJobs(spec, new RandomStreams(seed), source)) {
      // Generated jobs are held to the same bounds as traced ones (e.g. arrivals so sparse they land past 100 years).
      const issue = nativeIssue(job);
      if (issue) throw new ConfigError(locate(['workload', 'synthetic']), `generated job ${job.id}: ${issue.field}: ${issue.reason}`);
      jobs.push({ job, path: ['workload', 'synthetic'] });
    }
  }
  for (const job of traceJobs) jobs.push({ job, path: ['workload', 'trace'] });
  const firstPathById = new Map<string, YamlPath>();
  for (const { job, path } of jobs) {
    const first = firstPathById.get(job.id);
    if (first !== undefined) {
      const fromTrace = path[1] === 'trace' ? ` (trace row ${job.source})` : '';
      throw new ConfigError(locate(path), `duplicate job id "${job.id}"${fromTrace} (first used at ${formatYamlPath(first)})`);
    }
    firstPathById.set(job.id, path);
  }
  const sorted = jobs.map(({ job }) => job).sort((a, b) => a.submitS - b.submitS);
  markIdsUnique(sorted);
  return sorted;
}

function demandOf(role: { gpus: number; gpuMilli: number; cpuCores: number; memGiB: number }): ReplicaDemand {
  return {
    gpus: role.gpus,
    gpuMilli: role.gpuMilli,
    cpuMilli: Math.round(role.cpuCores * 1000),
    memMiB: Math.round(role.memGiB * 1024),
  };
}

function roleOf(role: 'ps' | 'chief', doc: RoleDoc): RoleSpec {
  return { role, replicas: doc.replicas, demand: demandOf(doc), ...memUseOf(doc) };
}

/** The role's real memory use in MiB, when the document gives one. */
function memUseOf(doc: { memUseGiB?: number | undefined }): { memUseMiB?: number } {
  return doc.memUseGiB === undefined ? {} : { memUseMiB: Math.round(doc.memUseGiB * 1024) };
}

/** A validated inline job as a JobSpec (`source` = "<file>: workload.jobs[i]"). */
function buildJob(job: JobDoc, index: number, source: string): JobSpec {
  const roles: RoleSpec[] = [{ role: 'worker', replicas: job.replicas, demand: demandOf(job), ...memUseOf(job) }];
  if (job.ps) roles.push(roleOf('ps', job.ps));
  if (job.chief) roles.push(roleOf('chief', job.chief));
  const { speed, totalSteps } = speedAndWork(job);
  const loss: LossCurveSpec | undefined = job.loss && { b0: job.loss.b0, b1: job.loss.b1, b2: job.loss.b2, noise: job.loss.noise, targetLoss: job.loss.target };
  return {
    id: job.id ?? `job-${index + 1}`,
    kind: job.kind,
    submitS: job.submit,
    user: job.user,
    gpuTypes: job.gpuTypes,
    roles,
    elastic: job.elastic ? { minReplicas: job.elastic.min, maxReplicas: job.elastic.max, unit: job.elastic.unit } : null,
    totalSteps: loss ? convergenceStep(loss) : job.data ? dataSteps(job.data) : totalSteps,
    speed,
    source,
    ...(loss ? { loss } : {}),
    ...(job.checkpoint
      ? { checkpoint: { intervalS: job.checkpoint.interval, saveS: job.checkpoint.save, loadS: job.checkpoint.load, flash: job.checkpoint.flash } }
      : {}),
    ...(job.startup > 0 ? { startupS: job.startup } : {}),
    ...(job.priority === undefined ? {} : { priority: job.priority }),
    ...(job.dataset === undefined ? {} : { dataset: job.dataset }),
    ...(job.data === undefined ? {} : { data: { ...job.data } }),
    ...(job.resourceLimits === undefined ? {} : { resourceLimits: { cpuMilli: Math.round(job.resourceLimits.cpuCores * 1000), memMiB: Math.round(job.resourceLimits.memGiB * 1024) } }),
    ...(job.optimizeMode === undefined ? {} : { optimizeMode: job.optimizeMode }),
    ...(job.psTruth === undefined ? {} : { psTruth: psTruthOf(job.psTruth) }),
    ...(job.preprocessing === undefined ? {} : { preprocessing: preprocessingOf(job.preprocessing) }),
  };
}

/** A validated `preprocessing` block as a PreprocessingSpec (a family's need, or the one given). */
function preprocessingOf(doc: NonNullable<JobDoc['preprocessing']>): PreprocessingSpec {
  if ('family' in doc) {
    const family = PREPROCESSING_FAMILIES.find((f) => f.family === doc.family)!;
    return { cpuMilliPerGpu: family.cpuMilliPerGpu, family: family.family };
  }
  return { cpuMilliPerGpu: Math.round(doc.cpuCoresPerGpu * 1000) };
}

/** A validated `psTruth` block in base units. */
function psTruthOf(doc: NonNullable<JobDoc['psTruth']>): PsTruth {
  return {
    variableSizes: doc.variableSizes,
    psMemBaseMiB: Math.round(doc.psMemBaseGiB * 1024),
    psMemGrowthMiBPerStep: doc.psMemGrowthMiBPerStep,
    workerMemMiB: Math.round(doc.workerMemGiB * 1024),
    workerCpuMilli: Math.round(doc.workerCpuCores * 1000),
    psCpuMilli: Math.round(doc.psCpuCores * 1000),
  };
}

/** The `model` keys of an ElasticJob entry that only one job kind takes. */
const ELASTIC_MODEL_KEYS_BY_KIND = [
  ['speed', 'ps'],
  ['psTruth', 'ps'],
  ['stepTime', 'allreduce'],
  ['commFraction', 'allreduce'],
] as const;

/**
 * The job of `workload.elasticJobs[i]` (at `path`): its manifest (read from its file, relative to
 * the scenario, or given inline) mapped onto a JobSpec, with the entry's submission, work and truth.
 * A manifest file that is missing or unreadable is reported at the entry's key; its own problems at
 * its lines.
 */
function buildElasticJob(entry: ElasticJobEntryDoc, path: YamlPath, file: string, locate: (path: YamlPath) => string): JobSpec {
  let manifest: ElasticJobManifest;
  let source: string;
  if ('file' in entry.manifest) {
    const manifestFile = resolve(dirname(file), entry.manifest.file);
    if (!existsSync(manifestFile)) throw new ConfigError(locate([...path, 'manifest']), `${manifestFile}: no such file`);
    if (!statSync(manifestFile).isFile()) throw new ConfigError(locate([...path, 'manifest']), `${manifestFile}: not a file`);
    manifest = readElasticJobFile(manifestFile);
    source = manifestFile;
  } else {
    manifest = entry.manifest.inline;
    source = `${file}: ${formatYamlPath(path)}`;
  }
  const kind = elasticJobKind(manifest);
  const model = entry.model;
  for (const [key, only] of ELASTIC_MODEL_KEYS_BY_KIND) {
    if (model[key] !== undefined && only !== kind) {
      const strategy = only === 'ps' ? 'ParameterServerStrategy' : 'AllreduceStrategy';
      throw new ConfigError(locate([...path, 'model', key]), `${key} is only for ${strategy} jobs (${manifest.metadata.name} is ${manifest.spec.distributionStrategy})`);
    }
  }
  const dataProblem = entry.data === undefined ? null : dataSpecProblem(entry.data);
  if (dataProblem !== null) throw new ConfigError(locate([...path, 'data']), dataProblem);
  const totalSteps = entry.steps ?? dataSteps(entry.data!);
  if (totalSteps > MAX_STEPS) throw new ConfigError(locate([...path, 'data']), `${totalSteps} steps: expected at most ${MAX_STEPS}`);
  let speed: SpeedSpec;
  if (kind === 'ps') {
    const { t0, t1, t2, t3 } = model.speed ?? DEFAULT_PS_SPEED;
    speed = { kind: 'ps-async', t0, t1, t2, t3 };
  } else {
    const stepTimeS = model.stepTime ?? DEFAULT_STEP_TIME_S;
    const commFraction = model.commFraction ?? DEFAULT_COMM_FRACTION;
    speed = { kind: 'allreduce', computeS: stepTimeS * (1 - commFraction), commS: stepTimeS * commFraction };
  }
  const psTruth = model.psTruth === undefined ? undefined : psTruthOf(model.psTruth);
  return elasticJobSpec(manifest, {
    submitS: entry.submit,
    user: entry.user,
    ...(entry.dataset === undefined ? {} : { dataset: entry.dataset }),
    totalSteps,
    ...(entry.data === undefined ? {} : { data: entry.data }),
    speed,
    ...(psTruth === undefined ? {} : { psTruth }),
    source,
  });
}

/** Speed model and total work of a job; the schema guarantees duration or steps as the kind needs. */
function speedAndWork(job: JobDoc): { speed: SpeedSpec; totalSteps: number } {
  const durationS = job.duration ?? 0;
  switch (job.kind) {
    case 'batch':
      return { speed: { kind: 'fixed' }, totalSteps: durationS };
    case 'allreduce': {
      const stepTimeS = job.stepTime ?? DEFAULT_STEP_TIME_S;
      const commFraction = job.commFraction ?? DEFAULT_COMM_FRACTION;
      return {
        speed: { kind: 'allreduce', computeS: stepTimeS * (1 - commFraction), commS: stepTimeS * commFraction },
        totalSteps: job.steps ?? durationS / stepTimeS,
      };
    }
    case 'ps': {
      const { t0, t1, t2, t3 } = job.speed ?? DEFAULT_PS_SPEED;
      const workers = job.replicas;
      const servers = job.ps?.replicas ?? 1;
      const stepsPerS = workers / (t0 + (t1 * workers) / servers + t2 * workers + t3 * servers);
      return { speed: { kind: 'ps-async', t0, t1, t2, t3 }, totalSteps: job.steps ?? durationS * stepsPerS };
    }
    default: {
      const unreachable: never = job.kind;
      throw new Error(`unknown job kind ${String(unreachable)}`);
    }
  }
}

/** The validated synthetic section in base units, with the effective GPUs per node. */
function toSyntheticSpec(synthetic: SyntheticDoc, gpusPerNode: number): SyntheticSpec {
  const kinds = synthetic.kinds ?? { [synthetic.kind ?? 'batch']: 1 };
  return {
    jobs: synthetic.jobs,
    meanInterarrivalS: synthetic.meanInterarrival ?? 3600 / (synthetic.arrivalsPerHour ?? 1),
    startS: synthetic.start,
    backlog: synthetic.backlog,
    // Jobs that do not use the duration or the GPU mix (ps, llm) still draw them: any values do.
    durationMedianS: synthetic.duration?.median ?? 3600,
    durationSigma: synthetic.duration?.sigma ?? 0,
    durationMinS: synthetic.duration?.min ?? 1,
    durationMaxS: synthetic.duration?.max ?? Infinity,
    gpuMix: Object.entries(synthetic.gpus ?? { 0: 1 })
      .map(([gpus, weight]) => ({ gpus: Number(gpus), weight }))
      .sort((a, b) => a.gpus - b.gpus),
    gpusPerNode,
    cpuCoresPerGpu: synthetic.cpuCoresPerGpu,
    memGiBPerGpu: synthetic.memGiBPerGpu,
    kinds: SYNTHETIC_KINDS.filter((kind) => kinds[kind] !== undefined).map((kind) => ({ kind, weight: kinds[kind]! })),
    gpuTypes: synthetic.gpuTypes,
    user: synthetic.user,
    users: synthetic.users ?? 0,
    ...(synthetic.preprocessing === undefined
      ? {}
      : { preprocessing: { request: synthetic.preprocessing.request, maxCpuMilliPerReplica: Math.round(synthetic.preprocessing.maxCpuCoresPerReplica * 1000) } }),
  };
}
