/**
 * Alibaba GPU cluster trace v2023 (alibaba/clusterdata `cluster-trace-gpu-v2023`, ATC'23 "Beware of
 * Fragmentation"): `openb_pod_list_*.csv` pods and `openb_node_list_*.csv` nodes.
 *
 * Pods. Columns are mapped by name from the header row, since published variants carry fewer
 * columns. `name`, `cpu_milli`, `memory_mib`, `num_gpu` and `gpu_milli` are required (a header
 * without one throws a TraceError at line 1, strict or not: the file is not a pod list); `gpu_spec`,
 * `qos`, `pod_phase`, `creation_time`, `scheduled_time` and `deletion_time` are optional. A list
 * without `creation_time` has no times (the FGD simulator places its pods once and keeps them): each
 * pod is submitted at 0, in file order, marked `untimed`, with the longest run time the simulator
 * allows (MAX_TIME_S), and only a fill run replays it. Each pod becomes one `batch` job with one
 * worker replica and fixed speed:
 * - id = name, submitS = creation_time (the trace's times already start at 0), user = "" (`qos`
 *   LS/BE/Burstable/Guaranteed is a service class, not a user, and is not kept), traceStatus = pod_phase.
 * - gpus = num_gpu; for one GPU, gpu_milli 0 or 1000 is a whole GPU and 1..999 a shared part of one;
 *   several GPUs must each be whole (gpu_milli 1000). CPU-only pods carry gpuMilli 1000 (unused).
 * - gpuTypes = gpu_spec split on `|` (empty = any GPU); each must be a known model.
 * - Run time: deletion_time − scheduled_time when the pod was scheduled. A pod with no
 *   scheduled_time was never placed (all 897 such pods in openb_pod_list_default.csv are Pending,
 *   and all have a deletion_time): it runs deletion_time − creation_time, the time it held its
 *   request in the trace (median 94 s there), so a replay keeps the demand it put on the
 *   scheduler; its traceStatus says it never ran. A pod with neither usable pair is skipped with
 *   "deletion_time: no run time". A zero run time becomes 1 s, the smallest the simulator replays
 *   (one Pending pod in the default list was deleted in the second it was created).
 * On openb_pod_list_default.csv this reads all 8,152 pods as jobs and skips none.
 *
 * Nodes: `sn,cpu_milli,memory_mib,gpu,model`, one NodeSpec per row: name = sn, group = model or
 * "cpu", gpuType = model (null for a node without GPUs), racks of 32 nodes in file order.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { ConfigError, TraceError } from '../../errors.js';
import type { ClusterSpec, NodeSpec } from '../../model/cluster-spec.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { JobSpec } from '../../model/job-spec.js';
import { MAX_TIME_S } from '../../model/limits.js';
import { convertRow, csvRows, fileError, type CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { checkNodeSize } from '../trace-rows.js';

/** GPU models a pod may ask for or a node may carry: the trace's own list, plus V100, A100 and H100. */
export const OPENB_GPU_MODELS: ReadonlySet<string> = new Set(['P100', 'T4', 'V100M16', 'V100M32', 'A10', 'G2', 'G3', 'V100', 'A100', 'H100']);

/** Columns of a pod list, in the order the full published files (and writeJobs) have them. */
const POD_COLUMNS = [
  'name',
  'cpu_milli',
  'memory_mib',
  'num_gpu',
  'gpu_milli',
  'gpu_spec',
  'qos',
  'pod_phase',
  'creation_time',
  'deletion_time',
  'scheduled_time',
] as const;

/** Pod columns every variant has; the others may be absent from a file's header. */
const REQUIRED_POD_COLUMNS = ['name', 'cpu_milli', 'memory_mib', 'num_gpu', 'gpu_milli'] as const;

/** The column whose absence makes a pod list time-less. */
const CREATION_TIME = 'creation_time';

