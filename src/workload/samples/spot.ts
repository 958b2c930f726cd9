/**
 * The project's own small spot GPU v2026 sample (traces/samples/alibaba-spot-2026): fixed lists of
 * 10 jobs (5 HP, 5 Spot) and 6 nodes, written by the format's writer, so it is deterministic and
 * carries no published data. The jobs are laid out so that high-priority jobs arrive to GPUs spot
 * jobs hold: a replay shows spot preemptions.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterSpec, NodeSpec } from '../../model/cluster-spec.js';
import type { JobSpec, PriorityClass } from '../../model/job-spec.js';
import { alibabaSpot2026Format, writeSpotNodeList } from '../formats/alibaba-spot-2026.js';

/** Folder of the spot v2026 sample under the samples root. */
export const SPOT_2026_SAMPLE_DIR = 'alibaba-spot-2026';
/** Name of the sample node list. */
export const SPOT_NODE_SAMPLE_FILE = 'node_info_df.csv';

/** One sample job: id, organization, GPU model, vCPUs and GPUs per worker, workers, submission and run time (s), class. */
type SampleRow = readonly [string, string, string, number, number, number, number, number, PriorityClass];

/** The sample's jobs, in submission order. */
const SAMPLE_ROWS: readonly SampleRow[] = [
  ['1', '13', 'A10', 20, 1, 1, 0, 7200, 'high'],
  ['2', '57', 'A100-SXM4-80GB', 15, 1, 16, 0, 5400, 'spot'],
  ['3', '57', 'H800', 20, 8, 1, 60, 3000, 'spot'],
  ['4', '21', 'A100-SXM4-80GB', 16, 4, 1, 600, 1800, 'high'],
  ['5', '21', 'H800', 24, 4, 1, 900, 1200, 'high'],
  ['6', '13', 'A10', 8, 1, 1, 1200, 600, 'spot'],
  ['7', '5', 'GPU-series-1', 10, 1, 1, 1500, 900, 'high'],
  ['8', '57', 'GPU-series-1', 8, 1, 3, 1800, 2400, 'spot'],
  ['9', '5', 'GPU-series-1', 16, 2, 1, 2400, 1200, 'high'],
  ['10', '57', 'A100-SXM4-80GB', 15, 1, 8, 3000, 1800, 'spot'],
];

/** The 10 fixed jobs of the sample, as the format reads them back (sources aside). */
export function spotSampleJobs(): JobSpec[] {
  return SAMPLE_ROWS.map(([id, user, model, cores, gpus, workers, submitS, durationS, priority]) => ({
    id,
    kind: 'batch',
    submitS,
    user,
    gpuTypes: [model],
    roles: [{ role: 'worker', replicas: workers, demand: { gpus, gpuMilli: 1000, cpuMilli: cores * 1000, memMiB: 0 } }],
    elastic: null,
    totalSteps: durationS,
    speed: { kind: 'fixed' },
    source: `sample:${id}`,
    priority,
  }));
}

/** A sample node of `gpus` GPUs of `model` and `cores` vCPUs (memory is not recorded). */
function sampleNode(name: string, model: string, gpus: number, cores: number): NodeSpec {
  return { name, group: model, gpuType: model, gpus, cpuMilli: cores * 1000, memMiB: 0, rack: 'rack-0' };
}

/** The 6 fixed nodes of the sample, as the format reads them back. */
export function spotSampleCluster(): ClusterSpec {
  return {
    nodes: [
      sampleNode('0', 'A10', 1, 128),
      sampleNode('1', 'A10', 1, 128),
      sampleNode('2', 'A100-SXM4-80GB', 8, 128),
      sampleNode('3', 'A100-SXM4-80GB', 8, 128),
      sampleNode('4', 'H800', 8, 192),
      sampleNode('5', 'GPU-series-1', 4, 192),
    ],
  };
}

/** Writes the spot sample under `samplesDir` (e.g. "traces/samples"); returns the files written. */
export async function writeSpotSamples(samplesDir: string): Promise<string[]> {
  const outDir = join(samplesDir, SPOT_2026_SAMPLE_DIR);
  await mkdir(outDir, { recursive: true });
  const written = await alibabaSpot2026Format.writeJobs!(spotSampleJobs(), outDir);
  const nodeFile = join(outDir, SPOT_NODE_SAMPLE_FILE);
  await writeSpotNodeList(spotSampleCluster(), nodeFile);
  return [...written, nodeFile];
}
