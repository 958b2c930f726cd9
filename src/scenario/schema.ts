import { z } from 'zod';
import { PREPROCESSING_FAMILIES } from '../model/preprocessing.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_MEM_GIB, MAX_NODES, MAX_REPLICAS, MAX_STEPS, MAX_TIME_S, MAX_JOBS } from '../model/limits.js';
import { convergenceStep } from '../model/observations.js';
import { formatDurationS, parseDurationS } from '../io/duration.js';
import { type YamlIssue, type YamlPath, firstIssue, says, yamlErrorMap } from '../io/yaml-errors.js';
import { DEFAULT_MINIBATCHES_PER_SHARD, type ElasticJobManifest, validateElasticJob } from '../workload/formats/elastic-job.js';

/** How a duration may be written, for error messages. */
export const DURATION_HINT = 'like 90s, 15m, 2h or 1d';
/** How MAX_TIME_S reads in messages. */
const TIME_LIMIT_TEXT = 'up to 100 years';

const positiveInt = z.int(says('expected a positive integer')).min(1, says('expected a positive integer'));
/** A positive integer up to `max` (a count with a bound from model/limits). */
function countUpTo(max: number) {
  const text = `expected a positive integer up to ${max}`;
  return z.int(says(text)).min(1, says(text)).max(max, says(text));
}
/** A non-negative integer up to `max`. */
function wholeUpTo(max: number) {
  const text = `expected a non-negative integer up to ${max}`;
  return z.int(says(text)).min(0, says(text)).max(max, says(text));
}
/** A positive number up to `max`. */
function positiveUpTo(max: number) {
  const text = `expected a positive number up to ${max}`;
  return z.number(says(text)).positive(says(text)).max(max, says(text));
}
const replicasSchema = countUpTo(MAX_REPLICAS);
const gpusSchema = wholeUpTo(MAX_GPUS_PER_NODE);
const cpuCoresSchema = positiveUpTo(MAX_CPU_CORES);
const memGiBSchema = positiveUpTo(MAX_MEM_GIB);
const nonNegativeInt = z
  .int(says('expected a non-negative integer'))
  .min(0, says('expected a non-negative integer'));
const positiveNumber = z.number(says('expected a positive number')).positive(says('expected a positive number'));
const nonNegativeNumber = z
  .number(says('expected a non-negative number'))
  .min(0, says('expected a non-negative number'));
const gpuMilliSchema = z
  .int(says('expected an integer from 1 to 1000'))
  .min(1, says('expected an integer from 1 to 1000'))
  .max(1000, says('expected an integer from 1 to 1000'));
const nameSchema = z.string(says('expected a non-empty string')).min(1, says('expected a non-empty string'));
const gpuTypesSchema = z.array(nameSchema, says('expected a list of GPU type names, e.g. [A100]'));

/** A duration in seconds: a number of seconds or a string with a unit; `positive` rejects 0. */
function duration(positive: boolean) {
  const expected = `expected a ${positive ? 'positive ' : ''}duration ${DURATION_HINT}, ${TIME_LIMIT_TEXT}`;
  return z
    .custom<number | string>((value) => typeof value === 'number' || typeof value === 'string', says(expected))
    .transform((value, ctx) => {
      const durationS = parseDurationS(value);
      if (durationS === null || (positive && durationS === 0) || durationS > MAX_TIME_S) {
        ctx.addIssue({ code: 'custom', message: expected, input: value });
        return z.NEVER;
      }
      return durationS;
    });
}
const durationS = duration(false);
const positiveDurationS = duration(true);

/** Whole-GPU count and GPU share must agree: a share below 1000 is only for single-GPU replicas. */
function checkGpuShare(demand: { gpus: number; gpuMilli: number }, ctx: z.RefinementCtx): void {
  if (demand.gpuMilli < 1000 && demand.gpus !== 1) {
    ctx.addIssue({ code: 'custom', path: ['gpuMilli'], message: 'gpuMilli below 1000 needs gpus: 1 (a share of one GPU)' });
  }
}

/** A job's loss curve ends it on convergence: it must reach its target after step 0, and it replaces steps/duration. */
function checkLossCurve(loss: { b0: number; b1: number; b2: number; target: number }, hasWork: boolean, ctx: z.RefinementCtx): void {
  if (hasWork) {
    ctx.addIssue({ code: 'custom', path: ['loss'], message: 'a job with a loss curve ends when it converges: give loss or steps/duration, not both' });
    return;
  }
  const step = convergenceStep({ ...loss, noise: 0, targetLoss: loss.target });
  if (!Number.isFinite(step)) {
    ctx.addIssue({ code: 'custom', path: ['loss', 'target'], message: `target ${loss.target} is never reached: the loss levels off at b2 = ${loss.b2}` });
  } else if (!(step > 0)) {
    ctx.addIssue({ code: 'custom', path: ['loss', 'target'], message: `target ${loss.target} is reached at step 0 (the initial loss is ${1 / loss.b1 + loss.b2})` });
  }
}

