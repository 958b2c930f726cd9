#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** True when node was started with this file (also through a link such as node_modules/.bin/dlsim), not when it is imported. */
function isProgram(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isProgram()) {
  applyHeapPolicy();
  process.exitCode = await main(hideBin(process.argv));
}
