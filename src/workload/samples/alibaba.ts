/**
 * The project's own small Alibaba sample traces (traces/samples/alibaba-gpu-2023 and
 * traces/samples/alibaba-pai-2020), made from fixed job and node lists by the formats' writers, so
 * they are deterministic and carry no published data. Regenerate with
 * `npx tsc -p tsconfig.json && node -e "import('./dist/workload/samples/alibaba.js').then(m => m.writeAlibabaSamples('traces/samples'))"`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterSpec, NodeSpec } from '../../model/cluster-spec.js';
import type { JobSpec, ReplicaDemand, RoleSpec } from '../../model/job-spec.js';
import { alibabaGpu2023Format, writeOpenbNodeList } from '../formats/alibaba-gpu-2023.js';
import { alibabaPai2020Format, writePaiMachineSpec } from '../formats/alibaba-pai-2020.js';

/** Folder of the GPU v2023 samples under the samples root. */
export const GPU_2023_SAMPLE_DIR = 'alibaba-gpu-2023';
/** Folder of the PAI v2020 samples under the samples root. */
export const PAI_2020_SAMPLE_DIR = 'alibaba-pai-2020';
/** Name of the sample openb node list. */
export const OPENB_NODE_SAMPLE_FILE = 'openb_node_list_sample.csv';
/** Name of the sample PAI machine list. */
export const PAI_MACHINE_SAMPLE_FILE = 'pai_machine_spec_sample.csv';

/** A pod's GPU shape in the sample: whole GPUs, or a share (thousandths) of one. */
interface PodShape {
  readonly gpus: number;
  readonly gpuMilli: number;
}

/** Pod shapes the sample cycles through: whole, shared and multi-GPU pods and CPU-only pods. */
const POD_SHAPES: readonly PodShape[] = [
  { gpus: 1, gpuMilli: 1000 },
  { gpus: 1, gpuMilli: 460 },
  { gpus: 0, gpuMilli: 1000 },
  { gpus: 1, gpuMilli: 230 },
  { gpus: 8, gpuMilli: 1000 },
  { gpus: 1, gpuMilli: 810 },
  { gpus: 2, gpuMilli: 1000 },
  { gpus: 1, gpuMilli: 320 },
  { gpus: 4, gpuMilli: 1000 },
  { gpus: 1, gpuMilli: 650 },
];

/** gpu_spec alternatives the sample cycles through for GPU pods ([] = any model). */
const POD_GPU_SPECS: readonly (readonly string[])[] = [[], [], ['V100M16', 'V100M32'], [], ['T4'], ['P100', 'T4'], [], ['G2', 'G3'], ['A10']];

/** Pod phases the sample cycles through (Pending pods are written without a scheduled_time). */
const POD_PHASES: readonly string[] = ['Succeeded', 'Running', 'Failed', 'Running', 'Pending', 'Succeeded', 'Running'];

/** Pod run times in seconds the sample cycles through. */
const POD_DURATIONS_S: readonly number[] = [3600, 86_400, 120, 7200, 45, 600, 1800, 43_200, 1];

/** Number of pods in the GPU v2023 sample. */
const POD_COUNT = 50;

/** The 50 fixed pods of the GPU v2023 sample, as jobs (ids openb-pod-sample-00 …, one every ~10 minutes). */
export function alibabaGpuSampleJobs(): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (let i = 0; i < POD_COUNT; i++) {
    const shape = POD_SHAPES[i % POD_SHAPES.length]!;
    const id = `openb-pod-sample-${String(i).padStart(2, '0')}`;
    jobs.push({
      id,
      kind: 'batch',
      submitS: i * 600 + (i % 3) * 37,
      user: '',
      gpuTypes: shape.gpus === 0 ? [] : POD_GPU_SPECS[i % POD_GPU_SPECS.length]!,
      roles: [
        {
          role: 'worker',
          replicas: 1,
          demand: { gpus: shape.gpus, gpuMilli: shape.gpuMilli, cpuMilli: 4000 * (1 + (i % 4)), memMiB: 8192 * (1 + (i % 3)) },
        },
      ],
      elastic: null,
      totalSteps: POD_DURATIONS_S[i % POD_DURATIONS_S.length]!,
      speed: { kind: 'fixed' },
      source: `alibaba sample pod ${i}`,
      traceStatus: POD_PHASES[i % POD_PHASES.length]!,
    });
  }
  return jobs;
}

