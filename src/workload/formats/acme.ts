/**
 * Acme (Shanghai AI Lab, NSDI'24 "Characterization of Large Language Model Development in the
 * Datacenter"), github.com/InternLM/AcmeTrace `data/job_trace/`: `trace_seren.csv` has
 * `job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,
 * gpu_time`; `trace_kalos.csv` adds `mem_per_pod_GB,shared_mem_per_pod,fail_time,stop_time`. This
 * column list is taken from the repository's README; columns are mapped by NAME, only job_id,
 * gpu_num and submit_time are required and any other may be missing (extra ones are ignored).
 *
 * Mapping, one `batch` job per row (shares the Helios rules where the layouts agree):
 * - id = job_id; user = user. `type` (Pretrain, SFT, Eval, Debug, Other, …) is recorded nowhere:
 *   JobSpec has no field for it and a replay does not need it.
 * - submitS = submit_time - the earliest submit_time (two streaming passes). Times are
 *   "YYYY-MM-DD HH:MM:SS" with an optional offset ("+08:00" in Seren, "+00:00" in Kalos; honoured)
 *   or epoch seconds.
 * - durationS: fail_time present -> fail_time - start_time (the job failed then); else end_time -
 *   start_time when both are present; else the `duration` column (as Helios). Timestamps come
 *   before `duration` because in the Kalos README's rows `duration` = end - submit (it includes
 *   the queueing time), while in Seren it is end - start. 0 s -> MIN_DURATION_S; "never ran",
 *   "never ended" and "end before start" as in Helios.
 * - workers: node_num replicas (1 when absent), gpu_num/node_num GPUs and cpu_num/node_num cores
 *   each (gpu_num and cpu_num are per job: Kalos's example has 8 nodes, 64 GPUs, 960 CPUs);
 *   memory = mem_per_pod_GB × 1024 MiB when present (shared_mem_per_pod, the pod's /dev/shm, is
 *   part of that budget and ignored), else the Helios defaults (32 GiB per GPU, 8 GiB per CPU-only
 *   replica; 4 cores per GPU or 1 core per CPU-only replica when cpu_num is missing).
 * - traceStatus = state; when state is empty and fail_time is present, "FAILED".
 */
