/** Helpers of the Slurm-style job logs (Helios, Acme): default resources, workers per node, runtime. */
import type { JobSpec, ReplicaDemand } from '../../model/job-spec.js';
import type { CsvRow } from '../csv-rows.js';
import { checkRowComplete, isMissingText, optionalTimeCellS, positiveDurationS, timeCellS, traceBatchJob, wholeCell } from '../trace-rows.js';


/** Memory per GPU in MiB when a trace does not record memory (a typical 8-GPU node has 256+ GiB). */
export const DEFAULT_MEM_MIB_PER_GPU = 32_768;
/** Memory of a CPU-only replica in MiB when a trace does not record memory. */
export const DEFAULT_MEM_MIB_PER_CPU_REPLICA = 8192;
/** CPU per GPU in thousandths of a core when a trace does not record CPUs. */
export const DEFAULT_CPU_MILLI_PER_GPU = 4000;
/** CPU of a CPU-only replica in thousandths of a core when a trace does not record CPUs. */
export const DEFAULT_CPU_MILLI_PER_CPU_REPLICA = 1000;

/** Default memory of a replica with `gpus` GPUs, in MiB. */
export function defaultMemMiB(gpus: number): number {
  return gpus > 0 ? gpus * DEFAULT_MEM_MIB_PER_GPU : DEFAULT_MEM_MIB_PER_CPU_REPLICA;
}

/**
 * The workers of a Slurm-style row: node_num replicas (1 when absent or empty), gpu_num/node_num
 * GPUs and cpu_num/node_num cores each; memory per replica from `memMiBPerReplica` or the default.
 */
export function slurmWorkers(row: CsvRow, memMiBPerReplica: number | null): { replicas: number; demand: ReplicaDemand } {
  const replicas = row.has('node_num') ? wholeCell(row, 'node_num') : 1;
  if (replicas === 0) throw row.error('node_num', 'zero nodes', row.text('node_num'));
  const totalGpus = wholeCell(row, 'gpu_num');
  if (totalGpus % replicas !== 0) throw row.error('gpu_num', 'uneven across nodes', `${totalGpus}/${replicas}`);
  const gpus = totalGpus / replicas;
  // Rounded up to a thousandth of a core; the epsilon absorbs float error of cores written as decimals.
  const cpuMilli = row.has('cpu_num')
    ? Math.ceil((row.nonNegative('cpu_num') * 1000) / replicas - 1e-6)
    : gpus > 0
      ? gpus * DEFAULT_CPU_MILLI_PER_GPU
      : DEFAULT_CPU_MILLI_PER_CPU_REPLICA;
  return { replicas, demand: { gpus, gpuMilli: 1000, cpuMilli, memMiB: memMiBPerReplica ?? defaultMemMiB(gpus) } };
}

/**
 * Runtime in seconds from a `duration` cell, or end_time - start_time when it is empty.
 * Throws "end before start", "never ran" (no start, or duration 0 without a start) or "never ended".
 */
export function slurmDurationS(row: CsvRow): number {
  const startS = optionalTimeCellS(row, 'start_time');
  const endS = optionalTimeCellS(row, 'end_time');
  if (startS !== null && endS !== null && endS < startS) throw row.error('end_time', 'end before start', row.text('end_time'));
  if (row.has('duration') && !isMissingText(row.text('duration'))) {
    const durationS = row.nonNegative('duration');
    if (durationS === 0 && startS === null) throw row.error('start_time', 'never ran');
    return positiveDurationS(durationS);
  }
  if (startS === null) throw row.error('start_time', 'never ran');
  if (endS === null) throw row.error('end_time', 'never ended');
  return positiveDurationS(endS - startS);
}


/** How one Slurm-style format reads what the others read differently. */
export interface SlurmRowRules {
  /** The job's runtime in seconds. */
  readonly durationS: (row: CsvRow) => number;
  /** Memory per replica in MiB, or null for the defaults. */
  readonly memMiBPerReplica: (row: CsvRow) => number | null;
  /** The status to record when `state` is empty (undefined: none). */
  readonly statusWithoutState: (row: CsvRow) => string | undefined;
}

/** One Slurm-style row (job_id, user, state, submit_time, node_num, gpu_num, cpu_num) as a batch job with submitS in epoch seconds. */
export function slurmRowJob(row: CsvRow, header: readonly string[], rules: SlurmRowRules): JobSpec {
  checkRowComplete(row, header);
  const id = row.text('job_id');
  if (id === '') throw row.error('job_id', 'empty');
  const submitS = timeCellS(row, 'submit_time');
  const durationS = rules.durationS(row);
  const workers = slurmWorkers(row, rules.memMiBPerReplica(row));
  const state = row.optionalText('state');
  return traceBatchJob({
    id,
    submitS,
    user: row.optionalText('user'),
    ...workers,
    durationS,
    source: `${row.file}:${row.line}`,
    traceStatus: state !== '' ? state : rules.statusWithoutState(row),
  });
}
