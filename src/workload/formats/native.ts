import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { TraceError } from '../../errors.js';
import type { JobSpec, SpeedSpec } from '../../model/job-spec.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_MEM_GIB, MAX_REPLICAS, MAX_STEPS, MAX_TIME_S } from '../../model/limits.js';
import { fileError } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';

const nonNegative = z.number({ error: 'not a number' }).nonnegative({ error: 'negative' });
const positive = z.number({ error: 'not a number' }).positive({ error: 'not positive' });
/** A time or duration in seconds: at most 100 years (MAX_TIME_S). */
const timeS = (base: z.ZodNumber) => base.max(MAX_TIME_S, { error: 'over 100 years' });
/** A whole count from `min` to `max`. */
const count = (min: number, max: number) =>
  z
    .number({ error: 'not a number' })
    .int({ error: 'not a whole number' })
    .min(min, { error: min > 0 ? 'not positive' : 'negative' })
    .max(max, { error: `over ${max}` });

const roleSchema = z.strictObject({
  role: z.enum(['worker', 'ps', 'chief']),
  replicas: count(1, MAX_REPLICAS),
  gpus: count(0, MAX_GPUS_PER_NODE),
  gpuMilli: z.number().int().min(1).max(1000).default(1000),
  cpuMilli: nonNegative.max(MAX_CPU_CORES * 1000, { error: `over ${MAX_CPU_CORES * 1000}` }),
  memMiB: nonNegative.max(MAX_MEM_GIB * 1024, { error: `over ${MAX_MEM_GIB * 1024}` }),
});

const speedSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fixed') }),
  z.strictObject({ kind: z.literal('allreduce'), computeS: timeS(nonNegative), commS: timeS(nonNegative) }),
  z.strictObject({ kind: z.literal('ps-async'), t0: timeS(positive), t1: timeS(nonNegative), t2: timeS(nonNegative), t3: timeS(nonNegative) }),
]);

/** One line of a native trace (JSON Lines); see traces/README.md. */
const nativeJobSchema = z
  .strictObject({
    // A numeric id (as some exports write) is the same id as text.
    id: z.union([z.string().min(1), z.number().finite()], { error: 'expected a non-empty string' }).transform(String),
    submitS: timeS(nonNegative),
    kind: z.enum(['batch', 'allreduce', 'ps']).default('batch'),
    user: z.string().default(''),
    gpuTypes: z.array(z.string()).default([]),
    roles: z.array(roleSchema).min(1),
    durationS: timeS(positive).optional(),
    totalSteps: positive.max(MAX_STEPS, { error: `over ${MAX_STEPS}` }).optional(),
    speed: speedSchema.optional(),
    elastic: z
      .strictObject({ minReplicas: count(1, MAX_REPLICAS), maxReplicas: count(1, MAX_REPLICAS), unit: count(1, MAX_REPLICAS) })
      .nullable()
      .default(null),
    status: z.string().optional(),
    retries: z.number().int().nonnegative().optional(),
    source: z.string().optional(),
    loss: z.strictObject({ b0: positive, b1: nonNegative, b2: nonNegative, noise: nonNegative, targetLoss: positive }).optional(),
    priority: z.enum(['high', 'spot'], { error: 'expected high or spot' }).optional(),
  })
  .refine((job) => (job.durationS === undefined) !== (job.totalSteps === undefined), {
    message: 'give exactly one of durationS and totalSteps',
    path: ['durationS'],
  })
  .refine((job) => job.totalSteps === undefined || job.speed !== undefined, {
    message: 'totalSteps needs a speed model',
    path: ['speed'],
  })
  .refine((job) => job.roles.some((r) => r.role === 'worker'), { message: 'a job needs a worker role', path: ['roles'] })
  .refine((job) => new Set(job.roles.map((r) => r.role)).size === job.roles.length, {
    message: 'a role is given twice',
    path: ['roles'],
  });

/** A native trace line as written: a JobSpec with its demand flattened per role. */
type NativeJobRecord = z.input<typeof nativeJobSchema>;

/** The JSON Lines text of one job (no trailing newline). Fixed-speed jobs are written with `durationS`. */
export function nativeLine(job: JobSpec): string {
  return JSON.stringify(nativeRecord(job));
}