/** A node of a sample cluster (rack as the readers derive it: 32 per rack in file order). */
function sampleNode(name: string, group: string, gpuType: string | null, gpus: number, cpuCores: number, memGiB: number): NodeSpec {
  return { name, group, gpuType, gpus, cpuMilli: cpuCores * 1000, memMiB: memGiB * 1024, rack: 'rack-0' };
}

/** The 8 nodes of the sample openb node list. */
export function alibabaGpuSampleCluster(): ClusterSpec {
  return {
    nodes: [
      sampleNode('openb-node-sample-0', 'P100', 'P100', 2, 64, 256),
      sampleNode('openb-node-sample-1', 'P100', 'P100', 2, 64, 256),
      sampleNode('openb-node-sample-2', 'T4', 'T4', 2, 96, 512),
      sampleNode('openb-node-sample-3', 'V100M16', 'V100M16', 4, 96, 384),
      sampleNode('openb-node-sample-4', 'V100M32', 'V100M32', 8, 96, 512),
      sampleNode('openb-node-sample-5', 'G2', 'G2', 8, 128, 786),
      sampleNode('openb-node-sample-6', 'A10', 'A10', 1, 32, 128),
      sampleNode('openb-node-sample-7', 'cpu', null, 0, 32, 256),
    ],
  };
}

/** Demand of one replica in PAI units: percent of a core, GB, and GPUs with their share. */
function paiDemand(cpuPercent: number, memGB: number, gpus: number, gpuMilli = 1000): ReplicaDemand {
  return { gpus, gpuMilli, cpuMilli: cpuPercent * 10, memMiB: Math.round(memGB * 1024) };
}

/** A PAI job template of the sample: its roles and allowed GPU model. */
interface PaiTemplate {
  readonly roles: readonly RoleSpec[];
  readonly gpuTypes: readonly string[];
}

/** Job shapes the PAI sample cycles through: single-task jobs, PS jobs, chief and multi-worker jobs. */
const PAI_TEMPLATES: readonly PaiTemplate[] = [
  // The trace README's example: one ps of 6 cores and two workers of half a GPU each.
  {
    roles: [
      { role: 'ps', replicas: 1, demand: paiDemand(600, 29.296875, 0) },
      { role: 'worker', replicas: 2, demand: paiDemand(400, 29.296875, 1, 500) },
    ],
    gpuTypes: ['T4'],
  },
  { roles: [{ role: 'worker', replicas: 1, demand: paiDemand(600, 29.296875, 1, 500) }], gpuTypes: [] },
  { roles: [{ role: 'worker', replicas: 1, demand: paiDemand(1200, 60, 8) }], gpuTypes: ['V100M32'] },
  {
    roles: [
      { role: 'ps', replicas: 4, demand: paiDemand(800, 40, 0) },
      { role: 'worker', replicas: 8, demand: paiDemand(600, 30, 1) },
      { role: 'chief', replicas: 1, demand: paiDemand(600, 30, 1) },
    ],
    gpuTypes: ['V100'],
  },
  { roles: [{ role: 'worker', replicas: 1, demand: paiDemand(400, 8, 0) }], gpuTypes: [] },
  {
    roles: [
      { role: 'worker', replicas: 2, demand: paiDemand(800, 32, 2) },
      // An evaluator task: an auxiliary role, read back as the chief.
      { role: 'chief', replicas: 1, demand: paiDemand(200, 8, 1, 250) },
    ],
    gpuTypes: ['P100'],
  },
  { roles: [{ role: 'worker', replicas: 1, demand: paiDemand(100, 2, 1, 100) }], gpuTypes: [] },
  {
    roles: [
      { role: 'ps', replicas: 2, demand: paiDemand(1000, 64, 0) },
      { role: 'worker', replicas: 16, demand: paiDemand(400, 16, 0) },
    ],
    gpuTypes: [],
  },
];

