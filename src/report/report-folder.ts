import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import type { ComparisonData, MetricCell, PolicyData, ReportData } from './report-data.js';
import { readAutoscaleCsv, readGanttCsv, readJobsCsv, readTimelineFaults, readUsageCsv } from './report-readers.js';
import { dlsimVersion } from './version.js';

/** Reads a file of a folder by its path relative to the folder; null when it is not there. */
export type FileSource = (name: string) => string | null;

/** A FileSource over a folder on disk. */
export function folderSource(dir: string): FileSource {
  return (name) => {
    const path = join(dir, name);
    return existsSync(path) ? readFileSync(path, 'utf8') : null;
  };
}

/** A FileSource over files in memory ([name, contents] pairs, as a run's output files). */
export function memorySource(files: readonly (readonly [string, string])[]): FileSource {
  const byName = new Map(files.map(([name, text]) => [name, text]));
  return (name) => byName.get(name) ?? null;
}

/** A JSON object of a file, or a ConfigError naming it. */
function jsonObject(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, `not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(file, 'expected a JSON object');
  return value as Record<string, unknown>;
}

/** What the report draws of one run's files (under `prefix` of `source`); `where` names the folder in errors. */
export function policyData(source: FileSource, prefix: string, where: string, policy: string): PolicyData {
  const file = (name: string): string => join(where, prefix, name);
  const read = (name: string): string | null => source(prefix === '' ? name : `${prefix}/${name}`);
  const jobsText = read('jobs.csv');
  if (jobsText === null) throw new ConfigError(file('jobs.csv'), 'missing: not a run folder dlsim wrote');
  const summaryText = read('summary.json');
  const summary = summaryText === null ? null : jsonObject(summaryText, file('summary.json'));
  const optional = <T>(name: string, reader: (text: string, file: string) => T): T | null => {
    const text = read(name);
    return text === null ? null : reader(text, file(name));
  };
  return {
    policy: typeof summary?.policy === 'string' && prefix === '' ? summary.policy : policy,
    jobs: readJobsCsv(jobsText, file('jobs.csv')),
    usage: optional('usage.csv', readUsageCsv),
    gantt: optional('gantt.csv', readGanttCsv),
    autoscale: optional('autoscale.csv', readAutoscaleCsv),
    faults: optional('timeline.csv', readTimelineFaults),
    summary,
    seed: typeof summary?.seed === 'number' ? summary.seed : null,
  };
}

/** The report of a run folder (summary.json, jobs.csv and the rest of `dlsim run --out`). */
export function runReportData(source: FileSource, where: string): ReportData {
  const data = policyData(source, '', where, 'run');
  const scenario = typeof data.summary?.scenario === 'string' ? data.summary.scenario : '';
  return { kind: 'run', scenario, version: dlsimVersion(), policies: [data], comparison: null };
}

/** The report of a compare folder: comparison.json and runs/<policy>/ for each of its policies. */
export function compareReportData(source: FileSource, where: string): ReportData {
  const file = join(where, 'comparison.json');
  const text = source('comparison.json');
  if (text === null) throw new ConfigError(file, 'missing: not a compare folder');
  const json = jsonObject(text, file);
  const policies = json.policies;
  if (!Array.isArray(policies) || policies.length === 0 || !policies.every((p) => typeof p === 'string')) throw new ConfigError(`${file}: policies`, 'expected a list of policy names');
  const comparison: ComparisonData = {
    seeds: Array.isArray(json.seeds) ? json.seeds.filter((s): s is number => typeof s === 'number') : [],
    metrics: isRecord(json.metrics) ? (json.metrics as ComparisonData['metrics']) : {},
    pairedRatios: isRecord(json.pairedRatios) ? (json.pairedRatios as ComparisonData['pairedRatios']) : {},
  };
  return {
    kind: 'compare',
    scenario: typeof json.scenario === 'string' ? json.scenario : '',
    version: dlsimVersion(),
    policies: (policies as string[]).map((policy) => policyData(source, `runs/${policy}`, where, policy)),
    comparison,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A metric's cell of a comparison, if it has one for the policy. */
export function metricCell(comparison: ComparisonData, metric: string, policy: string): MetricCell | null {
  const cell = comparison.metrics[metric]?.[policy];
  return cell !== undefined && typeof cell.mean === 'number' ? cell : null;
}

/** The report data of a folder on disk: a compare folder (comparison.json) or a run folder (jobs.csv); otherwise a ConfigError. */
export function readReportFolder(dir: string): ReportData {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError(dir, 'no such folder');
  const source = folderSource(dir);
  if (existsSync(join(dir, 'comparison.json'))) return compareReportData(source, dir);
  if (existsSync(join(dir, 'jobs.csv'))) return runReportData(source, dir);
  throw new ConfigError(dir, 'neither a run folder (jobs.csv, summary.json from dlsim run --out), a compare folder (comparison.json, runs/ from dlsim compare --out) nor a sweep folder (sweep.json from dlsim sweep)');
}
