/**
 * DLRover ElasticJob manifests (`elastic.iml.github.io/v1alpha1`, kind ElasticJob, as in DLRover's
 * examples): the schema, strict down to the containers, and the mapping onto a dlsim JobSpec.
 */
import { LineCounter, parseAllDocuments, parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { cpuQuantityError, memoryQuantityError, parseCpuMilli, parseMemMiB } from '../../io/k8s-quantity.js';
import { type YamlIssue, firstIssue, formatYamlPath, says, yamlErrorMap } from '../../io/yaml-errors.js';
import { firstLine, lineOf, protoKeyPath, readYamlText, recursivePath } from '../../io/yaml-file.js';
import type { DataSpec, JobKind, JobSpec, PsTruth, ReplicaDemand, RoleSpec, SpeedSpec } from '../../model/job-spec.js';
import { MAX_CPU_CORES, MAX_GPUS_PER_NODE, MAX_MEM_GIB, MAX_NODES, MAX_REPLICAS } from '../../model/limits.js';

/** API version of DLRover's ElasticJob (and ScalePlan) custom resources. */
export const ELASTIC_JOB_API_VERSION = 'elastic.iml.github.io/v1alpha1';

/**
 * Demand of a PS the brain starts a job with when it has no history and the manifest gives none:
 * 8 CPU and 8 GiB (REFERENCE §2, seed 000). The auto-scaler replaces it.
 */
export const COLD_START_PS_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };

/**
 * Demand of the chief (and of a worker) the brain starts a job with when it has no history and the
 * manifest gives none: 8 CPU and 8 GiB (REFERENCE §2, seed 000). The auto-scaler replaces it.
 */
export const COLD_START_CHIEF_DEMAND: ReplicaDemand = { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 8192 };

/** Most workers DLRover's job master gives an auto-scaled job (REFERENCE §2): an auto-scaled worker role's maxReplicas. */
export const MAX_AUTO_SCALED_WORKERS = 60;

/** Minibatches a shard holds when a job's data does not say (DLRover's default, REFERENCE §2). */
export const DEFAULT_MINIBATCHES_PER_SHARD = 10;

const nameSchema = z.string(says('expected a non-empty string')).min(1, says('expected a non-empty string'));
const stringSchema = z.string(says('expected a string'));
const stringListSchema = z.array(stringSchema, says('expected a list of strings'));
const stringMapSchema = z.record(z.string(), stringSchema, says('expected a mapping of strings to strings'));
const booleanSchema = z.boolean(says('expected true or false'));
/** A whole number from 0 to `max`. */
function wholeUpTo(max: number) {
  const text = `expected a non-negative integer up to ${max}`;
  return z.int(says(text)).min(0, says(text)).max(max, says(text));
}
const nonNegativeInt = z.int(says('expected a non-negative integer')).min(0, says('expected a non-negative integer'));

/** A Kubernetes object name (DNS-1123 subdomain): lowercase letters, digits, '-' and '.', starting and ending with a letter or digit. */
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const K8S_NAME_TEXT = 'expected a Kubernetes name: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters';
const objectNameSchema = z
  .string(says(K8S_NAME_TEXT))
  .max(253, says(K8S_NAME_TEXT))
  .regex(K8S_NAME, says(K8S_NAME_TEXT));

/** A positive quantity read by `parse` into dlsim units, at most `max` of them. */
function quantity(parse: (value: unknown) => number | null, error: (value: unknown) => string, max: number, maxText: string) {
  return z
    .custom<string | number>((value) => typeof value === 'string' || typeof value === 'number', {
      error: (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : error(issue.input)),
    })
    .transform((value, ctx) => {
      const parsed = parse(value);
      if (parsed === null) {
        ctx.addIssue({ code: 'custom', message: error(value), input: value });
        return z.NEVER;
      }
      if (parsed === 0 || parsed > max) {
        ctx.addIssue({ code: 'custom', message: `expected a positive quantity up to ${maxText}, got ${JSON.stringify(value)}`, input: value });
        return z.NEVER;
      }
      return parsed;
    });
}

/** CPU of one replica, in thousandths of a core. */
const cpuSchema = quantity(parseCpuMilli, cpuQuantityError, MAX_CPU_CORES * 1000, `${MAX_CPU_CORES} cores`);
/** Memory of one replica, in MiB. */
const memorySchema = quantity(parseMemMiB, memoryQuantityError, MAX_MEM_GIB * 1024, `${MAX_MEM_GIB}Gi`);
/** A job's CPU budget (all its replicas), in thousandths of a core. */
const cpuBudgetSchema = quantity(parseCpuMilli, cpuQuantityError, MAX_NODES * MAX_CPU_CORES * 1000, `${MAX_NODES * MAX_CPU_CORES} cores`);
/** A job's memory budget (all its replicas), in MiB. */
const memoryBudgetSchema = quantity(parseMemMiB, memoryQuantityError, MAX_NODES * MAX_MEM_GIB * 1024, `${MAX_NODES * MAX_MEM_GIB}Gi`);