/** Optimus's asynchronous PS speed model (steps/s = w / (t0 + t1·w/p + t2·w + t3·p)), with dlsim's defaults. */
const psSpeedSchema = z.strictObject(
  {
    t0: positiveNumber.default(0.1),
    t1: nonNegativeNumber.default(0.02),
    t2: nonNegativeNumber.default(0.002),
    t3: nonNegativeNumber.default(0.005),
  },
  says('expected a mapping {t0, t1, t2, t3}'),
);

/** A share strictly below 1 (an allreduce step's communication share). */
const commFractionSchema = z
  .number(says('expected a number in [0, 1)'))
  .min(0, says('expected a number in [0, 1)'))
  .lt(1, says('expected a number in [0, 1)'));

const roleSchema = z
  .strictObject({
    replicas: replicasSchema.default(1),
    gpus: gpusSchema.default(0),
    gpuMilli: gpuMilliSchema.default(1000),
    cpuCores: cpuCoresSchema.default(1),
    memGiB: memGiBSchema.default(4),
    memUseGiB: memGiBSchema.optional(),
  })
  .superRefine(checkGpuShare);

const nodeGroupSchema = z
  .strictObject({
    group: nameSchema.optional(),
    count: countUpTo(MAX_NODES).default(1),
    gpus: gpusSchema.default(0),
    gpuType: nameSchema.nullable().optional(),
    cpuCores: cpuCoresSchema,
    memGiB: memGiBSchema,
    nodesPerRack: countUpTo(MAX_NODES).default(32),
  })
  .superRefine((group, ctx) => {
    const hasGpuType = group.gpuType !== undefined && group.gpuType !== null;
    if (group.gpus > 0 && !hasGpuType) {
      ctx.addIssue({ code: 'custom', path: [], message: 'gpuType is required when gpus > 0' });
    } else if (group.gpus === 0 && hasGpuType) {
      ctx.addIssue({ code: 'custom', path: ['gpuType'], message: 'gpuType must be absent when gpus is 0' });
    }
  });

const KIND_ONLY_KEYS = [
  ['stepTime', ['allreduce']],
  ['commFraction', ['allreduce']],
  ['speed', ['ps']],
  ['elastic', ['allreduce', 'ps']],
  ['ps', ['ps']],
  ['chief', ['allreduce', 'ps']],
  ['loss', ['allreduce', 'ps']],
  ['psTruth', ['ps']],
  ['data', ['allreduce', 'ps']],
  ['optimizeMode', ['ps']],
] as const;

/** A job's training data, read through dynamic sharding (DataSpec); minibatchesPerShard defaults to DLRover's 10. */
const dataSchema = z.strictObject(
  {
    samplesPerEpoch: countUpTo(1e15),
    epochs: countUpTo(1_000_000),
    batchSize: countUpTo(1e9),
    minibatchesPerShard: countUpTo(1_000_000).default(DEFAULT_MINIBATCHES_PER_SHARD),
  },
  says('expected a mapping {samplesPerEpoch, epochs, batchSize, minibatchesPerShard}'),
);

/** A GPU job's input preprocessing: vCPU per GPU its input needs for full speed, or the model family whose need it has. */
const preprocessingSchema = z.union(
  [
    z.strictObject({ cpuCoresPerGpu: cpuCoresSchema }),
    z.strictObject({ family: z.enum(PREPROCESSING_FAMILIES.map((f) => f.family) as [string, ...string[]]) }),
  ],
  says(`expected {cpuCoresPerGpu: N} or {family: ${PREPROCESSING_FAMILIES.map((f) => f.family).join(' | ')}}`),
);

/** The hidden truth of a PS job (model/ps-truth.ts): hot PS, memory growth, what a worker and a PS use. */
const psTruthSchema = z.strictObject(
  {
    variableSizes: z.array(positiveUpTo(1e12), says('expected a list of positive numbers')).min(1, says('expected at least one variable size')).max(100_000, says('expected at most 100000 variable sizes')),
    psMemBaseGiB: positiveUpTo(MAX_MEM_GIB),
    psMemGrowthMiBPerStep: z.number(says('expected a number >= 0')).min(0, says('expected a number >= 0')).max(MAX_MEM_GIB * 1024, says(`expected at most ${MAX_MEM_GIB * 1024}`)).default(0),
    workerMemGiB: memGiBSchema,
    workerCpuCores: cpuCoresSchema,
    psCpuCores: cpuCoresSchema,
  },
  says('expected a mapping {variableSizes, psMemBaseGiB, psMemGrowthMiBPerStep, workerMemGiB, workerCpuCores, psCpuCores}'),
);

