/**
 * Alibaba spot GPU trace v2026 (alibaba/clusterdata `cluster-trace-v2026-spot-gpu`, ASPLOS'26
 * "GFS: A Preemptive Scheduling Framework for GPU Clusters with Predictive Spot Management"):
 * `job_info_df.csv` jobs and `node_info_df.csv` nodes. Columns are mapped by name from the header
 * row (the published node file orders them `gpu_model,gpu_capacity_num,cpu_num,node_name`, not as
 * its README lists them); every column of the README is required.
 *
 * Jobs: `job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,
 * job_type`. Each row becomes one `batch` job of `worker_num` identical workers at fixed speed:
 * - id = job_name (unique), user = organization (a cost organization: department or team),
 *   gpuTypes = [gpu_model] (empty = any GPU).
 * - Per worker: gpu_request GPUs and cpu_request vCPUs. The README says "requested by the job", but
 *   its own examples ask for 1 GPU and 15 vCPUs with 16 and 94 workers: the request is per worker
 *   (instance). A gpu_request below 1 is a share of one GPU; above 1 it must be whole.
 * - Memory: neither file has any; jobs ask for 0 MiB and nodes hold 0 MiB (memory is not modelled).
 * - submitS = submit_time (seconds from the first submission); run time = duration (seconds), the
 *   time the job runs uninterrupted (a zero duration becomes 1 s, the least the simulator replays).
 *   The trace does not say how long a preempted spot job ran in all: its duration is read as its
 *   work, which a preemption makes it redo from its last checkpoint.
 * - priority = `high` for job_type HP, `spot` for Spot (any case). The trace records no checkpoints:
 *   jobs carry none, so a spot job reclaimed by a high-priority one restarts from its first step.
 *
 * Nodes: one NodeSpec per row: name = node_name, group and gpuType = gpu_model (gpuType null for a
 * node without GPUs), gpus = gpu_capacity_num, cpuMilli = cpu_num vCPUs × 1000, memMiB = 0, racks
 * of 32 nodes in file order (the trace publishes no topology).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ConfigError } from '../../errors.js';
import type { ClusterSpec, NodeSpec } from '../../model/cluster-spec.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { JobSpec, PriorityClass } from '../../model/job-spec.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_REPLICAS, MAX_TIME_S } from '../../model/limits.js';
import { convertRow, csvRows, type CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { checkHeader, checkNodeSize, checkRowComplete, positiveDurationS, readCsvHeader } from '../trace-rows.js';

/** Columns of `job_info_df.csv`, as its README lists them. */
export const SPOT_JOB_COLUMNS = ['job_name', 'organization', 'gpu_model', 'cpu_request', 'gpu_request', 'worker_num', 'submit_time', 'duration', 'job_type'] as const;

/** Columns of `node_info_df.csv` the reader needs (by name, in any order). */
export const SPOT_NODE_COLUMNS = ['node_name', 'gpu_model', 'gpu_capacity_num', 'cpu_num'] as const;

/** Nodes per rack when racks are assigned by file order. */
const NODES_PER_RACK = 32;

/** Priority class of each job_type, lower-cased. */
const PRIORITY_OF_TYPE: Readonly<Record<string, PriorityClass>> = { hp: 'high', spot: 'spot' };

/** A non-empty text cell; throws "empty". */
function nonEmptyText(row: CsvRow, column: string): string {
  const text = row.text(column);
  if (text === '') throw row.error(column, 'empty');
  return text;
}

/** A number from 0 to `max`; throws "negative" (or `negativeReason`), "over …" past it. */
function boundedCell(row: CsvRow, column: string, max: number, overReason: string, negativeReason = 'negative'): number {
  const value = row.nonNegative(column, negativeReason);
  if (value > max) throw row.error(column, overReason, row.text(column));
  return value;
}