/** Users, statuses and run times the PAI sample cycles through. */
const PAI_USERS: readonly string[] = ['58540f191766', 'd2d3b77d342e', 'a1b2c3d4e5f6', '0f1e2d3c4b5a', '9a8b7c6d5e4f'];
const PAI_STATUSES: readonly string[] = ['Terminated', 'Terminated', 'Failed', 'Terminated', 'Terminated'];
const PAI_DURATIONS_S: readonly number[] = [537, 3600, 14_400, 90, 86_400, 1200, 7];

/** Number of jobs in the PAI v2020 sample. */
const PAI_JOB_COUNT = 30;

/** The 30 fixed jobs of the PAI v2020 sample (ids pai-sample-00 …; every fourth job has retries). */
export function alibabaPaiSampleJobs(): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (let i = 0; i < PAI_JOB_COUNT; i++) {
    const template = PAI_TEMPLATES[i % PAI_TEMPLATES.length]!;
    jobs.push({
      id: `pai-sample-${String(i).padStart(2, '0')}`,
      kind: 'batch',
      submitS: i * 900 + (i % 4) * 61,
      user: PAI_USERS[i % PAI_USERS.length]!,
      gpuTypes: template.gpuTypes,
      roles: template.roles,
      elastic: null,
      totalSteps: PAI_DURATIONS_S[i % PAI_DURATIONS_S.length]!,
      speed: { kind: 'fixed' },
      source: `alibaba sample PAI job ${i}`,
      traceStatus: PAI_STATUSES[i % PAI_STATUSES.length]!,
      traceRetries: i % 4 === 3 ? 1 + (i % 3) : 0,
    });
  }
  return jobs;
}

/** The 8 machines of the sample PAI machine list (every gpu_type of the trace). */
export function alibabaPaiSampleCluster(): ClusterSpec {
  return {
    nodes: [
      sampleNode('pai-machine-sample-0', 'P100', 'P100', 2, 64, 512),
      sampleNode('pai-machine-sample-1', 'P100', 'P100', 2, 64, 512),
      sampleNode('pai-machine-sample-2', 'T4', 'T4', 2, 96, 512),
      sampleNode('pai-machine-sample-3', 'MISC', 'MISC', 8, 96, 512),
      sampleNode('pai-machine-sample-4', 'V100', 'V100', 8, 96, 384),
      sampleNode('pai-machine-sample-5', 'V100M32', 'V100M32', 8, 96, 384),
      sampleNode('pai-machine-sample-6', 'CPU', null, 0, 96, 512),
      sampleNode('pai-machine-sample-7', 'CPU', null, 0, 96, 512),
    ],
  };
}

/** Writes all Alibaba sample files under `samplesDir` (e.g. "traces/samples"); returns the files written. */
export async function writeAlibabaSamples(samplesDir: string): Promise<string[]> {
  const gpuDir = join(samplesDir, GPU_2023_SAMPLE_DIR);
  const paiDir = join(samplesDir, PAI_2020_SAMPLE_DIR);
  await mkdir(gpuDir, { recursive: true });
  await mkdir(paiDir, { recursive: true });
  const written = [
    ...(await alibabaGpu2023Format.writeJobs!(alibabaGpuSampleJobs(), gpuDir)),
    ...(await alibabaPai2020Format.writeJobs!(alibabaPaiSampleJobs(), paiDir)),
  ];
  const nodeFile = join(gpuDir, OPENB_NODE_SAMPLE_FILE);
  await writeOpenbNodeList(alibabaGpuSampleCluster(), nodeFile);
  const machineFile = join(paiDir, PAI_MACHINE_SAMPLE_FILE);
  await writePaiMachineSpec(alibabaPaiSampleCluster(), machineFile);
  return [...written, nodeFile, machineFile];
}