const GPU_TEXT = `expected a whole number of GPUs up to ${MAX_GPUS_PER_NODE}`;
/** `nvidia.com/gpu`: a whole number of GPUs (an extended resource: Kubernetes takes no fractions). */
const gpuSchema = z
  .custom<string | number>((value) => typeof value === 'string' || typeof value === 'number', says(GPU_TEXT))
  .transform((value, ctx) => {
    const gpus = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isInteger(gpus) || gpus < 0 || gpus > MAX_GPUS_PER_NODE) {
      ctx.addIssue({ code: 'custom', message: `${GPU_TEXT}, got ${JSON.stringify(value)}`, input: value });
      return z.NEVER;
    }
    return gpus;
  });

/** A container's `resources.limits` or `resources.requests`; `ephemeral-storage` is accepted and ignored. */
const resourceListSchema = z.strictObject(
  {
    cpu: cpuSchema.optional(),
    memory: memorySchema.optional(),
    'nvidia.com/gpu': gpuSchema.optional(),
    'ephemeral-storage': quantity(parseMemMiB, memoryQuantityError, Number.MAX_SAFE_INTEGER, 'any size').optional(),
  },
  says('expected a mapping of resources (cpu, memory, nvidia.com/gpu)'),
);

const envVarSchema = z.strictObject(
  {
    name: nameSchema,
    value: stringSchema.optional(),
    valueFrom: z.record(z.string(), z.unknown(), says('expected a mapping')).optional(),
  },
  says('expected a mapping {name, value}'),
);

const volumeMountSchema = z.strictObject(
  {
    name: nameSchema,
    mountPath: nameSchema,
    readOnly: booleanSchema.optional(),
    subPath: stringSchema.optional(),
    subPathExpr: stringSchema.optional(),
    mountPropagation: z.enum(['None', 'HostToContainer', 'Bidirectional'], says('expected None, HostToContainer or Bidirectional')).optional(),
  },
  says('expected a mapping {name, mountPath}'),
);

/** A container of a replica's pod; `image` may be left out only where DLRover fills it in (its master). */
function containerSchema(imageRequired: boolean) {
  return z.strictObject(
    {
      name: nameSchema,
      image: imageRequired ? nameSchema : nameSchema.optional(),
      imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never'], says('expected Always, IfNotPresent or Never')).optional(),
      command: stringListSchema.optional(),
      args: stringListSchema.optional(),
      workingDir: stringSchema.optional(),
      env: z.array(envVarSchema, says('expected a list of {name, value}')).optional(),
      resources: z
        .strictObject({ limits: resourceListSchema.optional(), requests: resourceListSchema.optional() }, says('expected a mapping {limits, requests}'))
        .optional(),
      volumeMounts: z.array(volumeMountSchema, says('expected a list of {name, mountPath}')).optional(),
    },
    says('expected a mapping (a container: name, image, resources, …)'),
  );
}

/** Volume sources a pod may name (the others Kubernetes knows are rejected as unknown keys). */
const VOLUME_SOURCES = ['persistentVolumeClaim', 'hostPath', 'emptyDir', 'configMap', 'secret', 'nfs'] as const;

const volumeSchema = z
  .strictObject(
    {
      name: nameSchema,
      persistentVolumeClaim: z
        .strictObject({ claimName: nameSchema, readOnly: booleanSchema.optional() }, says('expected a mapping {claimName}'))
        .optional(),
      hostPath: z.strictObject({ path: nameSchema, type: stringSchema.optional() }, says('expected a mapping {path}')).optional(),
      emptyDir: z
        .strictObject({ medium: stringSchema.optional(), sizeLimit: z.union([z.string(), z.number()], says('expected a quantity, e.g. 1Gi')).optional() }, says('expected a mapping {medium, sizeLimit}'))
        .optional(),
      configMap: z.record(z.string(), z.unknown(), says('expected a mapping')).optional(),
      secret: z.record(z.string(), z.unknown(), says('expected a mapping')).optional(),
      nfs: z
        .strictObject({ server: nameSchema, path: nameSchema, readOnly: booleanSchema.optional() }, says('expected a mapping {server, path}'))
        .optional(),
    },
    says(`expected a mapping {name, and one of ${VOLUME_SOURCES.join(', ')}}`),
  )
  .superRefine((volume, ctx) => {
    const sources = VOLUME_SOURCES.filter((source) => volume[source] !== undefined);
    if (sources.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: `expected exactly one volume source (${VOLUME_SOURCES.join(', ')}), got ${sources.length === 0 ? 'none' : sources.join(' and ')}` });
    }
  });

