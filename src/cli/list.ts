import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { DEFAULT_DATA_POLICY, presets } from '../policies/presets.js';
import { policyIds, recoveryPolicies } from '../policies/registry.js';
import { alignColumns } from '../report/summary-table.js';
import { catalogNames, loadCatalog, totalRatePerGpuDay } from '../faults/catalog.js';
import { traceFormats } from '../workload/formats.js';
import { formatDurationS } from '../io/duration.js';
import { printJson } from './output.js';

interface ListArgs {
  json?: boolean;
}

/** Everything `dlsim list` reports: presets, the policies of each kind and the trace formats. */
export function listing(): {
  presets: typeof presets;
  policies: { scheduling: string[]; placement: string[]; recovery: string[]; autoscale: string[]; data: string[] };
  traceFormats: Record<string, { description: string; files: string; machineList: boolean }>;
  faultCatalogs: Record<string, { description: string; faultTypes: number; ratePerGpuDay: number }>;
  recoveryTimesS: Record<string, Record<string, number>>;
  recoveryCounts: Record<string, Record<string, number>>;
} {
  return {
    presets,
    policies: {
      scheduling: policyIds('scheduling'),
      placement: policyIds('placement'),
      recovery: policyIds('recovery'),
      autoscale: policyIds('autoscale'),
      data: policyIds('data'),
    },
    traceFormats: Object.fromEntries(
      Object.values(traceFormats).map((f) => [f.id, { description: f.description, files: f.filesHelp, machineList: f.readCluster !== undefined }]),
    ),
    faultCatalogs: Object.fromEntries(
      catalogNames().map((name) => {
        const catalog = loadCatalog(name);
        return [name, { description: catalog.description, faultTypes: catalog.types.length, ratePerGpuDay: totalRatePerGpuDay(catalog, 8) }];
      }),
    ),
    // Keyed as a scenario's `recoveryTimes` names them (without the S suffix).
    recoveryTimesS: Object.fromEntries(
      Object.entries(recoveryPolicies).map(([name, entry]) => [
        name,
        Object.fromEntries(Object.entries(entry.defaultTimesS).map(([key, seconds]) => [key.replace(/S$/, ''), seconds])),
      ]),
    ),
    recoveryCounts: Object.fromEntries(Object.entries(recoveryPolicies).map(([name, entry]) => [name, { ...entry.defaultCounts }])),
  };
}

/** `dlsim list`: the presets and policies this build knows. */
export const listCommand: CommandModule<object, ListArgs> = {
  command: 'list',
  describe: 'List policy presets and policies',
  builder: (yargs: Argv<object>) =>
    yargs.option('json', { type: 'boolean', describe: 'print as one JSON object' }) as Argv<ListArgs>,
  handler: (args: ArgumentsCamelCase<ListArgs>) => {
    const data = listing();
    if (args.json) return printJson(data);
    const presetRows = Object.entries(data.presets).map(([name, s]) => [
      `  ${name}`,
      `scheduling=${s.scheduling} placement=${s.placement} recovery=${s.recovery} autoscale=${s.autoscale} data=${s.data ?? DEFAULT_DATA_POLICY}`,
      `  ${s.description}`,
    ]);
    const lines = [
      'presets (use with --policy; a scenario\'s policies: overrides any kind):',
      alignColumns(presetRows, true),
      '',
      'policies:',
      ...Object.entries(data.policies).map(([kind, names]) => `  ${kind.padEnd(11)} ${names.join(', ')}`),
      '',
      'trace formats (dlsim trace import --format F; scenario workload.trace.format):',
      alignColumns(Object.entries(data.traceFormats).map(([id, f]) => [`  ${id}`, f.description]), true),
      '',
      'fault catalogs (scenario faults.catalog; rates per GPU-day at 8 GPUs per node):',
      alignColumns(
        Object.entries(data.faultCatalogs).map(([name, c]) => [`  ${name}`, `${c.faultTypes} types`, `${(c.ratePerGpuDay * 100).toFixed(3)}%/GPU-day`, c.description]),
        true,
      ),
      '',
      'recovery times and counts (scenario recoveryTimes; defaults):',
      ...Object.entries(data.recoveryTimesS).map(([name, times]) => {
        const counts = Object.entries(data.recoveryCounts[name] ?? {}).map(([key, count]) => `${key} ${count}`);
        const pairs = [...Object.entries(times).map(([key, seconds]) => `${key} ${formatDurationS(seconds)}`), ...counts];
        return `  ${name.padEnd(13)} ${pairs.length > 0 ? pairs.join(', ') : '(none)'}`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
