/**
 * The job CSV of the Alibaba PAI simulator (alibaba/clusterdata `cluster-trace-gpu-v2020/simulator`,
 * the scheduling simulator beside the NSDI'22 "MLaaS in the Wild" trace). A header row, columns
 * mapped by name, `job_id,user,group,gpu_type,num_inst,num_gpu,num_cpu,submit_time,duration` and
 * any extra ones (the simulator's files add estimator columns such as `wait_time`, `user_dur`),
 * which are ignored. job_id, submit_time and duration are required in the header.
 *
 * How the simulator reads the file, which this reader follows (read in its `simulator.py`
 * `Simulator.add_job`, a `csv.DictReader` per row, and `utils.py` `_add_job`):
 * - num_gpu and num_cpu are per instance in DEVICES (0.5 = half a GPU, 8 = eight GPUs, 6 = six
 *   vCPU): `_add_job` stores `round(100 * float(value))`, percent of a device, the unit of the
 *   simulator's nodes (`node.py` keeps `num_gpus * 100` and `num_cpus * 100`). Empty or absent: 0.
 *   Here percent p becomes: GPUs 0 (p = 0), one GPU with gpuMilli = 10 p (1 ≤ p ≤ 100), p / 100
 *   whole GPUs (a multiple of 100), else rounded up to whole GPUs (150 -> 2: a replica cannot hold
 *   1.5 GPUs here, as in alibaba-pai-2020); cpuMilli = 10 p. Python's round() takes halves to even
 *   (12.5 -> 12), and so does this reader.
 * - num_inst instances of that demand form a gang (`scheduler.py` places all or none): one worker
 *   role of num_inst replicas. Empty or absent: 1 (as `_add_job`). It must be a whole number ≥ 1.
 * - submit_time in seconds, `round(float(value))` (halves to even); kept as written, not shifted to
 *   the earliest row (the simulator's clock starts at 0 whatever the first submission). An empty
 *   cell is a bad row here, where `_add_job` would use 1 s.
 * - duration in seconds, `int(float(value))` (truncated); 0 becomes 1 s as in `_add_job`
 *   (MIN_DURATION_S); a negative one is a bad row.
 * - gpu_type P100/T4/V100/V100M32 -> gpuTypes [that model]; MISC or empty -> any GPU; CPU -> no
 *   model either (the simulator's type matching lets CPU jobs on any node), normally with num_gpu 0.
 *   Other values: "unknown GPU type".
 * - user kept; group dropped (JobSpec has one tenant field). No memory column: memMiB 0, as the
 *   simulator reserves none. Every job is `batch` with fixed speed (the duration is replayed).
 * Counts and sizes beyond src/model/limits.ts are bad rows at their cell ("over N").
 *
 * The writer writes that layout (file PAI_SIM_JOBS_FILE): values in devices, times in whole
 * seconds, group empty. A job of several roles (a PS job) has no one row: each role becomes a row
 * of its own, `<id>-<role>`, a gang of the role's replicas.
 */