/** One role's replica spec (`spec.replicaSpecs.<role>`). */
function replicaSpecSchema(imageRequired: boolean) {
  return z.strictObject(
    {
      replicas: wholeUpTo(MAX_REPLICAS).optional(),
      autoScale: booleanSchema.optional(),
      restartCount: nonNegativeInt.optional(),
      // Seconds, as DLRover's Go type has it.
      restartTimeout: nonNegativeInt.optional(),
      priority: z.union([stringSchema, z.number()], says('expected a priority (e.g. high, low or a share like 0.5)')).optional(),
      template: z.strictObject(
        {
          spec: z.strictObject(
            {
              restartPolicy: z.enum(['Always', 'OnFailure', 'Never'], says('expected Always, OnFailure or Never')).optional(),
              containers: z
                .array(containerSchema(imageRequired), says('expected a list of containers'))
                .min(1, says('expected at least one container')),
              volumes: z.array(volumeSchema, says('expected a list of volumes')).optional(),
            },
            says('expected a mapping (a pod spec: containers, volumes, restartPolicy)'),
          ),
        },
        says('expected a mapping {spec}'),
      ),
    },
    says('expected a mapping (a replica spec: replicas, autoScale, template, …)'),
  );
}

const trainingReplicaSpec = replicaSpecSchema(true);

/** A DLRover ElasticJob manifest (strict: unknown keys anywhere are errors); quantities come out in thousandths of a core, MiB and GPUs. */
export const elasticJobSchema = z.strictObject(
  {
    apiVersion: z.literal(ELASTIC_JOB_API_VERSION, says(`expected ${ELASTIC_JOB_API_VERSION}`)),
    kind: z.literal('ElasticJob', says('expected ElasticJob')),
    metadata: z.strictObject(
      {
        name: objectNameSchema,
        namespace: objectNameSchema.optional(),
        labels: stringMapSchema.optional(),
        annotations: stringMapSchema.optional(),
      },
      says('expected a mapping {name, namespace, labels}'),
    ),
    spec: z
      .strictObject(
        {
          distributionStrategy: z.enum(['ParameterServerStrategy', 'AllreduceStrategy'], says('expected ParameterServerStrategy or AllreduceStrategy')),
          optimizeMode: z.enum(['manual', 'single-job', 'cluster'], says('expected manual, single-job or cluster')).optional(),
          brainService: stringSchema.optional(),
          resourceLimits: z.strictObject({ cpu: cpuBudgetSchema, memory: memoryBudgetSchema }, says('expected a mapping {cpu, memory}')).optional(),
          replicaSpecs: z.strictObject(
            {
              ps: trainingReplicaSpec.optional(),
              worker: trainingReplicaSpec.optional(),
              chief: trainingReplicaSpec.optional(),
              evaluator: trainingReplicaSpec.optional(),
              'dlrover-master': replicaSpecSchema(false).optional(),
            },
            says('expected a mapping of roles (ps, worker, chief, evaluator, dlrover-master) to replica specs'),
          ),
        },
        says('expected a mapping (distributionStrategy, replicaSpecs, …)'),
      )
      .superRefine((spec, ctx) => {
        const { ps, worker, chief } = spec.replicaSpecs;
        const isPs = spec.distributionStrategy === 'ParameterServerStrategy';
        if (worker === undefined) {
          ctx.addIssue({ code: 'custom', path: ['replicaSpecs'], message: 'needs a worker replica spec (replicaSpecs.worker)' });
          return;
        }
        if (isPs && ps === undefined) {
          ctx.addIssue({ code: 'custom', path: ['replicaSpecs'], message: 'a ParameterServerStrategy job needs a ps replica spec (replicaSpecs.ps)' });
        } else if (!isPs && ps !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['replicaSpecs', 'ps'], message: 'ps is only for ParameterServerStrategy jobs' });
        }
        for (const [role, replicaSpec] of [['ps', ps], ['chief', chief]] as const) {
          if (replicaSpec?.replicas === 0) ctx.addIssue({ code: 'custom', path: ['replicaSpecs', role, 'replicas'], message: `expected at least one ${role}` });
        }
        if (worker.replicas === 0 && !(isPs && worker.autoScale === true)) {
          ctx.addIssue({
            code: 'custom',
            path: ['replicaSpecs', 'worker', 'replicas'],
            message: 'no workers only for an auto-scaled worker role of a ParameterServerStrategy job (autoScale: true; its chief trains)',
          });
        }
      }),
  },
  says('expected a mapping (an ElasticJob: apiVersion, kind, metadata, spec)'),
);

