/**
 * Helios (SenseTime, SC'21 "Characterization and Prediction of Deep Learning Workloads in
 * Large-Scale GPU Datacenters"), github.com/S-Lab-System-Group/HeliosData: one `cluster_log.csv`
 * per cluster, columns `job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,
 * end_time,duration,queue` (Slurm jobs; `duration` = end - start and `queue` = start - submit, in
 * seconds). Columns are mapped by name; extra columns (some releases add `jobname`) are ignored.
 *
 * Mapping, one `batch` job per row:
 * - id = job_id (Slurm's id, unique within a cluster); user = user. The virtual cluster `vc` is
 *   not kept: JobSpec has one tenant field and fairness policies want the user; Helios quotas are
 *   per VC, which dlsim does not model yet.
 * - submitS = submit_time - the earliest submit_time of all files read (a first streaming pass
 *   finds it, over the rows that convert). Times are "YYYY-MM-DD HH:MM:SS" (no zone in the public
 *   release: read as UTC, only differences matter), an ISO offset when present, or epoch seconds.
 * - durationS = duration; when empty, end_time - start_time. 0 s becomes 1 s (see MIN_DURATION_S);
 *   a row with duration 0 and no start_time, or with neither duration nor start_time, is
 *   "never ran" (cancelled while queued); no duration nor end_time is "never ended".
 * - node_num workers (1 when the column is absent or empty), each with gpu_num/node_num GPUs
 *   (not whole: "uneven across nodes") and cpu_num/node_num cores (rounded up to a thousandth).
 *   Memory is not recorded: 32 GiB per GPU, or 8 GiB per CPU-only worker (DEFAULT_*).
 * - traceStatus = state (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, …), omitted when empty.
 */
import { join } from 'node:path';
import type { JobSpec } from '../../model/job-spec.js';
import type { CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { csvJobsOf, formatTimestamp, shiftedToEarliest, soleWorker, writeCsv } from '../trace-rows.js';
import { slurmDurationS, slurmRowJob } from './slurm-common.js';

/** Columns a Helios cluster_log.csv must have. */
const HELIOS_REQUIRED = ['job_id', 'gpu_num', 'submit_time'] as const;
/** Columns writeJobs writes, in the published order. */
const HELIOS_COLUMNS = [
  'job_id', 'user', 'vc', 'gpu_num', 'cpu_num', 'node_num', 'state',
  'submit_time', 'start_time', 'end_time', 'duration', 'queue',
] as const;
/** Epoch the Helios writer counts submitS from: 2020-04-01 00:00:00 UTC (the traces start in April 2020). */
export const HELIOS_WRITE_EPOCH_S = Date.UTC(2020, 3, 1) / 1000;

/** One Helios row as a batch job with submitS in epoch seconds. */
function heliosJob(row: CsvRow, header: readonly string[]): JobSpec {
  return slurmRowJob(row, header, { durationS: slurmDurationS, memMiBPerReplica: () => null, statusWithoutState: () => undefined });
}

/** Streams Helios jobs of all files with epoch-second submit times. */
function readHeliosEpoch(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  return csvJobsOf(files, options, HELIOS_REQUIRED, heliosJob);
}

/** Writes jobs as a Helios cluster_log.csv (queue 0: start = submit); returns the file written. */
async function writeHeliosJobs(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const rows: (string | number)[][] = [[...HELIOS_COLUMNS]];
  for (const job of jobs) {
    const { replicas, demand } = soleWorker(job, 'Helios');
    const submitS = HELIOS_WRITE_EPOCH_S + job.submitS;
    rows.push([
      job.id,
      job.user,
      '',
      replicas * demand.gpus,
      (replicas * demand.cpuMilli) / 1000,
      replicas,
      job.traceStatus ?? '',
      formatTimestamp(submitS),
      formatTimestamp(submitS),
      formatTimestamp(submitS + job.totalSteps),
      job.totalSteps,
      0,
    ]);
  }
  return [writeCsv(join(outDir, 'cluster_log.csv'), rows)];
}

/** Helios (SenseTime, SC'21) Slurm job logs, cluster_log.csv; see the file header for the mapping. */
export const heliosFormat: TraceFormat = {
  id: 'helios',
  description: "Helios GPU datacenter job log (SenseTime, SC'21; github.com/S-Lab-System-Group/HeliosData)",
  filesHelp: 'cluster_log.csv [another cluster_log.csv …]',
  readJobs: (files, options) => shiftedToEarliest((pass) => readHeliosEpoch(files, pass), options),
  writeJobs: writeHeliosJobs,
};