const jobSchema = z
  .strictObject({
    id: z
      .union([nameSchema, z.int()], says('expected a job id (a string or an integer)'))
      .transform(String)
      .optional(),
    kind: z.enum(['batch', 'allreduce', 'ps'], says('expected one of batch, allreduce, ps')).default('batch'),
    submit: durationS.default(0),
    user: z.string(says('expected a string')).default(''),
    gpuTypes: gpuTypesSchema.default([]),
    replicas: replicasSchema.default(1),
    gpus: gpusSchema.default(0),
    gpuMilli: gpuMilliSchema.default(1000),
    cpuCores: cpuCoresSchema.default(1),
    memGiB: memGiBSchema.default(4),
    memUseGiB: memGiBSchema.optional(),
    duration: positiveDurationS.optional(),
    steps: positiveUpTo(MAX_STEPS).optional(),
    startup: durationS.default(0),
    // Priority class: high (the default) preempts running spot jobs when it does not fit.
    priority: z.enum(['high', 'spot'], says('expected high or spot')).optional(),
    stepTime: positiveDurationS.optional(),
    commFraction: commFractionSchema.optional(),
    speed: psSpeedSchema.optional(),
    // The dataset it trains on (the auto-scaler's history matches jobs by user and dataset).
    dataset: nameSchema.optional(),
    // Its CPU and memory budget for auto-scaling (DLRover's resourceLimits).
    resourceLimits: z.strictObject({ cpuCores: cpuCoresSchema, memGiB: memGiBSchema }, says('expected a mapping {cpuCores, memGiB}')).optional(),
    optimizeMode: z.enum(['manual', 'single-job', 'cluster'], says('expected one of manual, single-job, cluster')).optional(),
    psTruth: psTruthSchema.optional(),
    // Its input preprocessing (ground truth): vCPU per GPU for full speed, or a model family's.
    preprocessing: preprocessingSchema.optional(),
    // Its training data, read through dynamic sharding: the job's steps are its epochs at batchSize a step.
    data: dataSchema.optional(),
    elastic: z
      .strictObject(
        { min: wholeUpTo(MAX_REPLICAS), max: replicasSchema, unit: replicasSchema.default(1) },
        says('expected a mapping {min, max, unit}'),
      )
      .optional(),
    ps: roleSchema.optional(),
    chief: roleSchema.optional(),
    loss: z
      .strictObject(
        {
          b0: positiveNumber,
          b1: nonNegativeNumber,
          b2: nonNegativeNumber,
          noise: nonNegativeNumber.default(0.01),
          target: positiveNumber,
        },
        says('expected a mapping {b0, b1, b2, noise, target}'),
      )
      .optional(),
    checkpoint: z
      .strictObject(
        {
          interval: z.union([z.literal('auto'), positiveDurationS], says(`expected auto or a positive duration ${DURATION_HINT}`)),
          save: durationS.default(0),
          load: durationS.default(0),
          flash: z.boolean(says('expected true or false')).default(false),
        },
        says('expected a mapping {interval, save, load, flash}'),
      )
      .optional(),
  })
  .superRefine((job, ctx) => {
    checkGpuShare(job, ctx);
    for (const [key, kinds] of KIND_ONLY_KEYS) {
      if (job[key] !== undefined && !(kinds as readonly string[]).includes(job.kind)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} is only for kind ${kinds.join(' or ')}` });
      }
    }
    if (job.kind === 'batch') {
      if (job.steps !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['steps'], message: 'batch jobs take a duration, not steps' });
      } else if (job.duration === undefined) {
        ctx.addIssue({ code: 'custom', path: [], message: 'a batch job needs a duration' });
      }
    } else if ([job.duration, job.steps, job.data].filter((v) => v !== undefined).length > 1) {
      ctx.addIssue({ code: 'custom', path: [job.data !== undefined ? 'data' : 'steps'], message: 'give one of duration, steps and data' });
    } else if (job.data !== undefined) {
      if (job.loss !== undefined) ctx.addIssue({ code: 'custom', path: ['data'], message: 'a job with a loss curve ends on convergence: data sets its steps otherwise' });
    } else if (job.loss !== undefined) {
      checkLossCurve(job.loss, job.duration !== undefined || job.steps !== undefined, ctx);
    } else if (job.duration === undefined && job.steps === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: `a ${job.kind} job needs a duration or steps` });
    }
    if (job.kind === 'ps' && job.ps === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a ps job needs a ps role (ps: {replicas: ...})' });
    }
    const elastic = job.elastic;
    if (elastic !== undefined) {
      if (elastic.min > job.replicas) {
        ctx.addIssue({ code: 'custom', path: ['elastic', 'min'], message: `min (${elastic.min}) exceeds replicas (${job.replicas})` });
      } else if (elastic.max < job.replicas) {
        ctx.addIssue({ code: 'custom', path: ['elastic', 'max'], message: `max (${elastic.max}) is below replicas (${job.replicas})` });
      } else if (elastic.min === 0 && job.chief === undefined) {
        ctx.addIssue({ code: 'custom', path: ['elastic', 'min'], message: 'min 0 needs a chief (a job trains with at least one worker or a chief)' });
      } else if (elastic.min % elastic.unit !== 0 || elastic.max % elastic.unit !== 0) {
        ctx.addIssue({ code: 'custom', path: ['elastic', 'unit'], message: `unit (${elastic.unit}) must divide min (${elastic.min}) and max (${elastic.max})` });
      }
    }
  });

/**
 * An ElasticJob manifest (`workload.elasticJobs[i].manifest`): a file name (relative to the
 * scenario, read by the loader) or the manifest inline, validated here at its YAML path.
 */
const manifestSchema = z
  .custom<string | Record<string, unknown>>(
    (value) => (typeof value === 'string' && value !== '') || (typeof value === 'object' && value !== null && !Array.isArray(value)),
    says('expected an ElasticJob manifest: a file name or the manifest itself (a mapping)'),
  )
  .transform((value, ctx): { readonly file: string } | { readonly inline: ElasticJobManifest } => {
    if (typeof value === 'string') return { file: value };
    const validated = validateElasticJob(value);
    if (validated.ok) return { inline: validated.manifest };
    const { path, message, unknownKey } = validated.issue;
    if (unknownKey === undefined) ctx.addIssue({ code: 'custom', path: [...path], message, input: value });
    else ctx.addIssue({ code: 'unrecognized_keys', keys: [unknownKey], path: [...path], message, input: value });
    return z.NEVER;
  });

/**
 * One DLRover ElasticJob to submit (`workload.elasticJobs[i]`): its manifest, when and by whom,
 * its work (steps, or data read through dynamic sharding) and the hidden truth of how it trains.
 */
const elasticJobEntrySchema = z
  .strictObject(
    {
      manifest: manifestSchema,
      submit: durationS.default(0),
      user: z.string(says('expected a string')).default(''),
      dataset: nameSchema.optional(),
      steps: positiveUpTo(MAX_STEPS).optional(),
      data: dataSchema.optional(),
      model: z
        .strictObject(
          {
            speed: psSpeedSchema.optional(),
            stepTime: positiveDurationS.optional(),
            commFraction: commFractionSchema.optional(),
            psTruth: psTruthSchema.optional(),
          },
          says('expected a mapping {speed, psTruth} (PS jobs) or {stepTime, commFraction} (all-reduce jobs)'),
        )
        .default({}),
    },
    says('expected a mapping {manifest, submit, user, dataset, steps or data, model}'),
  )
  .superRefine((entry, ctx) => {
    if (entry.steps !== undefined && entry.data !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['data'], message: 'give either steps or data, not both' });
    } else if (entry.steps === undefined && entry.data === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs steps or data (the work to do)' });
    }
  });

const SYNTHETIC_KIND_NAMES = ['batch', 'allreduce', 'elastic', 'ps', 'llm', 'edl'] as const;

const syntheticSchema = z
  .strictObject({
    jobs: positiveInt,
    arrivalsPerHour: positiveNumber.optional(),
    meanInterarrival: positiveDurationS.optional(),
    start: durationS.default(0),
    backlog: z.int(says('expected a whole number >= 0')).min(0, says('expected a whole number >= 0')).default(0),
    duration: z
      .strictObject(
        {
          median: positiveDurationS,
          sigma: nonNegativeNumber.default(1),
          min: durationS.default(1),
          max: positiveDurationS.default(Infinity),
        },
        says('expected a mapping {median, sigma, min, max}'),
      )
      .optional(),
    gpus: z.record(z.string(), positiveNumber, says('expected a mapping of GPU count to weight, e.g. {1: 0.5, 8: 0.5}')).optional(),
    gpusPerNode: countUpTo(MAX_GPUS_PER_NODE).optional(),
    cpuCoresPerGpu: positiveNumber.default(4),
    memGiBPerGpu: positiveNumber.default(32),
    kind: z.enum(['batch', 'allreduce'], says('expected one of batch, allreduce')).optional(),
    kinds: z
      .partialRecord(z.enum(SYNTHETIC_KIND_NAMES), positiveNumber, says(`expected a mapping of job kinds (${SYNTHETIC_KIND_NAMES.join(', ')}) to weights`))
      .optional(),
    gpuTypes: gpuTypesSchema.default([]),
    user: z.string(says('expected a string')).default('synthetic'),
    users: countUpTo(MAX_JOBS).optional(),
    // GPU jobs' input preprocessing, drawn per job from the model families; request: need (workers ask for the CPU their input needs, up to maxCpuCoresPerReplica) or given (cpuCoresPerGpu).
    preprocessing: z
      .strictObject(
        { request: z.enum(['need', 'given'], says('expected need or given')).default('given'), maxCpuCoresPerReplica: cpuCoresSchema.default(MAX_CPU_CORES) },
        says('expected a mapping {request, maxCpuCoresPerReplica}'),
      )
      .optional(),
  })
  .superRefine((synthetic, ctx) => {
    if (synthetic.arrivalsPerHour === undefined && synthetic.meanInterarrival === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs arrivalsPerHour or meanInterarrival' });
    } else if (synthetic.arrivalsPerHour !== undefined && synthetic.meanInterarrival !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['meanInterarrival'], message: 'give either arrivalsPerHour or meanInterarrival, not both' });
    }
    if (synthetic.kind !== undefined && synthetic.kinds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['kinds'], message: 'give either kind or kinds, not both' });
    }
    const kinds = Object.keys(synthetic.kinds ?? { [synthetic.kind ?? 'batch']: 1 });
    if (kinds.length === 0) ctx.addIssue({ code: 'custom', path: ['kinds'], message: 'expected at least one job kind' });
    const needsDuration = kinds.filter((kind) => kind !== 'ps');
    if (synthetic.duration === undefined && needsDuration.length > 0) {
      ctx.addIssue({ code: 'custom', path: [], message: `needs duration (for ${needsDuration.join(', ')} jobs)` });
    }
    const needsGpus = kinds.filter((kind) => kind !== 'ps' && kind !== 'llm');
    if (synthetic.gpus === undefined && needsGpus.length > 0) {
      ctx.addIssue({ code: 'custom', path: [], message: `needs gpus (for ${needsGpus.join(', ')} jobs)` });
    }
    if (synthetic.duration !== undefined && synthetic.duration.min > synthetic.duration.max) {
      const { min, max } = synthetic.duration;
      ctx.addIssue({ code: 'custom', path: ['duration', 'min'], message: `min (${formatDurationS(min)}) exceeds max (${formatDurationS(max)})` });
    }
    if (synthetic.gpus !== undefined) {
      const counts = Object.keys(synthetic.gpus);
      if (counts.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['gpus'], message: 'expected at least one GPU count' });
      }
      for (const count of counts) {
        if (!/^\d+$/.test(count)) {
          ctx.addIssue({ code: 'custom', path: ['gpus', count], message: 'expected a GPU count (a non-negative integer) as key' });
        }
      }
    }
  });

/** A trace to replay (`workload.trace`): files in a registered format, paths relative to the scenario file. */
const traceSchema = z.strictObject(
  {
    format: nameSchema,
    files: z.union([nameSchema, z.array(nameSchema).min(1)], says('expected a file name or a list of them')).transform((files) =>
      typeof files === 'string' ? [files] : files,
    ),
    // Jobs submitted in [from, to) of the trace's own clock, shifted to start at 0; before limit, scaling and re-timing.
    window: z
      .strictObject({ from: durationS.default(0), to: positiveDurationS.optional() }, says('expected a mapping {from, to}'))
      .optional(),
    limit: countUpTo(MAX_JOBS).optional(),
    timeScale: positiveNumber.default(1),
    loadScale: positiveNumber.default(1),
    // How loadScale raises the load: arrivals (submission times divided) or durations (every job's work multiplied).
    loadScaleBy: z.enum(['arrivals', 'durations'], says('expected one of arrivals, durations')).default('arrivals'),
    // Re-timed arrivals, as the Alibaba PAI simulator replays a job list: N jobs a minute in (submit time, id) order.
    arrivalsPerMinute: countUpTo(MAX_JOBS).optional(),
    strict: z.boolean(says('expected true or false')).default(false),
  },
  says('expected a mapping with format and files'),
).superRefine((trace, ctx) => {
  if (trace.arrivalsPerMinute !== undefined && trace.loadScale !== 1 && trace.loadScaleBy === 'arrivals') {
    ctx.addIssue({
      code: 'custom',
      path: ['arrivalsPerMinute'],
      message: 'arrivalsPerMinute sets every submission time: it cannot be combined with loadScale by arrivals (use loadScaleBy: durations)',
    });
  }
  const window = trace.window;
  if (window?.to !== undefined && window.from >= window.to) {
    ctx.addIssue({ code: 'custom', path: ['window', 'to'], message: `to (${formatDurationS(window.to)}) must be after from (${formatDurationS(window.from)})` });
  }
});

const workloadSchema = z
  .strictObject(
    {
      jobs: z.array(jobSchema, says('expected a list of jobs')).optional(),
      elasticJobs: z.array(elasticJobEntrySchema, says('expected a list of ElasticJobs ({manifest, steps or data, model})')).optional(),
      synthetic: syntheticSchema.optional(),
      trace: traceSchema.optional(),
    },
    says('expected a mapping with jobs, elasticJobs, synthetic and/or trace'),
  )
  .superRefine((workload, ctx) => {
    const listed = (workload.jobs?.length ?? 0) + (workload.elasticJobs?.length ?? 0);
    if (listed === 0 && workload.synthetic === undefined && workload.trace === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs jobs, elasticJobs, synthetic and/or trace (at least one job)' });
    }
  });

/** Fault injection (`faults`): a catalog of rates (shipped name or file), scaled and overridden, and/or a fault trace to replay. */
const faultsSchema = z.strictObject(
  {
    catalog: nameSchema.default('none'),
    scale: nonNegativeNumber.default(1),
    overrides: z.record(z.string(), z.unknown(), says('expected a mapping of fault names to fields')).default({}),
    trace: z
      .strictObject(
        { file: nameSchema, timeScale: positiveNumber.default(1), start: durationS.default(0) },
        says('expected a mapping with file (and timeScale, start)'),
      )
      .optional(),
    hangTimeout: positiveDurationS.default(600),
  },
  says('expected a mapping with catalog, scale, overrides, trace'),
);

/**
 * A placement-only replay (`fill`): jobs placed once each, in submission order or shuffled by the
 * seed, and kept; `coverage` is the share of pods whose shapes make the target workload of the
 * fragmentation measure (FGD's pod popularity threshold).
 */
const fillSchema = z.strictObject(
  {
    order: z.enum(['submit', 'shuffle'], says('expected submit or shuffle')).default('submit'),
    coverage: z
      .number(says('expected a number above 0, at most 1'))
      .positive(says('expected a number above 0, at most 1'))
      .max(1, says('expected a number above 0, at most 1'))
      .default(1),
  },
  says('expected a mapping {order, coverage} (or {} for the defaults)'),
);

/**
 * The auto-scaler's history database (`history`): a file name (relative to the scenario file), or
 * {file, startS} with the history time the run's t = 0 maps to.
 */
const historySchema = z.preprocess(
  // A file name is short for {file}; an empty one stays a string, refused at `history` itself.
  (value) => (typeof value === 'string' && value !== '' ? { file: value } : value),
  z.strictObject({ file: nameSchema, startS: durationS.optional() }, says('expected a file name, or a mapping {file, startS}')),
);

/** Most seeds a scenario's baselines or one of its expectations may name. */
export const MAX_BENCH_SEEDS = 1000;

/** Prefix of an expectation metric that is a per-seed ratio `policy / baseline` of the metric after it. */
export const PAIRED_RATIO_PREFIX = 'pairedRatio.';

const finiteNumber = z.number(says('expected a number'));

/**
 * A published figure the scenario reproduces (`expect[i]`): the mean of `metric` under `policy`
 * over `seeds` seeds must lie within `tolerance` of `target`; with `gap`, the figure is a known miss
 * and the mean must stay within `drift` of the model's `model` figure instead.
 */
const expectationSchema = z
  .strictObject(
    {
      metric: nameSchema,
      policy: nameSchema,
      baseline: nameSchema.optional(),
      target: finiteNumber,
      tolerance: nonNegativeNumber,
      seeds: countUpTo(MAX_BENCH_SEEDS),
      source: nameSchema,
      gap: z
        .strictObject({ model: finiteNumber, drift: positiveNumber }, says('expected a mapping {model, drift}'))
        .optional(),
    },
    says('expected a mapping {metric, policy, target, tolerance, seeds, source}'),
  )
  .superRefine((entry, ctx) => {
    const paired = entry.metric.startsWith(PAIRED_RATIO_PREFIX);
    if (paired && entry.metric.length === PAIRED_RATIO_PREFIX.length) {
      ctx.addIssue({ code: 'custom', path: ['metric'], message: `expected a metric after ${PAIRED_RATIO_PREFIX}, e.g. ${PAIRED_RATIO_PREFIX}jctS.mean` });
    } else if (paired && entry.baseline === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: `a ${PAIRED_RATIO_PREFIX} metric needs baseline (the policy it divides by)` });
    } else if (!paired && entry.baseline !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['baseline'], message: `baseline is only for ${PAIRED_RATIO_PREFIX} metrics` });
    } else if (entry.baseline !== undefined && entry.baseline === entry.policy) {
      ctx.addIssue({ code: 'custom', path: ['baseline'], message: 'baseline must differ from policy' });
    }
    if (entry.gap !== undefined && Math.abs(entry.gap.model - entry.target) <= entry.tolerance) {
      ctx.addIssue({
        code: 'custom',
        path: ['gap', 'model'],
        message: `${entry.gap.model} is within tolerance of the target ${entry.target}: not a gap (remove gap)`,
      });
    }
  });

const shareSchema = z
  .number(says('expected a number in (0, 1]'))
  .gt(0, says('expected a number in (0, 1]'))
  .max(1, says('expected a number in (0, 1]'));

/** A seeded sample of a machine list (`cluster.from.sample`): a number of machines or a share of them. */
const machineSampleSchema = z
  .strictObject({ nodes: countUpTo(MAX_NODES).optional(), share: shareSchema.optional() }, says('expected a mapping {nodes} or {share}'))
  .superRefine((sample, ctx) => {
    if (sample.nodes !== undefined && sample.share !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either nodes or share, not both' });
    } else if (sample.nodes === undefined && sample.share === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give nodes or share' });
    }
  });

/**
 * A machine list to read the cluster from (`cluster.from`), path relative to the scenario file:
 * optionally a seeded sample of its machines, then `scale` copies of them.
 */
const clusterFromSchema = z.strictObject(
  { format: nameSchema, file: nameSchema, scale: countUpTo(MAX_NODES).default(1), sample: machineSampleSchema.optional() },
  says('expected a mapping with format and file'),
);

/** The largest GPU count of any node group: the default synthetic `gpusPerNode` (0 for a CPU-only cluster). */
export function largestNodeGpus(nodes: readonly { gpus: number }[]): number {
  let largest = 0;
  for (const node of nodes) largest = Math.max(largest, node.gpus);
  return largest;
}

/**
 * Checks that need the cluster and the workload together: GPU types exist, synthetic jobs split into
 * nodes. With `cluster.from` the nodes are known only once the machine list is read: the loader checks then.
 */
function checkAgainstCluster(
  scenario: { cluster: { nodes?: NodeGroupDoc[] | undefined; from?: unknown }; workload: WorkloadDoc },
  ctx: z.RefinementCtx,
): void {
  const nodes = scenario.cluster.nodes ?? [];
  const totalNodes = nodes.reduce((sum, node) => sum + node.count, 0);
  if (totalNodes > MAX_NODES) {
    ctx.addIssue({ code: 'custom', path: ['cluster', 'nodes'], message: `${totalNodes} nodes in all: expected at most ${MAX_NODES}` });
  }
  const names = new Map<string, number>();
  nodes.forEach((node, index) => {
    const name = node.group ?? `group${index}`;
    const first = names.get(name);
    if (first !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['cluster', 'nodes', index, 'group'], message: `duplicate group name "${name}" (also cluster.nodes[${first}])` });
    } else {
      names.set(name, index);
    }
  });
  if (scenario.cluster.from !== undefined) return;
  const gpuTypes = new Set(nodes.filter((node) => node.gpus > 0).map((node) => node.gpuType));
  const checkGpuTypes = (wanted: readonly string[], path: YamlPath): void => {
    if (wanted.length > 0 && !wanted.some((type) => gpuTypes.has(type))) {
      ctx.addIssue({ code: 'custom', path: [...path], message: `no node has GPU type ${wanted.join(' or ')}` });
    }
  };
  scenario.workload.jobs?.forEach((job, index) => checkGpuTypes(job.gpuTypes, ['workload', 'jobs', index, 'gpuTypes']));
  const synthetic = scenario.workload.synthetic;
  if (synthetic === undefined) return;
  const syntheticPath = ['workload', 'synthetic'];
  checkGpuTypes(synthetic.gpuTypes, [...syntheticPath, 'gpuTypes']);
  const largest = largestNodeGpus(nodes);
  const gpusPerNode = synthetic.gpusPerNode ?? largest;
  if (synthetic.gpusPerNode !== undefined && synthetic.gpusPerNode > largest) {
    ctx.addIssue({ code: 'custom', path: [...syntheticPath, 'gpusPerNode'], message: `no node has ${synthetic.gpusPerNode} GPUs (the most is ${largest})` });
    return;
  }
  if (synthetic.kinds?.llm !== undefined && gpusPerNode === 0) {
    ctx.addIssue({ code: 'custom', path: [...syntheticPath, 'kinds', 'llm'], message: 'llm jobs run on whole GPU nodes: no node has GPUs' });
  }
  for (const key of Object.keys(synthetic.gpus ?? {})) {
    const gpus = Number(key);
    if (gpus === 0) continue;
    if (gpusPerNode === 0) {
      ctx.addIssue({ code: 'custom', path: [...syntheticPath, 'gpus', key], message: 'no node has GPUs' });
    } else if (gpus > gpusPerNode && gpus % gpusPerNode !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: [...syntheticPath, 'gpus', key],
        message: `a ${gpus}-GPU job spans whole nodes: expected a multiple of gpusPerNode (${gpusPerNode})`,
      });
    }
  }
}

/** One kind's policy in a scenario's `policies`: its registry id, or {name, options}. */
const policyChoiceSchema = z.union(
  [
    nameSchema.transform((name) => ({ name, options: {} as Readonly<Record<string, unknown>> })),
    z.strictObject(
      { name: nameSchema, options: z.record(z.string(), z.unknown(), says('expected a mapping of option names to values')).default({}) },
      says('expected a policy name, or a mapping {name, options}'),
    ),
  ],
  says('expected a policy name, or a mapping {name, options}'),
);

/** The scenario YAML document (strict: unknown keys are errors); durations come out in seconds. */
export const scenarioSchema = z
  .strictObject(
    {
      name: nameSchema.optional(),
      seed: nonNegativeInt.default(1),
      policy: nameSchema.default('fifo'),
      // Any kind of the preset replaced: a registry id, or {name, options} (options checked by the policy's entry in load.ts).
      policies: z
        .strictObject(
          {
            scheduling: policyChoiceSchema.optional(),
            placement: policyChoiceSchema.optional(),
            recovery: policyChoiceSchema.optional(),
            autoscale: policyChoiceSchema.optional(),
            data: policyChoiceSchema.optional(),
          },
          says('expected a mapping of policy kinds (scheduling, placement, recovery, autoscale, data) to policies'),
        )
        .optional(),
      recovery: nameSchema.optional(),
      // Durations and counts by name; which is which depends on the policy, so load.ts parses the values.
      recoveryTimes: z
        .record(
          z.string(),
          z.record(
            z.string(),
            z.custom<number | string>((value) => typeof value === 'number' || typeof value === 'string', says(`expected a duration ${DURATION_HINT}, or a count`)),
            says(`expected a mapping of names to durations ${DURATION_HINT} (or counts)`),
          ),
          says('expected a mapping of recovery policies to their times, e.g. {manual: {poll: 5m}}'),
        )
        .optional(),
      sim: z
        .strictObject(
          {
            horizon: positiveDurationS.optional(),
            resizePause: durationS.default(30),
            crossRackSlowdown: z
              .number(says('expected a number >= 1'))
              .min(1, says('expected a number >= 1'))
              .default(1.25),
            oomAfter: positiveDurationS.default(600),
            samplePeriod: positiveDurationS.default(30),
            // What data workers on other nodes can send one node of a job's GPU tasks, in vCPU of preprocessing output.
            dataWorkerNetworkCap: cpuCoresSchema.optional(),
          },
          says('expected a mapping'),
        )
        .optional(),
      cluster: z
        .strictObject(
          {
            nodes: z
              .array(nodeGroupSchema, says('expected a list of node groups'))
              .min(1, says('expected at least one node group'))
              .optional(),
            from: clusterFromSchema.optional(),
          },
          says('expected a mapping with nodes and/or from'),
        )
        .superRefine((cluster, ctx) => {
          if (cluster.nodes === undefined && cluster.from === undefined) {
            ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'required (or give cluster.from)' });
          }
        }),
      users: z
        .record(
          nameSchema,
          z.strictObject({ weight: positiveNumber.default(1) }, says('expected a mapping {weight}')),
          says('expected a mapping of user names to {weight}, e.g. {alice: {weight: 2}}'),
        )
        .optional(),
      workload: workloadSchema,
      faults: faultsSchema.optional(),
      // Present: place every job once, without time, instead of simulating (no faults, no horizon).
      fill: fillSchema.optional(),
      // The auto-scaler's database of finished jobs: read by the policies, added to by `dlsim run`.
      history: historySchema.optional(),
      // Baselines and published targets (`dlsim bench --check`); they do not change a run.
      compare: z
        .array(nameSchema, says('expected a list of policy presets, e.g. [fifo, drf]'))
        .min(1, says('expected at least one policy preset'))
        .optional(),
      baselineSeeds: countUpTo(MAX_BENCH_SEEDS).default(1),
      expect: z.array(expectationSchema, says('expected a list of published figures')).default([]),
    },
    says('expected a mapping (the scenario) at the top level'),
  )
  .superRefine(checkAgainstCluster)
  .superRefine((scenario, ctx) => {
    if (scenario.fill === undefined) return;
    if (scenario.faults !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['faults'], message: 'a fill run places jobs once, without time: faults do not apply (remove faults or fill)' });
    } else if (scenario.sim?.horizon !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['sim', 'horizon'], message: 'a fill run places jobs once, without time: it has no horizon (remove sim.horizon or fill)' });
    } else if (scenario.expect.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['expect'], message: 'a fill run has no timed summary for the bench to hold figures of (remove expect or fill)' });
    } else if (scenario.history !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['history'], message: 'a fill run places jobs once, without time: no job finishes to record (remove history or fill)' });
    }
  });

/** One node group as validated (`cluster.nodes[i]`). */
export type NodeGroupDoc = z.output<typeof nodeGroupSchema>;
/** One replica role (`ps`, `chief`) as validated. */
export type RoleDoc = z.output<typeof roleSchema>;
/** One ElasticJob entry as validated (`workload.elasticJobs[i]`); durations in seconds. */
export type ElasticJobEntryDoc = z.output<typeof elasticJobEntrySchema>;
/** One inline job as validated (`workload.jobs[i]`); durations in seconds. */
export type JobDoc = z.output<typeof jobSchema>;
/** The synthetic workload section as validated; durations in seconds. */
export type SyntheticDoc = z.output<typeof syntheticSchema>;
/** The trace section as validated. */
export type TraceDoc = z.output<typeof traceSchema>;
/** One published figure (`expect[i]`) as validated. */
export type ExpectationDoc = z.output<typeof expectationSchema>;
/** The fill section as validated. */
export type FillDoc = z.output<typeof fillSchema>;
/** The history section as validated. */
export type HistoryDoc = z.output<typeof historySchema>;
/** The faults section as validated. */
export type FaultsDoc = z.output<typeof faultsSchema>;
/** The workload section as validated. */
export type WorkloadDoc = z.output<typeof workloadSchema>;
/** A whole scenario document as validated; durations in seconds, defaults filled in. */
export type ScenarioDoc = z.output<typeof scenarioSchema>;

/** Validates a parsed scenario document; returns the typed document or the first issue. */
export function validateScenarioDoc(raw: unknown): { ok: true; doc: ScenarioDoc } | { ok: false; issue: YamlIssue } {
  const result = scenarioSchema.safeParse(raw, { error: yamlErrorMap });
  if (result.success) return { ok: true, doc: result.data };
  return { ok: false, issue: firstIssue(result.error) };
}