/** Columns of a node list, in file order. */
const NODE_COLUMNS = ['sn', 'cpu_milli', 'memory_mib', 'gpu', 'model'] as const;

/** Node-list columns every variant has (`model` may be absent from a CPU-only list). */
const REQUIRED_NODE_COLUMNS = ['sn', 'cpu_milli', 'memory_mib', 'gpu'] as const;

/** Nodes per rack when racks are assigned by file order (the trace publishes no topology). */
const NODES_PER_RACK = 32;

/** Shortest run time a pod is replayed with, in seconds (a zero-length pod still has to be placed). */
const MIN_DURATION_S = 1;

/** Name of the pod list writeJobs makes. */
export const OPENB_POD_SAMPLE_FILE = 'openb_pod_list_sample.csv';

/**
 * The column names of a CSV file's first line (trimmed); throws ConfigError for a missing, unreadable
 * or empty file. Reading the header first also keeps csvRows from meeting a missing file, whose
 * read-stream error `pipe` would not pass on to the parser.
 */
async function headerColumns(file: string): Promise<string[]> {
  let stream: ReadStream | undefined;
  try {
    stream = createReadStream(file);
    const parser = parse({ to_line: 1, bom: true, relax_column_count: true });
    stream.on('error', (error) => parser.destroy(error));
    stream.pipe(parser);
    for await (const record of parser as AsyncIterable<string[]>) return record.map((name) => name.trim());
  } catch (error) {
    throw fileError(file, error);
  } finally {
    stream?.destroy();
  }
  throw new ConfigError(file, 'empty file: expected a header row');
}

/** Throws a TraceError at line 1 for the first required column the header lacks. */
function requireColumns(file: string, header: readonly string[], required: readonly string[]): void {
  for (const column of required) {
    if (!header.includes(column)) throw new TraceError(file, 1, column, 'missing column');
  }
}

/** Throws "missing column" for the first of the header's columns a (short) row lacks. */
function requireCells(row: CsvRow, header: readonly string[]): void {
  for (const column of header) row.text(column);
}

/** A non-empty text cell; throws "empty". */
function nonEmptyText(row: CsvRow, column: string): string {
  const text = row.text(column);
  if (text === '') throw row.error(column, 'empty');
  return text;
}

/** A non-negative whole number; throws "not a whole number" for fractions. */
function wholeCount(row: CsvRow, column: string): number {
  const value = row.nonNegative(column);
  if (!Number.isInteger(value)) throw row.error(column, 'not a whole number', row.text(column));
  return value;
}

/** A time in seconds from an optional column: null when the file lacks the column or the cell is empty. */
function optionalTimeS(row: CsvRow, header: readonly string[], column: string): number | null {
  if (!header.includes(column) || row.text(column) === '') return null;
  return row.nonNegative(column, 'negative time');
}

/** The allowed GPU models of a `gpu_spec` cell ("" = any); throws "unknown GPU type". */
function gpuTypesOf(row: CsvRow, header: readonly string[]): string[] {
  if (!header.includes('gpu_spec')) return [];
  const types: string[] = [];
  for (const part of row.text('gpu_spec').split('|')) {
    const model = part.trim();
    if (model === '') continue;
    if (!OPENB_GPU_MODELS.has(model)) throw row.error('gpu_spec', 'unknown GPU type', model);
    if (!types.includes(model)) types.push(model);
  }
  return types;
}

/** The share of each GPU in thousandths, from num_gpu and gpu_milli (see the header comment). */
function gpuShareMilli(row: CsvRow, gpus: number): number {
  const cellMilli = row.nonNegative('gpu_milli');
  if (gpus === 0) return GPU_MILLI;
  if (cellMilli > GPU_MILLI) throw row.error('gpu_milli', 'above 1000', row.text('gpu_milli'));
  if (gpus === 1) return cellMilli === 0 ? GPU_MILLI : Math.max(1, Math.round(cellMilli));
  if (cellMilli !== GPU_MILLI) throw row.error('gpu_milli', 'partial share of several GPUs', row.text('gpu_milli'));
  return GPU_MILLI;
}