import { join } from 'node:path';
import type { JobSpec } from '../../model/job-spec.js';
import type { CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { csvJobsOf, formatTimestamp, optionalTimeCellS, positiveDurationS, shiftedToEarliest, soleWorker, writeCsv } from '../trace-rows.js';
import { slurmDurationS, slurmRowJob, type SlurmRowRules } from './slurm-common.js';

/** Columns an Acme job trace must have. */
const ACME_REQUIRED = ['job_id', 'gpu_num', 'submit_time'] as const;
/** Columns of trace_seren.csv, in the published order. */
const SEREN_COLUMNS = [
  'job_id', 'user', 'node_num', 'gpu_num', 'cpu_num', 'type', 'state',
  'submit_time', 'start_time', 'end_time', 'duration', 'queue', 'gpu_time',
] as const;
/** Columns of trace_kalos.csv, in the published order. */
const KALOS_COLUMNS = [
  'job_id', 'user', 'node_num', 'gpu_num', 'cpu_num', 'mem_per_pod_GB', 'shared_mem_per_pod', 'type', 'state',
  'submit_time', 'start_time', 'end_time', 'fail_time', 'stop_time', 'duration', 'queue', 'gpu_time',
] as const;
/** Epoch writeJobs counts submitS from: 2023-03-01 00:00:00+08:00 (the traces start in March 2023). */
export const ACME_WRITE_EPOCH_S = Date.UTC(2023, 2, 1) / 1000 - 8 * 3600;
/** States whose jobs the writer gives a fail_time (Kalos layout). */
const FAILED_STATES = new Set(['FAILED', 'NODE_FAIL']);

/** Runtime in seconds: fail - start, end - start, or the duration column (see the file header). */
function acmeDurationS(row: CsvRow): number {
  const startS = optionalTimeCellS(row, 'start_time');
  const failS = optionalTimeCellS(row, 'fail_time');
  if (failS !== null) {
    if (startS === null) throw row.error('start_time', 'never ran');
    if (failS < startS) throw row.error('fail_time', 'end before start', row.text('fail_time'));
    return positiveDurationS(failS - startS);
  }
  const endS = optionalTimeCellS(row, 'end_time');
  if (startS !== null && endS !== null) {
    if (endS < startS) throw row.error('end_time', 'end before start', row.text('end_time'));
    return positiveDurationS(endS - startS);
  }
  return slurmDurationS(row);
}

/** How Acme rows differ from Helios ones: timestamps before `duration`, memory per pod, FAILED from fail_time. */
const ACME_RULES: SlurmRowRules = {
  durationS: acmeDurationS,
  memMiBPerReplica: (row) => (row.has('mem_per_pod_GB') ? Math.ceil(row.nonNegative('mem_per_pod_GB') * 1024 - 1e-6) : null),
  statusWithoutState: (row) => (optionalTimeCellS(row, 'fail_time') !== null ? 'FAILED' : undefined),
};

/** One Acme row as a batch job with submitS in epoch seconds. */
function acmeJob(row: CsvRow, header: readonly string[]): JobSpec {
  return slurmRowJob(row, header, ACME_RULES);
}

/** Streams Acme jobs of all files with epoch-second submit times. */
function readAcmeEpoch(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  return csvJobsOf(files, options, ACME_REQUIRED, acmeJob);
}

/**
 * Writes jobs in both published layouts: trace_seren.csv (times "+08:00", no memory) and
 * trace_kalos.csv (times "+00:00", mem_per_pod_GB, fail_time for FAILED/NODE_FAIL, stop_time
 * otherwise). They hold the same jobs: read one of them. Queue 0 (start = submit), whole seconds,
 * type "Other".
 */
async function writeAcmeJobs(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const seren: (string | number)[][] = [[...SEREN_COLUMNS]];
  const kalos: (string | number)[][] = [[...KALOS_COLUMNS]];
  for (const job of jobs) {
    const { replicas, demand } = soleWorker(job, 'Acme');
    const submitS = ACME_WRITE_EPOCH_S + job.submitS;
    const endS = submitS + job.totalSteps;
    const gpus = replicas * demand.gpus;
    const cpus = (replicas * demand.cpuMilli) / 1000;
    const state = job.traceStatus ?? '';
    const failed = FAILED_STATES.has(state);
    const gpuTime = job.totalSteps * gpus;
    const local = (epochS: number) => formatTimestamp(epochS, 8 * 60);
    const utc = (epochS: number) => formatTimestamp(epochS, 0);
    seren.push([job.id, job.user, replicas, gpus, cpus, 'Other', state, local(submitS), local(submitS), local(endS), job.totalSteps, 0, gpuTime]);
    kalos.push([
      job.id, job.user, replicas, gpus, cpus, demand.memMiB / 1024, '', 'Other', state,
      utc(submitS), utc(submitS), utc(endS), failed ? utc(endS) : '', failed ? '' : utc(endS), job.totalSteps, 0, gpuTime,
    ]);
  }
  return [writeCsv(join(outDir, 'trace_seren.csv'), seren), writeCsv(join(outDir, 'trace_kalos.csv'), kalos)];
}

/** Acme (Shanghai AI Lab, NSDI'24) Seren/Kalos LLM job traces; see the file header for the mapping. */
export const acmeFormat: TraceFormat = {
  id: 'acme',
  description: "Acme LLM-development job traces (Shanghai AI Lab, NSDI'24; github.com/InternLM/AcmeTrace)",
  filesHelp: 'trace_seren.csv | trace_kalos.csv',
  readJobs: (files, options) => shiftedToEarliest((pass) => readAcmeEpoch(files, pass), options),
  writeJobs: writeAcmeJobs,
};
