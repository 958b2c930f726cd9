import { quantileSorted } from 'd3-array';
import { requestedGpus, type JobKind, type JobSpec } from '../model/job-spec.js';
import { nominalStepsPerS } from '../model/speed.js';

/** Quantiles and mean of a set of durations, in seconds (all 0 when there are none). */
export interface DurationSummaryS {
  readonly p10: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
}

/** One bucket of the GPU-demand histogram: "0", "<1" (a share of one GPU), "1", "2", "3-4", "5-8", … */
export interface GpuDemandBucket {
  readonly bucket: string;
  readonly jobs: number;
  /** jobs / all jobs, in [0, 1]. */
  readonly share: number;
}

/** What `dlsim trace inspect` reports about a workload. Times in seconds, shares in [0, 1]. */
export interface TraceStats {
  readonly jobs: number;
  /** Earliest and latest submission and their distance (0 when there are no jobs). */
  readonly span: { readonly firstSubmitS: number; readonly lastSubmitS: number; readonly spanS: number };
  readonly arrivals: {
    /** Jobs submitted in each hour of the day, from submitS mod 86400 (24 counts, hour 0 first). */
    readonly byHourOfDay: readonly number[];
    /** jobs / span in hours (0 when the span is 0). */
    readonly meanPerHour: number;
  };
  /** Jobs by total requested GPUs (shared GPUs counted as fractions), non-empty buckets in ascending order. */
  readonly gpuDemand: readonly GpuDemandBucket[];
  /** Share of jobs asking for more than one GPU in total. */
  readonly multiGpuShare: number;
  /** Durations at the requested shape: totalSteps / nominal steps per second. */
  readonly durationS: DurationSummaryS;
  /** Jobs whose speed model gives no positive nominal speed (left out of durationS). */
  readonly durationUnknown: number;
  /** Jobs by trace status ("unknown" when the trace gave none). */
  readonly status: Readonly<Record<string, number>>;
  /** Jobs by kind (every kind listed, 0 when absent). */
  readonly kinds: Readonly<Record<JobKind, number>>;
  /** Distinct non-empty users. */
  readonly users: number;
}

const SECONDS_PER_DAY = 86400;

/** The histogram bucket of a job asking for `gpus` GPUs in total: "0", "<1", "1", "2", "3-4", "5-8", "9-16", … */
export function gpuDemandBucket(gpus: number): string {
  if (gpus <= 0) return '0';
  if (gpus < 1) return '<1';
  if (gpus <= 1) return '1';
  if (gpus <= 2) return '2';
  const upper = 2 ** Math.ceil(Math.log2(gpus));
  return `${upper / 2 + 1}-${upper}`;
}

/** Sort key of a bucket label, so buckets list in ascending GPU order. */
function bucketOrder(bucket: string): number {
  if (bucket === '0') return -1;
  if (bucket === '<1') return 0;
  return Number(bucket.split('-').pop());
}

/** Quantiles and mean of durations (sorted in place). */
function summarize(durationsS: number[]): DurationSummaryS {
  if (durationsS.length === 0) return { p10: 0, p50: 0, p90: 0, p99: 0, mean: 0 };
  durationsS.sort((a, b) => a - b);
  let total = 0;
  for (const d of durationsS) total += d;
  return {
    p10: quantileSorted(durationsS, 0.1)!,
    p50: quantileSorted(durationsS, 0.5)!,
    p90: quantileSorted(durationsS, 0.9)!,
    p99: quantileSorted(durationsS, 0.99)!,
    mean: total / durationsS.length,
  };
}

/**
 * Statistics of a workload, read once in a stream: only counters, the set of users and one
 * duration per job are kept, so a trace of millions of jobs fits in memory.
 */
export async function inspectJobs(jobs: AsyncIterable<JobSpec> | Iterable<JobSpec>): Promise<TraceStats> {
  let count = 0;
  let firstSubmitS = Infinity;
  let lastSubmitS = -Infinity;
  let multiGpu = 0;
  let durationUnknown = 0;
  const byHourOfDay = new Array<number>(24).fill(0);
  const buckets = new Map<string, number>();
  const status = new Map<string, number>();
  const kinds: Record<JobKind, number> = { batch: 0, allreduce: 0, ps: 0 };
  const users = new Set<string>();
  const durationsS: number[] = [];

  for await (const job of jobs) {
    count++;
    firstSubmitS = Math.min(firstSubmitS, job.submitS);
    lastSubmitS = Math.max(lastSubmitS, job.submitS);
    const secondOfDay = ((job.submitS % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
    byHourOfDay[Math.floor(secondOfDay / 3600)]!++;
    const gpus = requestedGpus(job);
    if (gpus > 1) multiGpu++;
    const bucket = gpuDemandBucket(gpus);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    const jobStatus = job.traceStatus ?? 'unknown';
    status.set(jobStatus, (status.get(jobStatus) ?? 0) + 1);
    kinds[job.kind]++;
    if (job.user !== '') users.add(job.user);
    const stepsPerS = nominalStepsPerS(job);
    if (stepsPerS > 0 && Number.isFinite(job.totalSteps / stepsPerS)) durationsS.push(job.totalSteps / stepsPerS);
    else durationUnknown++;
  }

  const spanS = count > 0 ? lastSubmitS - firstSubmitS : 0;
  return {
    jobs: count,
    span: { firstSubmitS: count > 0 ? firstSubmitS : 0, lastSubmitS: count > 0 ? lastSubmitS : 0, spanS },
    arrivals: { byHourOfDay, meanPerHour: spanS > 0 ? count / (spanS / 3600) : 0 },
    gpuDemand: [...buckets.entries()]
      .sort((a, b) => bucketOrder(a[0]) - bucketOrder(b[0]))
      .map(([bucket, jobs]) => ({ bucket, jobs, share: jobs / count })),
    multiGpuShare: count > 0 ? multiGpu / count : 0,
    durationS: summarize(durationsS),
    durationUnknown,
    status: Object.fromEntries([...status.entries()].sort((a, b) => b[1] - a[1])),
    kinds,
    users: users.size,
  };
}