/** The pod's run time in seconds (see the header comment for the rule). */
function podDurationS(row: CsvRow, header: readonly string[], creationS: number): number {
  const scheduledS = optionalTimeS(row, header, 'scheduled_time');
  const deletionS = optionalTimeS(row, header, 'deletion_time');
  if (deletionS === null) throw row.error('deletion_time', 'no run time');
  const startS = scheduledS ?? creationS;
  if (deletionS < startS) throw row.error('deletion_time', 'end before start', row.text('deletion_time'));
  // A pod deleted in the second it started still took a placement: replay it for the minimum.
  return Math.max(MIN_DURATION_S, deletionS - startS);
}

/** Converts one pod row to a job; throws TraceError for a bad row. */
function podToJob(row: CsvRow, header: readonly string[]): JobSpec {
  requireCells(row, header);
  const id = nonEmptyText(row, 'name');
  const cpuMilli = row.nonNegative('cpu_milli');
  const memMiB = row.nonNegative('memory_mib');
  const gpus = wholeCount(row, 'num_gpu');
  const gpuMilli = gpuShareMilli(row, gpus);
  const gpuTypes = gpuTypesOf(row, header);
  const timed = header.includes(CREATION_TIME);
  const submitS = timed ? row.nonNegative(CREATION_TIME, 'negative time') : 0;
  const durationS = timed ? podDurationS(row, header, submitS) : MAX_TIME_S;
  const phase = header.includes('pod_phase') ? row.text('pod_phase') : '';
  return {
    id,
    kind: 'batch',
    submitS,
    ...(timed ? {} : { untimed: true as const }),
    user: '',
    gpuTypes,
    roles: [{ role: 'worker', replicas: 1, demand: { gpus, gpuMilli, cpuMilli, memMiB } }],
    elastic: null,
    totalSteps: durationS,
    speed: { kind: 'fixed' },
    source: `${row.file}:${row.line}`,
    ...(phase === '' ? {} : { traceStatus: phase }),
  };
}