/** An ElasticJob manifest as validated: quantities in dlsim units. */
export type ElasticJobManifest = z.output<typeof elasticJobSchema>;

/** Validates a parsed ElasticJob manifest; returns it or its first issue (path inside the manifest). */
export function validateElasticJob(raw: unknown): { ok: true; manifest: ElasticJobManifest } | { ok: false; issue: YamlIssue } {
  const result = elasticJobSchema.safeParse(raw, { error: yamlErrorMap });
  if (result.success) return { ok: true, manifest: result.data };
  return { ok: false, issue: firstIssue(result.error) };
}

/**
 * Reads an ElasticJob manifest file (one YAML document: a second is an error). Any problem is a ConfigError naming the
 * file, the line and the path inside the manifest ("job.yaml:23: spec.replicaSpecs.worker: unknown key \"foo\"").
 */
export function readElasticJobFile(file: string): ElasticJobManifest {
  const text = readYamlText(file, 'ElasticJob manifest');
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, prettyErrors: false, logLevel: 'silent' });
  const second = documents[1];
  if (second !== undefined) {
    throw new ConfigError(`${file}:${lineCounter.linePos(second.range[0]).line}`, 'a second YAML document: a manifest file holds one ElasticJob');
  }
  const document = documents[0] ?? parseDocument('', { prettyErrors: false, logLevel: 'silent' });
  // A warning (an unknown tag, an unsupported YAML version) is as much a problem as an error, as in a scenario.
  const syntaxError = document.errors[0] ?? document.warnings[0];
  if (syntaxError) throw new ConfigError(`${file}:${lineCounter.linePos(syntaxError.pos[0]).line}`, firstLine(syntaxError.message));
  let raw: unknown;
  try {
    raw = document.toJS();
  } catch (error) {
    throw new ConfigError(file, firstLine(error instanceof Error ? error.message : String(error)));
  }
  const where = (path: readonly (string | number)[], lineAt: readonly (string | number)[] = path): string => {
    const line = lineOf(document, lineCounter, lineAt, true);
    const shownPath = formatYamlPath(path);
    const at = line === null ? file : `${file}:${line}`;
    return shownPath === '' ? at : `${at}: ${shownPath}`;
  };
  const recursive = recursivePath(raw);
  if (recursive) throw new ConfigError(where(recursive), 'a recursive alias (an anchor used inside itself)');
  const proto = protoKeyPath(raw);
  if (proto) throw new ConfigError(where(proto), 'the key "__proto__" is not allowed');
  const validated = validateElasticJob(raw);
  if (!validated.ok) {
    const { path, message, unknownKey } = validated.issue;
    throw new ConfigError(where(path, unknownKey === undefined ? path : [...path, unknownKey]), message);
  }
  return validated.manifest;
}

/** The dlsim job kind of a manifest: 'ps' for ParameterServerStrategy, 'allreduce' otherwise. */
export function elasticJobKind(manifest: ElasticJobManifest): Exclude<JobKind, 'batch'> {
  return manifest.spec.distributionStrategy === 'ParameterServerStrategy' ? 'ps' : 'allreduce';
}

/**
 * Training steps of a job that reads `data` through dynamic sharding: all its samples at batchSize a
 * step, ceil(samplesPerEpoch x epochs / batchSize) (shards train their samples fluidly, so a short
 * last shard of an epoch is no whole step).
 */
export function dataSteps(data: Pick<DataSpec, 'samplesPerEpoch' | 'epochs' | 'batchSize'>): number {
  return Math.ceil((data.samplesPerEpoch * data.epochs) / data.batchSize);
}

/** What a scenario adds to a manifest to make a simulated job: when and by whom, the work, and the hidden truth. */
export interface ElasticJobSubmission {
  /** Submission time, seconds from the start of the simulation. */
  readonly submitS: number;
  readonly user: string;
  readonly dataset?: string;
  /** Steps the job takes (from `steps`, or from its data: see dataSteps). */
  readonly totalSteps: number;
  readonly data?: DataSpec;
  /** The speed model; its kind must match the manifest's strategy (ps-async for PS jobs, allreduce otherwise). */
  readonly speed: SpeedSpec;
  readonly psTruth?: PsTruth;
  /** Where the job came from, for messages: the manifest file, or the scenario's YAML path. */
  readonly source: string;
}

