import { fileURLToPath } from 'node:url';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { benchImportMemory } from '../bench/import-memory.js';
import { benchSimThroughput } from '../bench/sim-throughput.js';
import { ConfigError } from '../errors.js';
import { benchOptimusRound } from '../policies/scheduling/optimus-bench.js';
import { alignColumns } from '../report/summary-table.js';
import { printJson } from './output.js';

interface BenchArgs {
  only?: string;
  rows: number;
  json?: boolean;
}

/** One measured figure of a benchmark. */
interface Figure {
  readonly bench: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  /** What the figure should stay within, in words (for the table). */
  readonly target: string;
}

/** The benchmarks by name: each returns its figures. */
const BENCHMARKS: Readonly<Record<string, (args: BenchArgs) => Promise<Figure[]>>> = {
  'sim-default': async () => {
    const r = await benchSimThroughput('scenarios/default.yaml');
    return [
      { bench: 'sim-default', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs, ${r.events} events` },
      { bench: 'sim-default', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'sim-20k-jobs': async () => {
    const r = await benchSimThroughput('scenarios/default.yaml', ['workload.synthetic.jobs=20000']);
    return [
      { bench: 'sim-20k-jobs', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs, ${r.events} events` },
      { bench: 'sim-20k-jobs', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'sim-faults': async () => {
    const sets = ['workload.synthetic.jobs=20000', 'policy=dlrover', 'faults.catalog=ant-2023', 'faults.scale=100'];
    const r = await benchSimThroughput('scenarios/default.yaml', sets);
    return [
      { bench: 'sim-faults', metric: 'wall time', value: r.seconds, unit: 's', target: `${r.jobs} jobs under dlrover, ant-2023 x 100, ${r.events} events` },
      { bench: 'sim-faults', metric: 'events/s', value: r.eventsPerS, unit: '1/s', target: 'higher is better' },
    ];
  },
  'optimus-round': async () => {
    const r = benchOptimusRound();
    return [
      {
        bench: 'optimus-round',
        metric: 'one allocation round',
        value: Math.round(r.seconds * 1000) / 1000,
        unit: 's',
        target: `${r.tasks} tasks on ${r.nodes} nodes (${r.jobs} jobs); paper ~5 s, target <= 1 s`,
      },
    ];
  },
  'import-memory': async (args) => {
    const cli = fileURLToPath(new URL('./main.js', import.meta.url));
    const r = await benchImportMemory(cli, args.rows);
    return [
      { bench: 'import-memory', metric: 'peak RSS', value: r.peakRssMiB, unit: 'MiB', target: `< 1024 MiB for ${r.rows} rows` },
      { bench: 'import-memory', metric: 'import time', value: r.seconds, unit: 's', target: `${r.jobs} jobs imported` },
    ];
  },
};

/** `dlsim bench`: measures the simulator's speed and memory (never part of the tests). */
export const benchCommand: CommandModule<object, BenchArgs> = {
  command: 'bench',
  describe: 'Run the benchmarks and print their figures',
  builder: (yargs: Argv<object>) =>
    yargs
      .option('only', { type: 'string', describe: `comma-separated benchmarks: ${Object.keys(BENCHMARKS).join(', ')}` })
      .option('rows', { type: 'number', default: 1_000_000, describe: 'rows of the generated trace import-memory imports' })
      .option('json', { type: 'boolean', describe: 'print the figures as one JSON object' }) as Argv<BenchArgs>,
  handler: async (args: ArgumentsCamelCase<BenchArgs>) => {
    const names = args.only ? args.only.split(',').map((n) => n.trim()) : Object.keys(BENCHMARKS);
    for (const name of names) {
      if (!BENCHMARKS[name]) throw new ConfigError('--only', `unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    }
    const figures: Figure[] = [];
    for (const name of names) {
      if (!args.json) process.stderr.write(`running ${name}…\n`);
      figures.push(...(await BENCHMARKS[name]!(args)));
    }
    if (args.json) return printJson({ figures });
    const rows = [['benchmark', 'metric', 'value', 'note'], ...figures.map((f) => [f.bench, f.metric, `${f.value} ${f.unit}`, f.target])];
    process.stdout.write(`${alignColumns(rows)}\n`);
  },
};
