import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ConfigError } from '../errors.js';
import { benchCommand } from './bench.js';
import { compareCommand } from './compare.js';
import { applyHeapPolicy } from './heap-policy.js';
import { listCommand } from './list.js';
import { mergeCommand } from './merge.js';
import { removeTemporariesOnSignal } from '../io/temporaries.js';
import { checkBooleanFlags } from './options.js';
import { reportError } from './output.js';
import { reportCommand } from './report.js';
import { endWithParent } from './restart.js';
import { runCommand } from './run.js';
import { sweepCommand } from './sweep.js';
import { traceCommand } from './trace.js';

/** Parses the command line and runs the chosen command; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  removeTemporariesOnSignal();
  try {
    checkBooleanFlags(argv);
    await yargs(argv)
      .scriptName('dlsim')
      .usage('$0 <command> [options]')
      .command(runCommand)
      .command(compareCommand)
      .command(sweepCommand)
      .command(mergeCommand)
      .command(listCommand)
      .command(benchCommand)
      .command(traceCommand)
      .command(reportCommand)
      .demandCommand(1, 'name a command: run, compare, sweep, merge, report, list, trace, bench')
      .strict()
      .fail((message, error) => {
        // yargs reports its own parse failures as a message, and wraps an option's coerce error
        // (already worded for the user) in a YError; errors from commands pass through.
        if (error?.name === 'YError') throw new ConfigError('', error.message);
        throw error ?? new ConfigError('', `${message} (see dlsim --help)`);
      })
      .help()
      .version()
      .wrap(100)
      .parseAsync();
    return 0;
  } catch (error) {
    return reportError(error);
  }
}

/** Runs the command line node was started with (the program's work once its node options are set); resolves to the exit code. */
export async function runProgram(): Promise<number> {
  endWithParent();
  applyHeapPolicy();
  return main(hideBin(process.argv));
}