/** A whole count from 1 to `max`. */
function positiveCount(row: CsvRow, column: string, max: number): number {
  const value = row.number(column);
  if (!Number.isInteger(value)) throw row.error(column, 'not a whole number', row.text(column));
  if (value < 1) throw row.error(column, 'not positive', row.text(column));
  if (value > max) throw row.error(column, `over ${max}`, row.text(column));
  return value;
}

/** GPUs per worker and each one's share in thousandths: below 1 a share of one GPU, else whole GPUs. */
function gpuRequest(row: CsvRow): { gpus: number; gpuMilli: number } {
  const value = boundedCell(row, 'gpu_request', MAX_GPUS_PER_NODE, `over ${MAX_GPUS_PER_NODE}`);
  if (value === 0) return { gpus: 0, gpuMilli: GPU_MILLI };
  if (value < 1) return { gpus: 1, gpuMilli: Math.max(1, Math.round(value * GPU_MILLI)) };
  if (!Number.isInteger(value)) throw row.error('gpu_request', 'not a whole number', row.text('gpu_request'));
  return { gpus: value, gpuMilli: GPU_MILLI };
}

/** Converts one job row; throws TraceError for a bad row. */
function jobOfRow(row: CsvRow, header: readonly string[]): JobSpec {
  checkRowComplete(row, header);
  const id = nonEmptyText(row, 'job_name');
  const cpuMilli = boundedCell(row, 'cpu_request', MAX_CPU_CORES, `over ${MAX_CPU_CORES}`) * 1000;
  const { gpus, gpuMilli } = gpuRequest(row);
  const replicas = positiveCount(row, 'worker_num', MAX_REPLICAS);
  const submitS = boundedCell(row, 'submit_time', MAX_TIME_S, 'over 100 years', 'negative time');
  const durationS = boundedCell(row, 'duration', MAX_TIME_S, 'over 100 years');
  const type = row.text('job_type');
  const priority = PRIORITY_OF_TYPE[type.toLowerCase()];
  if (priority === undefined) throw row.error('job_type', 'unknown job type', type);
  const model = row.text('gpu_model');
  return {
    id,
    kind: 'batch',
    submitS,
    user: row.text('organization'),
    gpuTypes: model === '' ? [] : [model],
    roles: [{ role: 'worker', replicas, demand: { gpus, gpuMilli, cpuMilli, memMiB: 0 } }],
    elastic: null,
    totalSteps: positiveDurationS(durationS),
    speed: { kind: 'fixed' },
    source: `${row.file}:${row.line}`,
    priority,
  };
}

/** Streams the jobs of `job_info_df.csv` files, in file order. */
async function* readSpotJobs(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  let count = 0;
  const seenIds = new Set<string>();
  for (const file of files) {
    if (count >= options.limit) return;
    const header = await readCsvHeader(file);
    checkHeader(file, header, SPOT_JOB_COLUMNS);
    for await (const row of csvRows(file, { kind: 'first-line' })) {
      const job = convertRow(options, () => {
        const converted = jobOfRow(row, header);
        if (seenIds.has(converted.id)) throw row.error('job_name', 'duplicate id', converted.id);
        return converted;
      });
      if (job === null) continue;
      seenIds.add(job.id);
      yield job;
      if (++count >= options.limit) return;
    }
  }
}

/** Converts one node row; `index` is the node's position among the nodes read so far. */
function nodeOfRow(row: CsvRow, header: readonly string[], index: number): NodeSpec {
  checkRowComplete(row, header);
  const name = nonEmptyText(row, 'node_name');
  const gpus = row.nonNegative('gpu_capacity_num');
  if (!Number.isInteger(gpus)) throw row.error('gpu_capacity_num', 'not a whole number', row.text('gpu_capacity_num'));
  const cpuMilli = row.nonNegative('cpu_num') * 1000;
  checkNodeSize(row, { gpus, cpuMilli, memMiB: 0 }, { gpus: 'gpu_capacity_num', cpuMilli: 'cpu_num', memMiB: 'cpu_num' });
  const model = nonEmptyText(row, 'gpu_model');
  return { name, group: model, gpuType: gpus === 0 ? null : model, gpus, cpuMilli, memMiB: 0, rack: `rack-${Math.floor(index / NODES_PER_RACK)}` };
}

