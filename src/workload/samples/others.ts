/**
 * The project's own small Philly, Helios and Acme sample traces (traces/samples/philly,
 * traces/samples/helios, traces/samples/acme), written by the formats' writers from one fixed job
 * table, so they are deterministic and carry no published data. Regenerate with
 * `npx tsc -p tsconfig.json && node -e "import('/work/main/dist/workload/samples/others.js').then(m => m.writeOtherSamples('traces/samples'))"`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobSpec, ReplicaDemand } from '../../model/job-spec.js';
import { acmeFormat } from '../formats/acme.js';
import { positiveDurationS, traceBatchJob } from '../trace-rows.js';
import { defaultMemMiB, DEFAULT_CPU_MILLI_PER_CPU_REPLICA } from '../formats/slurm-common.js';
import { heliosFormat } from '../formats/helios.js';
import { phillyDemand, phillyFormat, phillyWorkers } from '../formats/philly.js';

/** Folders of the samples under the samples root, by format id. */
export const OTHER_SAMPLE_DIRS = { philly: 'philly', helios: 'helios', acme: 'acme' } as const;

/** How a sample job ended; each format spells it its own way. */
type Outcome = 'done' | 'cancelled' | 'failed' | 'timeout' | 'node-fail';

/** One sample job: [submitS, durationS, GPUs, CPU cores (whole job), tenant index, outcome, retries]. */
type SampleRow = readonly [number, number, number, number, number, Outcome, number];

/**
 * The fixed jobs: not in submission order (the first row is not the earliest), whole seconds,
 * GPU counts that exercise the worker split (12 -> 2×6, 24 -> 3×8, 64 -> 8×8), CPU-only jobs
 * (GPUs 0, Helios and Acme only), zero-length runs and retries (Philly's log only).
 */
const SAMPLE_ROWS: readonly SampleRow[] = [
  [120, 3600, 1, 4, 0, 'done', 0],
  [0, 66, 1, 2, 1, 'done', 0],
  [45, 2951, 2, 8, 2, 'failed', 1],
  [300, 860_662, 8, 32, 3, 'done', 0],
  [610, 1, 1, 4, 0, 'cancelled', 0],
  [900, 7200, 4, 16, 1, 'done', 2],
  [1500, 0, 1, 4, 2, 'failed', 0],
  [2100, 43_200, 16, 64, 3, 'done', 0],
  [2400, 600, 0, 8, 4, 'done', 0],
  [3000, 1800, 12, 48, 0, 'timeout', 1],
  [3600, 259_200, 32, 128, 1, 'done', 0],
  [4200, 95, 1, 1, 2, 'cancelled', 0],
  [4800, 12_345, 24, 96, 3, 'node-fail', 3],
  [5400, 5400, 2, 8, 4, 'done', 0],
  [6000, 30, 0, 2, 0, 'failed', 0],
  [6600, 86_400, 8, 64, 1, 'done', 1],
  [7200, 420, 1, 6, 2, 'done', 0],
  [7800, 9000, 64, 256, 3, 'cancelled', 0],
  [8400, 3600, 4, 12, 4, 'done', 0],
  [9000, 150, 1, 4, 0, 'failed', 2],
  [9600, 21_600, 2, 4, 1, 'done', 0],
  [10_200, 2, 1, 4, 2, 'done', 0],
  [10_800, 14_400, 8, 32, 3, 'timeout', 0],
  [11_400, 900, 0, 16, 4, 'done', 0],
  [12_000, 72_000, 16, 128, 0, 'done', 1],
  [12_600, 60, 1, 2, 1, 'cancelled', 0],
  [13_200, 3000, 4, 16, 2, 'failed', 0],
  [13_800, 600_000, 8, 48, 3, 'done', 0],
  [14_400, 1200, 1, 4, 4, 'done', 0],
  [15_000, 36_000, 12, 24, 0, 'done', 0],
  [15_600, 10, 2, 8, 1, 'failed', 4],
  [16_200, 18_000, 1, 8, 2, 'done', 0],
  [16_800, 120_000, 32, 256, 3, 'node-fail', 0],
  [17_400, 240, 0, 1, 4, 'cancelled', 0],
  [18_000, 8100, 4, 32, 0, 'done', 0],
  [18_600, 500, 1, 4, 1, 'done', 1],
  [19_200, 2700, 8, 64, 2, 'cancelled', 0],
  [19_800, 33_333, 2, 16, 3, 'done', 0],
  [20_400, 77, 1, 4, 4, 'failed', 0],
  [21_000, 4000, 16, 64, 0, 'done', 0],
];

