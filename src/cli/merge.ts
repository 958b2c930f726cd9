import { dirname, join } from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { checkOutDir } from '../io/destination.js';
import { readRecord } from '../sweep/cell-store.js';
import { ConfigError } from '../errors.js';
import { alignColumns } from '../report/summary-table.js';
import { mergeSweeps } from '../sweep/merge.js';
import { listOption, oneValueOption } from './options.js';

interface MergeArgs {
  dirs: string | string[];
  out?: string;
  allowPartial?: boolean;
}

/** `dlsim merge DIR...`: shard folders of one sweep combined into one sweep.csv and sweep-summary.csv. */
export const mergeCommand: CommandModule<object, MergeArgs> = {
  command: 'merge <dirs..>',
  describe: 'Combine the shard folders of one sweep into one sweep folder',
  builder: (yargs: Argv<object>) =>
    yargs
      .positional('dirs', { type: 'string', default: undefined, describe: 'sweep folders (shards) of one sweep (one or more)' })
      .option('out', { type: 'string', coerce: oneValueOption('--out'), describe: 'folder to merge into (default: results/sweep-<sweep name>)' })
      .option('allow-partial', { type: 'boolean', describe: 'write the tables even when cells are missing (they are listed on stderr)' }) as Argv<MergeArgs>,
  handler: (args: ArgumentsCamelCase<MergeArgs>) => {
    const dirs = listOption(args.dirs);
    if (dirs.length === 0) throw new ConfigError('dlsim merge', 'name at least one sweep folder');
    const first = readRecord(dirs[0]!);
    if (first === null) throw new ConfigError(dirs[0]!, 'not a sweep folder (no sweep.json)');
    const out = args.out ?? join('results', `sweep-${first.name}`);
    checkOutDir(out, '--out');
    const outcome = mergeSweeps(dirs, out, args.allowPartial ?? false);
    if (outcome.missing.length > 0) {
      const shown = outcome.missing.slice(0, 20).join(', ');
      process.stderr.write(`dlsim: warning: ${outcome.missing.length} of ${outcome.cells} cells are missing: ${shown}${outcome.missing.length > 20 ? ', ...' : ''}\n`);
    }
    process.stdout.write(`${alignColumns([
      ['merged', `${dirs.length} folder${dirs.length === 1 ? '' : 's'} of sweep ${outcome.record.name}`],
      ['cells', `${outcome.found} of ${outcome.cells}${outcome.duplicates > 0 ? ` (${outcome.duplicates} found twice, alike)` : ''}${outcome.missing.length > 0 ? `, ${outcome.missing.length} missing` : ''}`],
      ['sweep.csv', outcome.csvPath],
      ['report', join(dirname(outcome.csvPath), 'report.html')],
      ['summary', join(out, 'sweep-summary.csv')],
    ], true)}\n`);
  },
};