/** Reads a `node_info_df.csv` file as a cluster (bad rows per `options`; `limit` does not apply). */
async function readSpotNodes(file: string, options: TraceReadOptions): Promise<ClusterSpec> {
  const header = await readCsvHeader(file);
  checkHeader(file, header, SPOT_NODE_COLUMNS);
  const nodes: NodeSpec[] = [];
  const seenNames = new Set<string>();
  for await (const row of csvRows(file, { kind: 'first-line' })) {
    const node = convertRow(options, () => {
      const converted = nodeOfRow(row, header, nodes.length);
      if (seenNames.has(converted.name)) throw row.error('node_name', 'duplicate name', converted.name);
      return converted;
    });
    if (node === null) continue;
    seenNames.add(node.name);
    nodes.push(node);
  }
  return { nodes };
}

/** Name of the job file writeJobs makes. */
export const SPOT_JOB_FILE = 'job_info_df.csv';

/** The row of a job; a ConfigError (at the job's source) for one the format cannot hold. */
function jobRecord(job: JobSpec): (string | number)[] {
  const fail = (why: string): never => {
    throw new ConfigError(job.source, `cannot be written as an alibaba-spot-2026 row: ${why}`);
  };
  if (job.speed.kind !== 'fixed') fail(`only fixed-speed (trace replay) jobs, not ${job.speed.kind}`);
  if (job.roles.length !== 1 || job.roles[0]!.role !== 'worker') fail('a row is one worker role');
  if (job.gpuTypes.length > 1) fail('a row names one GPU model');
  const { replicas, demand } = job.roles[0]!;
  const gpuRequest = demand.gpus === 1 && demand.gpuMilli < GPU_MILLI ? demand.gpuMilli / GPU_MILLI : demand.gpus;
  const record: Record<(typeof SPOT_JOB_COLUMNS)[number], string | number> = {
    job_name: job.id,
    organization: job.user,
    gpu_model: job.gpuTypes[0] ?? '',
    cpu_request: demand.cpuMilli / 1000,
    gpu_request: gpuRequest,
    worker_num: replicas,
    submit_time: job.submitS,
    duration: job.totalSteps,
    job_type: job.priority === 'spot' ? 'Spot' : 'HP',
  };
  return SPOT_JOB_COLUMNS.map((column) => record[column]);
}

/** Writes jobs as `job_info_df.csv` (header row) in `outDir`; returns the file written. */
async function writeSpotJobs(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const rows = jobs.map(jobRecord);
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, SPOT_JOB_FILE);
  await writeFile(file, stringify([[...SPOT_JOB_COLUMNS], ...rows]));
  return [file];
}

/** Writes a cluster as a `node_info_df.csv` file in the published column order (racks and memory are not kept). */
export async function writeSpotNodeList(cluster: ClusterSpec, file: string): Promise<void> {
  const columns = ['gpu_model', 'gpu_capacity_num', 'cpu_num', 'node_name'];
  const rows = cluster.nodes.map((node) => [node.gpuType ?? node.group, node.gpus, node.cpuMilli / 1000, node.name]);
  await writeFile(file, stringify([columns, ...rows]));
}

/** The Alibaba spot GPU trace v2026 (jobs with priority classes, and its node list). */
export const alibabaSpot2026Format: TraceFormat = {
  id: 'alibaba-spot-2026',
  description: 'Alibaba spot GPU trace v2026 (alibaba/clusterdata cluster-trace-v2026-spot-gpu, ASPLOS\'26): one batch job per row, HP jobs high priority, Spot jobs spot',
  filesHelp: 'job_info_df.csv; cluster: node_info_df.csv',
  readJobs: readSpotJobs,
  readCluster: readSpotNodes,
  writeJobs: writeSpotJobs,
};
