import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { ConfigError } from '../errors.js';
import { checkOutFile } from '../io/destination.js';
import { traceFormatById, traceFormatIds } from '../workload/formats.js';
import { importTrace } from '../workload/import.js';
import { oneValueOption, wholeNumberOption } from './options.js';
import { printJson } from './output.js';

interface TraceImportArgs {
  files: string[];
  format: string;
  out: string;
  strict?: boolean;
  limit?: number;
  json?: boolean;
}

/** `dlsim trace import --format F FILES… --out X.jsonl`: converts a public trace to the native format. */
export const traceImportCommand: CommandModule<object, TraceImportArgs> = {
  command: 'import <files..>',
  describe: 'Convert trace files to the native JSON Lines format',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('files', { type: 'string', default: undefined, describe: 'trace files (one or more)' })
      .option('format', { type: 'string', demandOption: true, describe: `trace format: ${traceFormatIds().join(', ')}` })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), demandOption: true, describe: 'native JSON Lines file to write' })
      .option('strict', { type: 'boolean', describe: 'stop at the first bad row (exit 1) instead of skipping it' })
      .option('limit', { type: 'string', coerce: wholeNumberOption('--limit', 1), describe: 'import at most this many jobs' })
      .option('json', { type: 'boolean', describe: 'print the report as one JSON object' }) as Argv<TraceImportArgs>,
  handler: async (args: ArgumentsCamelCase<TraceImportArgs>) => {
    const format = traceFormatById(args.format);
    if (!format) {
      throw new ConfigError('--format', `unknown trace format "${args.format}"; known formats: ${traceFormatIds().join(', ')}`);
    }
    if (args.limit !== undefined && !(Number.isInteger(args.limit) && args.limit > 0)) {
      throw new ConfigError('--limit', `expected a positive integer, got ${args.limit}`);
    }
    checkOutFile(args.out, '--out', args.files);
    const report = await importTrace(format, args.files, { limit: args.limit ?? Infinity, strict: args.strict ?? false }, args.out);
    if (args.json) {
      printJson({
        format: format.id,
        files: args.files,
        out: report.outFile,
        jobs: report.jobs,
        skipped: report.skipped.total,
        skippedByReason: Object.fromEntries(report.skipped.byReason),
      });
      return;
    }
    process.stdout.write(`imported ${report.jobs} jobs from ${args.files.length} file(s) into ${report.outFile}\n`);
    process.stdout.write(`${report.skipped.describe()}\n`);
  },
};
