import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError } from '../errors.js';
import { alignColumns, formatPercent, formatSeconds } from '../report/summary-table.js';
import { traceFormatById, traceFormatIds } from '../workload/formats.js';
import { readCheckedJobs } from '../workload/checked-jobs.js';
import { noJobError } from '../workload/import.js';
import { inspectJobs, type TraceStats } from '../workload/inspect.js';
import { SkipCounter } from '../workload/skip-counter.js';
import type { TraceFormat } from '../workload/trace-format.js';
import { wholeNumberOption } from './options.js';
import { printJson } from './output.js';

interface InspectArgs {
  files: string[];
  format?: string;
  json?: boolean;
  limit?: number;
}

/** Bad rows a non-strict read skipped, counted by "column: reason". */
export interface SkippedRows {
  readonly total: number;
  readonly byReason: Readonly<Record<string, number>>;
}

/** What `trace inspect --json` prints: the statistics, where they come from and the rows skipped. */
export interface TraceInspection {
  readonly files: readonly string[];
  readonly format: string;
  readonly skippedRows: SkippedRows;
  readonly stats: TraceStats;
}

/** The registered trace format with this id; ConfigError listing the known ones otherwise. */
function formatById(id: string): TraceFormat {
  const format = traceFormatById(id);
  if (!format) throw new ConfigError('--format', `unknown trace format "${id}" (known: ${traceFormatIds().join(', ')})`);
  return format;
}

/**
 * Reads a trace non-strictly (bad rows are skipped and counted by reason, never silently) and
 * computes its statistics; `limit` stops after that many jobs.
 */
export async function inspectTrace(files: readonly string[], formatId: string, limit = Infinity): Promise<TraceInspection> {
  const format = formatById(formatId);
  if (limit !== Infinity && !(Number.isInteger(limit) && limit > 0)) {
    throw new ConfigError('--limit', `expected a positive whole number of jobs, got ${limit}`);
  }
  const skipped = new SkipCounter();
  const stats = await inspectJobs(readCheckedJobs(format, files, { limit, strict: false, onSkip: (error) => skipped.add(error) }));
  if (stats.jobs === 0) throw noJobError(files, skipped);
  const { total, byReason } = skipped;
  return {
    files,
    format: format.id,
    skippedRows: { total, byReason: Object.fromEntries([...byReason.entries()].sort((a, b) => b[1] - a[1])) },
    stats,
  };
}

/** The one stderr line about skipped rows ("" when none were skipped). */
export function skippedRowsLine(skipped: SkippedRows): string {
  if (skipped.total === 0) return '';
  const reasons = Object.entries(skipped.byReason)
    .map(([reason, count]) => `${reason} ${count}`)
    .join('; ');
  return `dlsim: skipped ${skipped.total} bad row${skipped.total === 1 ? '' : 's'}: ${reasons}`;
}

/** 'native' when every file is a .jsonl file; otherwise a ConfigError asking for --format (no silent all-zero report). */
export function nativeOrAsk(files: readonly string[]): string {
  const other = files.find((file) => !file.endsWith('.jsonl'));
  if (other !== undefined) {
    throw new ConfigError('--format', `${other} is not a native .jsonl trace: name its format (${traceFormatIds().join(', ')})`);
  }
  return 'native';
}

/** The readable report of `trace inspect`: aligned tables. */
export function inspectionTable(inspection: TraceInspection): string {
  const { stats } = inspection;
  const share = (n: number): string => formatPercent(stats.jobs > 0 ? n / stats.jobs : 0);
  const hours = (from: number): string[][] => [
    ['hour', ...Array.from({ length: 12 }, (_, h) => String(from + h).padStart(2, '0'))],
    ['jobs', ...stats.arrivals.byHourOfDay.slice(from, from + 12).map(String)],
  ];
  const lines = [
    `trace ${inspection.files.join(' ')}  format ${inspection.format}`,
    '',
    alignColumns([
      ['jobs', String(stats.jobs)],
      ['users', String(stats.users)],
      ['first submit', formatSeconds(stats.span.firstSubmitS)],
      ['last submit', formatSeconds(stats.span.lastSubmitS)],
      ['span', formatSeconds(stats.span.spanS)],
      ['arrivals per hour', stats.arrivals.meanPerHour.toFixed(2)],
      ['multi-GPU jobs', formatPercent(stats.multiGpuShare)],
      ['bad rows skipped', String(inspection.skippedRows.total)],
    ]),
    '',
    alignColumns([
      ['duration', 'p10', 'p50', 'p90', 'p99', 'mean'],
      [
        '',
        formatSeconds(stats.durationS.p10),
        formatSeconds(stats.durationS.p50),
        formatSeconds(stats.durationS.p90),
        formatSeconds(stats.durationS.p99),
        formatSeconds(stats.durationS.mean),
      ],
    ]),
    '',
    alignColumns([['GPUs per job', 'jobs', 'share'], ...stats.gpuDemand.map((b) => [b.bucket, String(b.jobs), formatPercent(b.share)])]),
    '',
    alignColumns([['kind', 'jobs', 'share'], ...Object.entries(stats.kinds).map(([kind, n]) => [kind, String(n), share(n)])]),
    '',
    alignColumns([['status', 'jobs', 'share'], ...Object.entries(stats.status).map(([status, n]) => [status, String(n), share(n)])]),
    '',
    'arrivals by hour of day (submitS mod 86400)',
    alignColumns(hours(0)),
    alignColumns(hours(12)),
  ];
  if (stats.durationUnknown > 0) lines.push('', `${stats.durationUnknown} jobs have no positive nominal speed (left out of the durations)`);
  return lines.join('\n');
}

/** `dlsim trace inspect FILE…`: arrivals, GPU demand, durations, kinds and status of a trace. */
export const traceInspectCommand: CommandModule<object, InspectArgs> = {
  command: 'inspect <files..>',
  describe: 'Summarise a trace: arrivals by hour, GPU demand, durations, kinds, status',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('files', { type: 'string', default: undefined, describe: 'trace file(s) of the format (one or more)' })
      .option('format', { type: 'string', describe: `trace format (${traceFormatIds().join(', ')}); needed unless the files are native .jsonl` })
      .option('json', { type: 'boolean', describe: 'print the statistics as one JSON object' })
      .option('limit', { type: 'string', coerce: wholeNumberOption('--limit', 1), describe: 'read at most this many jobs' }) as unknown as Argv<InspectArgs>,
  handler: async (args: ArgumentsCamelCase<InspectArgs>) => {
    const inspection = await inspectTrace(args.files, args.format ?? nativeOrAsk(args.files), args.limit ?? Infinity);
    const skipped = skippedRowsLine(inspection.skippedRows);
    if (skipped) process.stderr.write(`${skipped}\n`);
    if (args.json) printJson(inspection);
    else process.stdout.write(`${inspectionTable(inspection)}\n`);
  },
};
