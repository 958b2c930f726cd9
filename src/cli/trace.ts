import type { Argv, CommandModule } from 'yargs';
import { traceGenerateCommand } from './trace-generate.js';
import { traceImportCommand } from './trace-import.js';
import { traceInspectCommand } from './trace-inspect.js';

/** `dlsim trace …`: import, inspect and generate workload traces. */
export const traceCommand: CommandModule = {
  command: 'trace <command>',
  describe: 'Import, inspect and generate workload traces',
  builder: (yargs: Argv) =>
    yargs
      .command(traceImportCommand)
      .command(traceInspectCommand)
      .command(traceGenerateCommand)
      .demandCommand(1, 'name a trace command: import, inspect, generate'),
  handler: () => undefined,
};