type ReplicaSpecDoc = NonNullable<ElasticJobManifest['spec']['replicaSpecs']['worker']>;

/**
 * Per-replica demand of a role's pod: over its containers, each quantity from `resources.limits`,
 * else `resources.requests`, summed; a quantity no container gives is `fallback`'s (DLRover's
 * cold start: the brain sizes such roles). GPUs from `nvidia.com/gpu` (0 when none is given).
 */
function podDemand(replicaSpec: ReplicaSpecDoc, fallback: ReplicaDemand): ReplicaDemand {
  let cpuMilli: number | undefined;
  let memMiB: number | undefined;
  let gpus = 0;
  for (const container of replicaSpec.template.spec.containers) {
    const { limits, requests } = container.resources ?? {};
    const cpu = limits?.cpu ?? requests?.cpu;
    const memory = limits?.memory ?? requests?.memory;
    if (cpu !== undefined) cpuMilli = (cpuMilli ?? 0) + cpu;
    if (memory !== undefined) memMiB = (memMiB ?? 0) + memory;
    gpus += limits?.['nvidia.com/gpu'] ?? requests?.['nvidia.com/gpu'] ?? 0;
  }
  return { gpus, gpuMilli: 1000, cpuMilli: cpuMilli ?? fallback.cpuMilli, memMiB: memMiB ?? fallback.memMiB };
}

/**
 * The dlsim job of an ElasticJob manifest: id metadata.name; kind 'ps' for ParameterServerStrategy,
 * 'allreduce' otherwise; roles worker, ps and chief from replicaSpecs (evaluator and dlrover-master
 * are ignored), each replica's demand from its containers (see podDemand) and its count from
 * `replicas` (default 1; an auto-scaled PS job's workers default to 0); what a chief's containers
 * leave out is its workers'. A PS job whose workers are
 * auto-scaled and which names no chief gets one, as DLRover's master starts such a job with one PS
 * and a chief (seed 000), sized like its workers. An auto-scaled worker role is elastic from 0
 * workers (PS jobs, whose chief trains) or 1 up to MAX_AUTO_SCALED_WORKERS, one at a time.
 * resourceLimits and optimizeMode are copied.
 */
export function elasticJobSpec(manifest: ElasticJobManifest, submission: ElasticJobSubmission): JobSpec {
  const kind = elasticJobKind(manifest);
  const { spec } = manifest;
  const { ps, chief } = spec.replicaSpecs;
  const worker = spec.replicaSpecs.worker!;
  const autoScaled = worker.autoScale === true;
  const workerDemand = podDemand(worker, COLD_START_CHIEF_DEMAND);
  const chiefSpec: RoleSpec | null =
    chief !== undefined
      ? { role: 'chief', replicas: chief.replicas ?? 1, demand: podDemand(chief, workerDemand) }
      : kind === 'ps' && autoScaled
        ? { role: 'chief', replicas: 1, demand: workerDemand }
        : null;
  const fewestWorkers = kind === 'ps' && chiefSpec !== null ? 0 : 1;
  const workers = worker.replicas ?? (autoScaled ? fewestWorkers : 1);
  const roles: RoleSpec[] = [{ role: 'worker', replicas: workers, demand: workerDemand }];
  if (ps !== undefined) roles.push({ role: 'ps', replicas: ps.replicas ?? 1, demand: podDemand(ps, COLD_START_PS_DEMAND) });
  if (chiefSpec !== null) roles.push(chiefSpec);
  return {
    id: manifest.metadata.name,
    kind,
    submitS: submission.submitS,
    user: submission.user,
    gpuTypes: [],
    roles,
    elastic: autoScaled ? { minReplicas: fewestWorkers, maxReplicas: Math.max(MAX_AUTO_SCALED_WORKERS, workers), unit: 1 } : null,
    totalSteps: submission.totalSteps,
    speed: submission.speed,
    source: submission.source,
    ...(submission.dataset === undefined ? {} : { dataset: submission.dataset }),
    ...(spec.resourceLimits === undefined ? {} : { resourceLimits: { cpuMilli: spec.resourceLimits.cpu, memMiB: spec.resourceLimits.memory } }),
    ...(spec.optimizeMode === undefined ? {} : { optimizeMode: spec.optimizeMode }),
    ...(submission.data === undefined ? {} : { data: submission.data }),
    ...(submission.psTruth === undefined ? {} : { psTruth: submission.psTruth }),
  };
}