/**
 * What the native reader would reject in this job (the field and reason of its first problem), or
 * null when a native trace may hold it: importers check every job with it before writing.
 */
export function nativeIssue(job: JobSpec): { readonly field: string; readonly reason: string } | null {
  const parsed = nativeJobSchema.safeParse(nativeRecord(job));
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { field: issue.path.join('.') || 'record', reason: issue.message };
}

/** A job as the record of its native line. */
function nativeRecord(job: JobSpec): NativeJobRecord {
  return {
    id: job.id,
    submitS: job.submitS,
    kind: job.kind,
    user: job.user,
    gpuTypes: [...job.gpuTypes],
    roles: job.roles.map((r) => ({ role: r.role, replicas: r.replicas, ...r.demand })),
    ...(job.speed.kind === 'fixed' ? { durationS: job.totalSteps } : { totalSteps: job.totalSteps, speed: job.speed }),
    elastic: job.elastic,
    ...(job.traceStatus === undefined ? {} : { status: job.traceStatus }),
    ...(job.traceRetries === undefined ? {} : { retries: job.traceRetries }),
    source: job.source,
    ...(job.loss === undefined ? {} : { loss: { ...job.loss } }),
    ...(job.priority === undefined ? {} : { priority: job.priority }),
  };
}

/** The line each job of a native read came from ("file:line"), which its recorded `source` need not be. */
const readLocations = new WeakMap<JobSpec, string>();

/** Where a job was read: its "file:line" in a native file, else its source (importers record their row there). */
export function readLocation(job: JobSpec): string {
  return readLocations.get(job) ?? job.source;
}

/** Parses one native line into a JobSpec; throws TraceError naming the file, line and field. */
export function parseNativeLine(text: string, file: string, line: number): JobSpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TraceError(file, line, 'record', 'not valid JSON');
  }
  const parsed = nativeJobSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TraceError(file, line, issue.path.join('.') || 'record', issue.message);
  }
  const job = parsed.data;
  const speed: SpeedSpec = job.speed ?? { kind: 'fixed' };
  return {
    id: job.id,
    kind: job.kind,
    submitS: job.submitS,
    user: job.user,
    gpuTypes: job.gpuTypes,
    roles: job.roles.map((r) => ({
      role: r.role,
      replicas: r.replicas,
      demand: { gpus: r.gpus, gpuMilli: r.gpuMilli, cpuMilli: r.cpuMilli, memMiB: r.memMiB },
    })),
    elastic: job.elastic,
    totalSteps: job.totalSteps ?? job.durationS!,
    speed,
    source: job.source ?? `${file}:${line}`,
    ...(job.status === undefined ? {} : { traceStatus: job.status }),
    ...(job.retries === undefined ? {} : { traceRetries: job.retries }),
    ...(job.loss === undefined ? {} : { loss: job.loss }),
    ...(job.priority === undefined ? {} : { priority: job.priority }),
  };
}

/** Streams the jobs of native JSON Lines files (blank lines and lines starting with # are skipped). */
async function* readNativeJobs(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  let count = 0;
  for (const file of files) {
    if (count >= options.limit) return;
    let line = 0;
    try {
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      for await (const text of lines) {
        line++;
        const trimmed = text.trim();
        if (trimmed === '' || trimmed.startsWith('#')) continue;
        let job: JobSpec;
        try {
          job = parseNativeLine(trimmed, file, line);
        } catch (error) {
          if (!(error instanceof TraceError) || options.strict) throw error;
          options.onSkip(error);
          continue;
        }
        readLocations.set(job, `${file}:${line}`);
        yield job;
        if (++count >= options.limit) return;
      }
    } catch (error) {
      throw fileError(file, error);
    }
  }
}

/** dlsim's own trace format: JSON Lines, one job per line (what every importer writes). */
export const nativeFormat: TraceFormat = {
  id: 'native',
  description: "dlsim's own JSON Lines job format (what `dlsim trace import` writes)",
  filesHelp: 'jobs.jsonl [more.jsonl …]',
  readJobs: readNativeJobs,
};