import { join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { JobSpec, ReplicaDemand } from '../../model/job-spec.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_REPLICAS, MAX_TIME_S } from '../../model/limits.js';
import type { CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { checkRowComplete, csvJobsOf, isMissingText, positiveDurationS, traceBatchJob, writeCsv } from '../trace-rows.js';

/** The file name the writer writes. */
export const PAI_SIM_JOBS_FILE = 'pai_sim_jobs.csv';

/** Columns the writer writes, in the simulator's order. */
const PAI_SIM_COLUMNS = ['job_id', 'user', 'group', 'gpu_type', 'num_inst', 'num_gpu', 'num_cpu', 'submit_time', 'duration'] as const;

/** Columns a job CSV must have. */
const PAI_SIM_REQUIRED = ['job_id', 'submit_time', 'duration'] as const;

/** GPU models a gpu_type may name. */
const PAI_SIM_GPU_MODELS: ReadonlySet<string> = new Set(['P100', 'T4', 'V100', 'V100M32']);

/** gpu_type values that name no model: MISC (any GPU), CPU and empty. */
const PAI_SIM_ANY_TYPES: ReadonlySet<string> = new Set(['MISC', 'CPU', '']);

/** Python's round(): to the nearest whole number, halves to the even one. */
export function roundHalfEven(value: number): number {
  const nearest = Math.round(value);
  return Math.abs(value % 1) === 0.5 ? 2 * Math.round(value / 2) : nearest;
}

/** An amount in percent of a device as the simulator stores it: round(100 × cell), 0 when empty or absent. */
function percentCell(row: CsvRow, column: string): number {
  if (!row.has(column) || isMissingText(row.text(column))) return 0;
  return roundHalfEven(100 * row.nonNegative(column));
}

/** GPUs per instance from percent of a GPU (see the header comment); throws "over N" beyond a node's bound. */
function gpuDemandOf(row: CsvRow, percent: number): { gpus: number; gpuMilli: number } {
  if (percent === 0) return { gpus: 0, gpuMilli: GPU_MILLI };
  if (percent <= 100) return { gpus: 1, gpuMilli: percent * 10 };
  const gpus = Math.ceil(percent / 100);
  if (gpus > MAX_GPUS_PER_NODE) throw row.error('num_gpu', `over ${MAX_GPUS_PER_NODE}`, row.text('num_gpu'));
  return { gpus, gpuMilli: GPU_MILLI };
}

/** Instances of a row: a whole number from 1 to MAX_REPLICAS, 1 when empty or absent. */
function instancesOf(row: CsvRow): number {
  if (!row.has('num_inst') || isMissingText(row.text('num_inst'))) return 1;
  const count = row.number('num_inst');
  if (!Number.isInteger(count) || count < 1) throw row.error('num_inst', 'not a positive whole number', row.text('num_inst'));
  if (count > MAX_REPLICAS) throw row.error('num_inst', `over ${MAX_REPLICAS}`, row.text('num_inst'));
  return count;
}

/** A required time cell in whole seconds; throws "empty", "not a number", `negative` or "over 100 years". */
function secondsCell(row: CsvRow, column: string, negative: string, round: (value: number) => number): number {
  if (isMissingText(row.text(column))) throw row.error(column, 'empty');
  const seconds = round(row.nonNegative(column, negative));
  if (seconds > MAX_TIME_S) throw row.error(column, 'over 100 years', row.text(column));
  return seconds;
}

/** gpuTypes of a gpu_type cell; throws "unknown GPU type". */
function gpuTypesOf(row: CsvRow): string[] {
  const text = row.optionalText('gpu_type');
  if (PAI_SIM_GPU_MODELS.has(text)) return [text];
  if (PAI_SIM_ANY_TYPES.has(text)) return [];
  throw row.error('gpu_type', 'unknown GPU type', text);
}

/** One row as a batch job; throws TraceError for a bad row. */
function paiSimJob(row: CsvRow, header: readonly string[]): JobSpec {
  checkRowComplete(row, header);
  const id = row.text('job_id');
  if (id === '') throw row.error('job_id', 'empty');
  const gpuTypes = gpuTypesOf(row);
  const replicas = instancesOf(row);
  const gpu = gpuDemandOf(row, percentCell(row, 'num_gpu'));
  const cpuMilli = percentCell(row, 'num_cpu') * 10;
  if (cpuMilli > MAX_CPU_CORES * 1000) throw row.error('num_cpu', `over ${MAX_CPU_CORES}`, row.text('num_cpu'));
  const submitS = secondsCell(row, 'submit_time', 'negative time', roundHalfEven);
  const durationS = positiveDurationS(secondsCell(row, 'duration', 'negative', Math.trunc));
  const demand: ReplicaDemand = { ...gpu, cpuMilli, memMiB: 0 };
  const job = traceBatchJob({ id, submitS, user: row.optionalText('user'), replicas, demand, durationS, source: `${row.file}:${row.line}` });
  return { ...job, gpuTypes };
}

/** Streams the jobs of the files in file order, at most `limit`. */
async function* readPaiSimJobs(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  if (options.limit <= 0) return;
  let count = 0;
  for await (const job of csvJobsOf(files, options, PAI_SIM_REQUIRED, paiSimJob)) {
    yield job;
    if (++count >= options.limit) return;
  }
}

/** num_gpu of a demand in devices: a share of one GPU as a fraction, else whole GPUs. */
function gpusInDevices(demand: ReplicaDemand): number {
  return demand.gpus === 1 && demand.gpuMilli < GPU_MILLI ? demand.gpuMilli / 1000 : demand.gpus;
}

/** gpu_type of a row: CPU without GPUs, MISC for any model, else the job's one PAI model; ConfigError otherwise. */
function gpuTypeCell(job: JobSpec, demand: ReplicaDemand): string {
  if (demand.gpus === 0) return 'CPU';
  if (job.gpuTypes.length === 0) return 'MISC';
  const model = job.gpuTypes[0]!;
  if (job.gpuTypes.length > 1 || !PAI_SIM_GPU_MODELS.has(model)) {
    throw new ConfigError(job.source, `the PAI simulator's gpu_type names one GPU model of ${[...PAI_SIM_GPU_MODELS].join(', ')}, not ${job.gpuTypes.join('|')}`);
  }
  return model;
}

/** Writes jobs as the simulator's job CSV (see the header comment); returns the file written. */
async function writePaiSimJobs(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const rows: (string | number)[][] = [[...PAI_SIM_COLUMNS]];
  for (const job of jobs) {
    if (job.speed.kind !== 'fixed') throw new ConfigError(job.source, `job ${job.id}: the PAI simulator's layout holds only fixed-duration jobs`);
    const submitS = Math.round(job.submitS);
    const durationS = Math.max(1, Math.round(job.totalSteps));
    for (const role of job.roles) {
      const id = job.roles.length === 1 ? job.id : `${job.id}-${role.role}`;
      const { demand } = role;
      rows.push([id, job.user, '', gpuTypeCell(job, demand), role.replicas, gpusInDevices(demand), demand.cpuMilli / 1000, submitS, durationS]);
    }
  }
  return [writeCsv(join(outDir, PAI_SIM_JOBS_FILE), rows)];
}

/** The Alibaba PAI simulator's job CSV; see the file header for the mapping. */
export const alibabaPaiSimFormat: TraceFormat = {
  id: 'alibaba-pai-sim',
  description: 'Alibaba PAI simulator job CSV (alibaba/clusterdata cluster-trace-gpu-v2020/simulator): GPUs and CPUs per instance, num_inst gangs',
  filesHelp: 'a job CSV with header job_id,user,group,gpu_type,num_inst,num_gpu,num_cpu,submit_time,duration [another …]',
  readJobs: readPaiSimJobs,
  writeJobs: writePaiSimJobs,
};
