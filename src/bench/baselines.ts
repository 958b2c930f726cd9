import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { flattenMetrics } from '../report/compare.js';

/** Version of the baselines file format this code reads and writes. */
export const BASELINES_VERSION = 1;

/** One baseline: a scenario file run under a preset on a seed, and every summary metric but `perf`. */
export interface BaselineRun {
  /** Scenario file, relative to the working folder, with "/" separators. */
  readonly scenario: string;
  readonly policy: string;
  readonly seed: number;
  /** Metric (dotted, as `flattenMetrics` names it) -> value. */
  readonly metrics: Readonly<Record<string, number>>;
}

/** A difference between a baselines file and fresh runs: one metric's value, or (`run`) a whole run added or removed. */
export interface BaselineChange {
  readonly scenario: string;
  readonly policy: string;
  readonly seed: number;
  readonly metric: string | null;
  /** The recorded value (null: none recorded). */
  readonly old: number | null;
  /** The fresh value (null: none measured). */
  readonly new: number | null;
  /** Set when the whole run is new (no baseline) or no longer made (`metric` is then null). */
  readonly run?: 'added' | 'removed';
}

/** The summary's metrics as baselines keep them: everything `flattenMetrics` gives except `perf.*`. */
export function baselineMetrics(summary: RunSummary): Record<string, number> {
  const metrics = flattenMetrics(summary).filter(([metric]) => !metric.startsWith('perf.'));
  metrics.sort(([a], [b]) => compareText(a, b));
  return Object.fromEntries(metrics);
}

/** Runs sorted by scenario, policy and seed: the order of the file and of every report. */
export function sortRuns(runs: readonly BaselineRun[]): BaselineRun[] {
  return [...runs].sort((a, b) => compareText(a.scenario, b.scenario) || compareText(a.policy, b.policy) || a.seed - b.seed);
}

/**
 * The baselines file's text: pretty JSON, scenario -> policy -> seed -> metric, every level in
 * sorted order, so the same runs give the same bytes and a change shows as the lines it changed.
 */
export function formatBaselines(runs: readonly BaselineRun[]): string {
  const scenarios: Record<string, Record<string, Record<string, Record<string, number>>>> = {};
  for (const run of sortRuns(runs)) {
    const byPolicy = (scenarios[run.scenario] ??= {});
    const bySeed = (byPolicy[run.policy] ??= {});
    const metrics: Record<string, number> = {};
    for (const metric of Object.keys(run.metrics).sort(compareText)) metrics[metric] = run.metrics[metric]!;
    bySeed[String(run.seed)] = metrics;
  }
  return `${JSON.stringify({ version: BASELINES_VERSION, scenarios }, null, 2)}\n`;
}

const fileSchema = z.strictObject({
  version: z.literal(BASELINES_VERSION, { error: `expected version ${BASELINES_VERSION}` }),
  scenarios: z.record(
    z.string(),
    z.record(z.string(), z.record(z.string().regex(/^\d+$/, { error: 'expected a seed (a whole number) as key' }), z.record(z.string(), z.number()))),
  ),
});

/** Reads a baselines file; a missing, unreadable or malformed file is a ConfigError naming the file and line or key. */
export function readBaselines(path: string): BaselineRun[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(path, 'no such file (write it with dlsim bench --update)');
    throw new ConfigError(path, `cannot read the file (${code ?? String(error)})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const line = position ? text.slice(0, Number(position[1])).split('\n').length : null;
    throw new ConfigError(line === null ? path : `${path}:${line}`, `not valid JSON (${message.split('\n')[0]})`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map((segment) => JSON.stringify(String(segment))).join(' > ');
    throw new ConfigError(where === '' ? path : `${path}: ${where}`, issue.message);
  }
  const runs: BaselineRun[] = [];
  for (const [scenario, byPolicy] of Object.entries(parsed.data.scenarios)) {
    for (const [policy, bySeed] of Object.entries(byPolicy)) {
      for (const [seed, metrics] of Object.entries(bySeed)) runs.push({ scenario, policy, seed: Number(seed), metrics });
    }
  }
  return sortRuns(runs);
}

/** Every difference between recorded and fresh runs, in file order (runs), then metric order. */
export function diffBaselines(recorded: readonly BaselineRun[], fresh: readonly BaselineRun[]): BaselineChange[] {
  const key = (run: BaselineRun): string => JSON.stringify([run.scenario, run.policy, run.seed]);
  const old = new Map(recorded.map((run) => [key(run), run]));
  const now = new Map(fresh.map((run) => [key(run), run]));
  const changes: BaselineChange[] = [];
  for (const run of sortRuns([...recorded, ...fresh.filter((r) => !old.has(key(r)))])) {
    const before = old.get(key(run));
    const after = now.get(key(run));
    const where = { scenario: run.scenario, policy: run.policy, seed: run.seed };
    if (before === undefined || after === undefined) {
      changes.push({ ...where, metric: null, old: null, new: null, run: before === undefined ? 'added' : 'removed' });
      continue;
    }
    const metrics = [...new Set([...Object.keys(before.metrics), ...Object.keys(after.metrics)])].sort(compareText);
    for (const metric of metrics) {
      const a = before.metrics[metric] ?? null;
      const b = after.metrics[metric] ?? null;
      if (a !== b) changes.push({ ...where, metric, old: a, new: b });
    }
  }
  return changes;
}

/** One change as a line: "scenarios/default.yaml  drf  seed 2  jctS.mean  12345.6 → 12400.1". */
export function formatChange(change: BaselineChange): string {
  const run = `${change.scenario}  ${change.policy}  seed ${change.seed}`;
  if (change.run !== undefined) return `${run}  ${change.run === 'added' ? 'new run, no baseline' : 'baseline of a run no longer made'}`;
  const show = (value: number | null): string => (value === null ? '(none)' : String(value));
  return `${run}  ${change.metric}  ${show(change.old)} → ${show(change.new)}`;
}

/** Plain code-point order (locale-independent, so every machine sorts alike). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
