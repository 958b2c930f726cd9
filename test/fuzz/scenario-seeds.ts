/** Seed scenarios for fuzzing: the shipped ones, and small ones that reach every input a scenario can name. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
/** The project's sample traces (scenarios name them by absolute path, so a case folder can be anywhere). */
export const SAMPLES = join(ROOT, 'traces/samples');
/** The shipped fault catalogs. */
export const CATALOGS = join(ROOT, 'src/faults/catalogs');

/** A seed scenario: its text, and extra files written beside it (by name). */
export interface ScenarioSeed {
  readonly name: string;
  readonly text: string;
  readonly beside?: Readonly<Record<string, string>>;
}

const CLUSTER = `cluster:
  nodes:
    - {group: a, count: 4, gpus: 8, gpuType: A100, cpuCores: 64, memGiB: 512, nodesPerRack: 2}
    - {group: c, count: 2, gpus: 0, cpuCores: 32, memGiB: 128}
`;

/** Small scenarios that use a trace workload, a machine list, a catalog file with overrides, users and recovery times. */
const EXTRA_SEEDS: readonly ScenarioSeed[] = [
  {
    name: 'trace-helios.yaml',
    text: `name: trace-helios
seed: 3
policy: drf
${CLUSTER}workload:
  trace:
    format: helios
    files: ${join(SAMPLES, 'helios/cluster_log.csv')}
users:
  uXBbc: {weight: 2}
`,
  },
  {
    name: 'trace-pai.yaml',
    text: `name: trace-pai
policy: fifo
${CLUSTER}workload:
  trace:
    format: alibaba-pai-2020
    files: [${join(SAMPLES, 'alibaba-pai-2020/pai_job_table.csv')}, ${join(SAMPLES, 'alibaba-pai-2020/pai_task_table.csv')}]
`,
  },
  {
    name: 'machines.yaml',
    text: `name: machines
policy: fifo
cluster:
  from:
    format: alibaba-gpu-2023
    file: ${join(SAMPLES, 'alibaba-gpu-2023/openb_node_list_sample.csv')}
workload:
  trace:
    format: alibaba-gpu-2023
    files: ${join(SAMPLES, 'alibaba-gpu-2023/openb_pod_list_sample.csv')}
`,
  },
  {
    name: 'faults-file.yaml',
    text: `name: faults-file
policy: dlrover
${CLUSTER}workload:
  jobs:
    - {id: a, kind: allreduce, replicas: 2, gpus: 8, cpuCores: 8, memGiB: 64, steps: 1000, stepTime: 1s, checkpoint: {interval: 10m, save: 30s, load: 1m}}
    - {id: b, submit: 1h, gpus: 1, duration: 2h, startup: 30s}
faults:
  catalog: catalog.yaml
  scale: 2
  hangTimeout: 10m
  overrides:
    faulty-gpu: {ratePerGpuDay: 0.001, repair: {kind: fixed, seconds: 1h}}
recoveryTimes:
  dlrover: {replace: 3m}
sim:
  horizon: 2d
`,
    beside: { 'catalog.yaml': readFileSync(join(CATALOGS, 'llama3-2024.yaml'), 'utf8') },
  },
];

/** Every seed: the shipped scenarios (their trace paths point outside the case folder: a located error) and the extras. */
export function scenarioSeeds(): ScenarioSeed[] {
  const shipped: ScenarioSeed[] = [];
  for (const folder of ['scenarios', 'scenarios/validation']) {
    for (const name of readdirSync(join(ROOT, folder)).filter((file) => file.endsWith('.yaml')).sort()) {
      shipped.push({ name, text: readFileSync(join(ROOT, folder, name), 'utf8') });
    }
  }
  return [...shipped, ...EXTRA_SEEDS];
}