/** Philly virtual clusters (the CSV's `cluster`), by tenant index. */
const PHILLY_VCS = ['6214e9', '11cb48', '6c71a0', 'b436b2', '103959'] as const;
/** Helios users (the public release prefixes them with "u"), by tenant index. */
const HELIOS_USERS = ['uXBbc', 'uVMrF', 'uzqls', 'uKp2d', 'uT7wa'] as const;
/** Acme users, by tenant index. */
const ACME_USERS = ['u5907', 'uf794', 'u1a2b', 'u77c0', 'u03de'] as const;

const PHILLY_STATUS: Readonly<Record<Outcome, string>> = {
  done: 'Pass',
  cancelled: 'Killed',
  failed: 'Failed',
  timeout: 'Failed',
  'node-fail': 'Failed',
};
const SLURM_STATE: Readonly<Record<Outcome, string>> = {
  done: 'COMPLETED',
  cancelled: 'CANCELLED',
  failed: 'FAILED',
  timeout: 'TIMEOUT',
  'node-fail': 'NODE_FAIL',
};

/** The Philly sample jobs (GPU rows only), as the raw log reads back: ids, users, status and retries. */
export function phillySampleJobs(): JobSpec[] {
  return SAMPLE_ROWS.filter((row) => row[2] > 0).map(([submitS, durationS, gpus, , tenant, outcome, retries], k) => {
    const { replicas, gpusPerReplica } = phillyWorkers(gpus);
    return traceBatchJob({
      id: `application_1506638472019_${10_000 + k}`,
      submitS,
      user: `vc:${PHILLY_VCS[tenant]!}`,
      replicas,
      demand: phillyDemand(gpusPerReplica),
      durationS: positiveDurationS(durationS),
      source: `samples:philly:${k}`,
      traceStatus: PHILLY_STATUS[outcome],
      traceRetries: retries,
    });
  });
}

/** Workers of a Slurm-style sample job: ≤ 8 GPUs per node as in Philly, CPU-only jobs on one node. */
function slurmSampleWorkers(gpus: number, cpus: number): { replicas: number; demand: ReplicaDemand } {
  const { replicas, gpusPerReplica } = gpus > 0 ? phillyWorkers(gpus) : { replicas: 1, gpusPerReplica: 0 };
  const cpuMilli = cpus > 0 ? (cpus * 1000) / replicas : DEFAULT_CPU_MILLI_PER_CPU_REPLICA;
  return { replicas, demand: { gpus: gpusPerReplica, gpuMilli: 1000, cpuMilli, memMiB: defaultMemMiB(gpusPerReplica) } };
}

/** Slurm-style sample jobs (Helios, Acme): every row, ids from `firstId` up, no retries recorded. */
function slurmSampleJobs(format: string, firstId: number, users: readonly string[]): JobSpec[] {
  return SAMPLE_ROWS.map(([submitS, durationS, gpus, cpus, tenant, outcome], k) =>
    traceBatchJob({
      id: String(firstId + k),
      submitS,
      user: users[tenant]!,
      ...slurmSampleWorkers(gpus, cpus),
      durationS: positiveDurationS(durationS),
      source: `samples:${format}:${k}`,
      traceStatus: SLURM_STATE[outcome],
    }),
  );
}

/** The Helios sample jobs, as cluster_log.csv reads back. */
export function heliosSampleJobs(): JobSpec[] {
  return slurmSampleJobs('helios', 1_425_511, HELIOS_USERS);
}

/** The Acme sample jobs, as trace_seren.csv and trace_kalos.csv read back. */
export function acmeSampleJobs(): JobSpec[] {
  return slurmSampleJobs('acme', 5_778_432, ACME_USERS);
}

/** Writes the Philly, Helios and Acme samples under `dir` (one folder each); returns the files written. */
export async function writeOtherSamples(dir: string): Promise<string[]> {
  const written: string[] = [];
  const samples = [
    [phillyFormat, OTHER_SAMPLE_DIRS.philly, phillySampleJobs()],
    [heliosFormat, OTHER_SAMPLE_DIRS.helios, heliosSampleJobs()],
    [acmeFormat, OTHER_SAMPLE_DIRS.acme, acmeSampleJobs()],
  ] as const;
  for (const [format, folder, jobs] of samples) {
    const outDir = join(dir, folder);
    await mkdir(outDir, { recursive: true });
    written.push(...(await format.writeJobs!(jobs, outDir)));
  }
  return written;
}
