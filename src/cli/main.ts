#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { restartOptions } from './node-options.js';
import { runInChild } from './restart.js';

// The `dlsim` program. The size of V8's young generation is fixed when node starts, so node runs
// the command again with dlsim's (see SEMI_SPACE_MIB) unless it already has one: the command runs
// in that child (see runInChild). Only this file's few imports load before the child starts.

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
  const options = restartOptions(process.execArgv, process.env.NODE_OPTIONS);
  if (options !== null) runInChild(options);
  else {
    const { runProgram } = await import('./cli.js');
    process.exitCode = await runProgram();
  }
}
