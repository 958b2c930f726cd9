import { performance } from 'node:perf_hooks';
import { writeFilesAtomic } from '../io/atomic-write.js';
import { fillTable, type TimedFillSummary } from '../report/fill-table.js';
import type { RunProvenance } from '../report/provenance.js';
import type { Scenario } from '../scenario/scenario.js';
import { fill } from '../sim/fill.js';
import { printJson } from './output.js';

/** What `dlsim run` was asked for, as a fill run uses it. */
export interface FillRunArgs {
  readonly out?: string | undefined;
  readonly json?: boolean | undefined;
  readonly checkInvariants?: boolean | undefined;
  /** How the run is made, for summary.json and the JSON (absent: left out). */
  readonly provenance?: RunProvenance;
}

/**
 * `dlsim run` of a scenario with a fill section: places the jobs, prints the fill table (or the
 * summary as JSON) and with `--out` writes `summary.json`.
 */
export function runFill(scenario: Scenario, args: FillRunArgs): void {
  const startedMs = performance.now();
  const result = fill(scenario, { checkInvariants: args.checkInvariants ?? false });
  const wallS = (performance.now() - startedMs) / 1000;
  const summary: TimedFillSummary & { readonly provenance?: RunProvenance } = {
    ...result,
    perf: { wallS: Math.round(wallS * 1000) / 1000 },
    ...(args.provenance === undefined ? {} : { provenance: args.provenance }),
  };
  if (args.out !== undefined) writeFilesAtomic(args.out, [['summary.json', `${JSON.stringify(summary, null, 2)}\n`]]);
  if (args.json) printJson(summary);
  else process.stdout.write(`${fillTable(summary)}\n`);
}
