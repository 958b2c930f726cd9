import type { Argv, CommandModule } from 'yargs';
import { traceImportCommand } from './trace-import.js';

/** `dlsim trace …`: import, inspect and generate workload traces. */
export const traceCommand: CommandModule = {
  command: 'trace <command>',
  describe: 'Import, inspect and generate workload traces',
  builder: (yargs: Argv) => yargs.command(traceImportCommand).demandCommand(1, 'name a trace command: import'),
  handler: () => undefined,
};