/** Streams the pods of `openb_pod_list_*.csv` files as batch jobs, in file order. */
async function* readPodJobs(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  let count = 0;
  const seenIds = new Set<string>();
  for (const file of files) {
    if (count >= options.limit) return;
    const header = await headerColumns(file);
    requireColumns(file, header, REQUIRED_POD_COLUMNS);
    for await (const row of csvRows(file, { kind: 'first-line' })) {
      const job = convertRow(options, () => {
        const pod = podToJob(row, header);
        if (seenIds.has(pod.id)) throw row.error('name', 'duplicate id', pod.id);
        return pod;
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
  requireCells(row, header);
  const name = nonEmptyText(row, 'sn');
  const cpuMilli = row.nonNegative('cpu_milli');
  const memMiB = row.nonNegative('memory_mib');
  const gpus = wholeCount(row, 'gpu');
  const model = header.includes('model') ? row.text('model') : '';
  if (model !== '' && !OPENB_GPU_MODELS.has(model)) throw row.error('model', 'unknown GPU type', model);
  if (gpus > 0 && model === '') throw row.error('model', 'empty');
  checkNodeSize(row, { gpus, cpuMilli, memMiB }, { gpus: 'gpu', cpuMilli: 'cpu_milli', memMiB: 'memory_mib' });
  return {
    name,
    group: model === '' ? 'cpu' : model,
    gpuType: gpus === 0 ? null : model,
    gpus,
    cpuMilli,
    memMiB,
    rack: `rack-${Math.floor(index / NODES_PER_RACK)}`,
  };
}

/** Reads an `openb_node_list_*.csv` file as a cluster (bad rows per `options`; `limit` does not apply). */
async function readNodeList(file: string, options: TraceReadOptions): Promise<ClusterSpec> {
  const header = await headerColumns(file);
  requireColumns(file, header, REQUIRED_NODE_COLUMNS);
  const nodes: NodeSpec[] = [];
  const seenNames = new Set<string>();
  for await (const row of csvRows(file, { kind: 'first-line' })) {
    const node = convertRow(options, () => {
      const converted = nodeOfRow(row, header, nodes.length);
      if (seenNames.has(converted.name)) throw row.error('sn', 'duplicate name', converted.name);
      return converted;
    });
    if (node === null) continue;
    seenNames.add(node.name);
    nodes.push(node);
  }
  return { nodes };
}

/**
 * The pod-list rows of a job, one pod per replica (the list has no jobs, so a job of several
 * replicas or roles becomes several pods, named `<id>-<role>-<k>`; a one-replica job keeps its id),
 * each scheduled at submission (Pending: never).
 */
function podRecords(job: JobSpec): (string | number)[][] {
  if (job.speed.kind !== 'fixed') {
    throw new ConfigError(job.source, `only fixed-speed (trace replay) jobs can be written as pods, not ${job.speed.kind}`);
  }
  if (!job.roles.some((role) => role.role === 'worker')) throw new ConfigError(job.source, 'a job needs a worker role');
  const single = job.roles.length === 1 && job.roles[0]!.replicas === 1;
  const phase = job.traceStatus ?? 'Succeeded';
  const deletionS = job.submitS + job.totalSteps;
  const rows: (string | number)[][] = [];
  for (const role of job.roles) {
    const { gpus, gpuMilli, cpuMilli, memMiB } = role.demand;
    for (let replica = 0; replica < role.replicas; replica++) {
      const record: Record<(typeof POD_COLUMNS)[number], string | number> = {
        name: single ? job.id : `${job.id}-${role.role}-${replica}`,
        cpu_milli: cpuMilli,
        memory_mib: memMiB,
        num_gpu: gpus,
        gpu_milli: gpus === 0 ? 0 : gpuMilli,
        gpu_spec: job.gpuTypes.join('|'),
        qos: 'LS',
        pod_phase: phase,
        creation_time: job.submitS,
        deletion_time: deletionS,
        // A Pending pod was never scheduled; readJobs then runs it deletion − creation, the same time.
        scheduled_time: phase === 'Pending' ? '' : job.submitS,
      };
      rows.push(POD_COLUMNS.map((column) => record[column]));
    }
  }
  return rows;
}

/** Writes jobs as `openb_pod_list_sample.csv` (with a header row) in `outDir`; returns the file written. */
async function writePodList(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const rows = jobs.flatMap(podRecords);
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, OPENB_POD_SAMPLE_FILE);
  await writeFile(file, stringify([[...POD_COLUMNS], ...rows]));
  return [file];
}

/** Writes a cluster as an `openb_node_list_*.csv` file (header row; racks are not kept: the reader re-derives them). */
export async function writeOpenbNodeList(cluster: ClusterSpec, file: string): Promise<void> {
  const rows = cluster.nodes.map((node) => [node.name, node.cpuMilli, node.memMiB, node.gpus, node.gpuType ?? '']);
  await writeFile(file, stringify([[...NODE_COLUMNS], ...rows]));
}

/** The Alibaba GPU trace v2023 (openb pod and node lists). */
export const alibabaGpu2023Format: TraceFormat = {
  id: 'alibaba-gpu-2023',
  description: 'Alibaba GPU cluster trace v2023 (alibaba/clusterdata cluster-trace-gpu-v2023, ATC\'23): one batch job per pod',
  filesHelp: 'openb_pod_list_default.csv [more openb_pod_list_*.csv …]; cluster: openb_node_list_gpu_node.csv',
  readJobs: readPodJobs,
  readCluster: readNodeList,
  writeJobs: writePodList,
};
