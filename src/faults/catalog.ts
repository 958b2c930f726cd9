/**
 * Fault catalogs: the kinds of fault a cluster suffers, with their rates, effects and repair
 * times. Catalogs are YAML data files (src/faults/catalogs/NAME.yaml, or a user's own file in the
 * same format); this module types, validates, loads, scales and overrides them.
 */
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { assertNever, ConfigError, InvariantError } from '../errors.js';
import { parseDurationS } from '../io/duration.js';
import { type YamlPath, firstIssue, formatYamlPath, says, yamlErrorMap } from '../io/yaml-errors.js';
import { firstLine, lineOf, readYamlText } from '../io/yaml-file.js';

/** What a fault hits: one GPU, a whole node, a node's network link, or only the job process on a GPU. */
export type FaultScope = 'gpu' | 'node' | 'link' | 'job';

/** What a fault does. */
export type FaultEffect =
  /** The training process dies; the hardware is fine (restart from the last checkpoint). */
  | { kind: 'crash' }
  /** The GPU is unusable until repaired; a job on it crashes. */
  | { kind: 'gpu-down' }
  /** The whole node is unusable until repaired; jobs on it crash. */
  | { kind: 'node-down' }
  /** The node loses its network (NIC, link or switch port) until repaired; jobs on it crash. */
  | { kind: 'network-down' }
  /** The job stops progressing until a timeout (NCCL watchdog, heartbeat) fires, then crashes. */
  | { kind: 'hang' }
  /** The job on it runs at `factor` (0 < factor < 1) of its speed until repaired (thermal, PCIe width low). */
  | { kind: 'slowdown'; factor: number }
  /** Wrong results found later: the job rolls back one checkpoint further than a crash. */
  | { kind: 'silent-corruption' };

/** How long a repair takes, in seconds; 'none' = the fault needs no repair (it takes no hardware down). */
export type RepairTime =
  | { kind: 'none' }
  | { kind: 'fixed'; seconds: number }
  | { kind: 'exponential'; meanS: number }
  | { kind: 'lognormal'; medianS: number; sigma: number };

/** Which recovery a fault calls for: software faults need only a process restart (DLRover), network ones locating the bad link. */
export type FaultCategory = 'hardware' | 'software' | 'network';

/**
 * How the training process exits after the fault, as DLRover classes exit codes: hardware
 * (201/202/14), fatal (1/134: an error in the program), killed (137/143), oom (OOMKilled or 247),
 * unknown (anything else, and a hang's watchdog or heartbeat timeout).
 */
export type ExitClass = 'hardware' | 'fatal' | 'killed' | 'oom' | 'unknown';

/** One kind of fault in a catalog. Invariant: at most one of the two rates is > 0; both are finite and ≥ 0. */
export interface FaultType {
  /** Unique in its catalog, e.g. "xid-79-gpu-fell-off-bus"; letters, digits, '-' and '_' (usable in `--set` paths). */
  readonly name: string;
  /** The NVIDIA Xid that reports it, when one exists. */
  readonly xid: number | null;
  /** One line for humans. */
  readonly description: string;
  /** Faults per GPU per day (each GPU an independent Poisson process); 0 when the rate is per node. */
  readonly ratePerGpuDay: number;
  /** Faults per node per day; 0 when the rate is per GPU. */
  readonly ratePerNodeDay: number;
  /** What it hits. gpu-down needs scope gpu, node-down scope node, network-down scope link or node. */
  readonly scope: FaultScope;
  /** What it does. */
  readonly effect: FaultEffect;
  /** True when DLRover's node check (GEMM + allgather) finds the faulty node. */
  readonly foundByNodeCheck: boolean;
  /** Repair time: 'none' exactly for effects that take no hardware down (crash, hang, silent-corruption). */
  readonly repair: RepairTime;
  /** For recovery policies (DLRover: software faults restart processes only). */
  readonly category: FaultCategory;
  /** How the process exits; absent = by effect (see `exitClassOf`). */
  readonly exit?: ExitClass;
}

/**
 * DLRover's straggler rule: the node check flags a node whose best test time exceeds this many
 * times the median (strictly: `t > med_time * 2` in dlrover/python/master/elastic_training/rdzv_manager.py).
 */
export const NODE_CHECK_STRAGGLER_FACTOR = 2;

/**
 * True when the node check flags a node slowed to `factor` among healthy ones: its test takes
 * 1/factor times the median, a straggler only beyond NODE_CHECK_STRAGGLER_FACTOR (so half speed,
 * exactly 2x, is not found).
 */
export function nodeCheckFindsSlowdown(factor: number): boolean {
  return 1 / factor > NODE_CHECK_STRAGGLER_FACTOR;
}

/** A fault's exit class: its own, else hardware for a GPU, node or network loss and unknown otherwise. */
export function exitClassOf(type: FaultType): ExitClass {
  if (type.exit) return type.exit;
  const kind = type.effect.kind;
  return kind === 'gpu-down' || kind === 'node-down' || kind === 'network-down' ? 'hardware' : 'unknown';
}

/** A named set of fault types with where its numbers come from. */
export interface FaultCatalog {
  /** The catalog's name (a shipped catalog's file name without .yaml). */
  readonly name: string;
  /** What the catalog models, including its assumptions (e.g. GPUs per node). */
  readonly description: string;
  /** Citations for its numbers. */
  readonly source: string;
  /** Its fault types, names unique. */
  readonly types: readonly FaultType[];
}

/** Folder of the shipped catalogs; from src/faults/ and dist/faults/ alike it is the package's src/faults/catalogs/. */
const CATALOGS_DIR = fileURLToPath(new URL('../../src/faults/catalogs/', import.meta.url));

const EFFECT_KINDS = ['crash', 'gpu-down', 'node-down', 'network-down', 'hang', 'slowdown', 'silent-corruption'] as const;
const REPAIR_KINDS = ['none', 'fixed', 'exponential', 'lognormal'] as const;
const SCOPES = ['gpu', 'node', 'link', 'job'] as const;
const CATEGORIES = ['hardware', 'software', 'network'] as const;
const EXIT_CLASSES = ['hardware', 'fatal', 'killed', 'oom', 'unknown'] as const;


const nonNegativeNumber = z.number(says('expected a number ≥ 0')).min(0, says('expected a number ≥ 0'));
const rateSchema = z.number(says('expected a rate ≥ 0 (faults per day)')).min(0, says('expected a rate ≥ 0 (faults per day)'));
const nameSchema = z
  .string(says('expected a name of letters, digits, "-" and "_"'))
  .regex(/^[A-Za-z0-9_-]+$/, says('expected a name of letters, digits, "-" and "_"'));
const textSchema = z.string(says('expected a string'));

/** A positive duration in seconds: a number, or a string like "90s", "10m", "2h", "1d". */
const positiveSeconds = z
  .custom<number | string>((value) => typeof value === 'number' || typeof value === 'string', says('expected a positive duration in seconds (or like 10m, 2h, 1d)'))
  .transform((value, ctx) => {
    const seconds = parseDurationS(value);
    if (seconds === null || seconds === 0) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive duration in seconds (or like 10m, 2h, 1d)', input: value });
      return z.NEVER;
    }
    return seconds;
  });

/** Lets YAML write `effect: crash` / `repair: none` for `{kind: crash}` / `{kind: none}`. */
function kindShorthand(value: unknown): unknown {
  return typeof value === 'string' ? { kind: value } : value;
}

const effectSchema = z.preprocess(
  kindShorthand,
  z.discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('crash') }),
      z.strictObject({ kind: z.literal('gpu-down') }),
      z.strictObject({ kind: z.literal('node-down') }),
      z.strictObject({ kind: z.literal('network-down') }),
      z.strictObject({ kind: z.literal('hang') }),
      z.strictObject({
        kind: z.literal('slowdown'),
        factor: z
          .number(says('expected a speed factor between 0 and 1 (exclusive)'))
          .gt(0, says('expected a speed factor between 0 and 1 (exclusive)'))
          .lt(1, says('expected a speed factor between 0 and 1 (exclusive)')),
      }),
      z.strictObject({ kind: z.literal('silent-corruption') }),
    ],
    says(`expected an effect kind: one of ${EFFECT_KINDS.join(', ')}`),
  ),
);

const repairSchema = z.preprocess(
  kindShorthand,
  z.discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('none') }),
      z.strictObject({ kind: z.literal('fixed'), seconds: positiveSeconds }),
      z.strictObject({ kind: z.literal('exponential'), meanS: positiveSeconds }),
      z.strictObject({ kind: z.literal('lognormal'), medianS: positiveSeconds, sigma: nonNegativeNumber }),
    ],
    says(`expected a repair kind: one of ${REPAIR_KINDS.join(', ')}`),
  ),
);

const scopeSchema = z.enum(SCOPES, says(`expected one of ${SCOPES.join(', ')}`));
const categorySchema = z.enum(CATEGORIES, says(`expected one of ${CATEGORIES.join(', ')}`));
const exitSchema = z.enum(EXIT_CLASSES, says(`expected one of ${EXIT_CLASSES.join(', ')}`));

/** A problem with a whole fault type (rates, scope, effect and repair taken together), at a path inside the type. */
interface TypeProblem {
  readonly path: YamlPath;
  readonly message: string;
}

/** The first inconsistency of a fault type, or null: both rates > 0, effect vs scope, effect vs repair. */
function typeProblem(type: FaultType): TypeProblem | null {
  if (type.ratePerGpuDay > 0 && type.ratePerNodeDay > 0) {
    return { path: ['ratePerNodeDay'], message: 'give a rate per GPU-day or per node-day, not both' };
  }
  const { effect, scope } = type;
  if (effect.kind === 'gpu-down' && scope !== 'gpu') return { path: ['scope'], message: `effect gpu-down needs scope gpu (got ${scope})` };
  if (effect.kind === 'node-down' && scope !== 'node') return { path: ['scope'], message: `effect node-down needs scope node (got ${scope})` };
  if (effect.kind === 'network-down' && scope !== 'link' && scope !== 'node') {
    return { path: ['scope'], message: `effect network-down needs scope link or node (got ${scope})` };
  }
  if (effect.kind === 'slowdown' && type.foundByNodeCheck !== nodeCheckFindsSlowdown(effect.factor)) {
    const message = type.foundByNodeCheck
      ? `a slowdown to ${effect.factor} leaves the node check at ${NODE_CHECK_STRAGGLER_FACTOR}x the median or less, which it does not flag (> ${NODE_CHECK_STRAGGLER_FACTOR}x): expected foundByNodeCheck false`
      : `a slowdown to ${effect.factor} makes the node check take over ${NODE_CHECK_STRAGGLER_FACTOR}x the median, which it flags: expected foundByNodeCheck true`;
    return { path: ['foundByNodeCheck'], message };
  }
  const takesHardwareDown = effect.kind !== 'crash' && effect.kind !== 'hang' && effect.kind !== 'silent-corruption';
  if (takesHardwareDown && type.repair.kind === 'none') {
    return { path: ['repair'], message: `effect ${effect.kind} lasts until repaired: expected a repair time, not none` };
  }
  if (!takesHardwareDown && type.repair.kind !== 'none') {
    return { path: ['repair'], message: `effect ${effect.kind} takes no hardware down: expected repair none` };
  }
  return null;
}

const faultTypeSchema = z
  .strictObject(
    {
      name: nameSchema,
      xid: z.int(says('expected an Xid (a non-negative integer) or null')).min(0, says('expected an Xid (a non-negative integer) or null')).nullable().default(null),
      description: textSchema.default(''),
      ratePerGpuDay: rateSchema.optional(),
      ratePerNodeDay: rateSchema.optional(),
      scope: scopeSchema,
      effect: effectSchema,
      foundByNodeCheck: z.boolean(says('expected true or false')),
      repair: repairSchema,
      category: categorySchema,
      exit: exitSchema.optional(),
    },
    says('expected a mapping (a fault type)'),
  )
  .transform((doc, ctx): FaultType => {
    if (doc.ratePerGpuDay === undefined && doc.ratePerNodeDay === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs ratePerGpuDay or ratePerNodeDay' });
      return z.NEVER;
    }
    if (doc.ratePerGpuDay !== undefined && doc.ratePerNodeDay !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['ratePerNodeDay'], message: 'give ratePerGpuDay or ratePerNodeDay, not both' });
      return z.NEVER;
    }
    const type: FaultType = { ...doc, ratePerGpuDay: doc.ratePerGpuDay ?? 0, ratePerNodeDay: doc.ratePerNodeDay ?? 0 };
    const problem = typeProblem(type);
    if (problem) {
      ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
      return z.NEVER;
    }
    return type;
  });

const catalogSchema = z
  .strictObject(
    {
      name: nameSchema.optional(),
      description: textSchema.default(''),
      source: textSchema.default(''),
      types: z.array(faultTypeSchema, says('expected a list of fault types')),
    },
    says('expected a mapping (a fault catalog) at the top level'),
  )
  .superRefine((catalog, ctx) => {
    const first = new Map<string, number>();
    catalog.types.forEach((type, index) => {
      const earlier = first.get(type.name);
      if (earlier === undefined) first.set(type.name, index);
      else ctx.addIssue({ code: 'custom', path: ['types', index, 'name'], message: `duplicate name "${type.name}" (also types[${earlier}])` });
    });
  });

/**
 * One entry of `faults.overrides`: fields that replace the named fault type's. Giving
 * ratePerGpuDay sets ratePerNodeDay to 0 and vice versa (the rate moves to that basis).
 * Effects and repairs may be written as a bare kind (`effect: crash`, `repair: none`);
 * repair durations as seconds or strings like "10m".
 */
export const faultOverrideSchema = z
  .strictObject(
    {
      ratePerGpuDay: rateSchema.optional(),
      ratePerNodeDay: rateSchema.optional(),
      scope: scopeSchema.optional(),
      effect: effectSchema.optional(),
      foundByNodeCheck: z.boolean(says('expected true or false')).optional(),
      repair: repairSchema.optional(),
      category: categorySchema.optional(),
      exit: exitSchema.optional(),
    },
    says('expected a mapping of fields to replace (ratePerGpuDay, ratePerNodeDay, scope, effect, foundByNodeCheck, repair, category, exit)'),
  )
  .superRefine((override, ctx) => {
    if (override.ratePerGpuDay !== undefined && override.ratePerNodeDay !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['ratePerNodeDay'], message: 'give ratePerGpuDay or ratePerNodeDay, not both' });
    }
  });

/**
 * An override as a scenario writes it, e.g. `{ratePerGpuDay: 0.001, repair: {kind: fixed, seconds: 3600}}`
 * (what `faultOverrideSchema` accepts, less YAML-only conveniences like "10m" durations).
 */
export interface FaultTypeOverride {
  /** Replaces the rate and moves it to per-GPU-day (ratePerNodeDay becomes 0). */
  readonly ratePerGpuDay?: number;
  /** Replaces the rate and moves it to per-node-day (ratePerGpuDay becomes 0). */
  readonly ratePerNodeDay?: number;
  /** Replaces the scope. */
  readonly scope?: FaultScope;
  /** Replaces the effect; a bare kind for effects without parameters. */
  readonly effect?: FaultEffect | Exclude<FaultEffect['kind'], 'slowdown'>;
  /** Replaces whether DLRover's node check finds it. */
  readonly foundByNodeCheck?: boolean;
  /** Replaces the repair time; 'none' for `{kind: none}`. */
  readonly repair?: RepairTime | 'none';
  /** Replaces the category. */
  readonly category?: FaultCategory;
  /** Replaces the exit class. */
  readonly exit?: ExitClass;
}


/** Names of the shipped catalogs (files in src/faults/catalogs/), sorted. */
export function catalogNames(): string[] {
  return readdirSync(CATALOGS_DIR)
    .filter((file) => extname(file) === '.yaml')
    .map((file) => basename(file, '.yaml'))
    .sort();
}

/**
 * A shipped catalog by name. An unknown name is a ConfigError (with an empty `where`: the caller
 * knows the YAML path) listing the known names.
 */
export function loadCatalog(name: string): FaultCatalog {
  const names = catalogNames();
  if (!names.includes(name)) {
    throw new ConfigError('', `unknown fault catalog "${name}"; known catalogs: ${names.join(', ')}`);
  }
  const file = join(CATALOGS_DIR, `${name}.yaml`);
  const catalog = loadCatalogFile(file);
  if (catalog.name !== name) throw new ConfigError(`${file}: name`, `expected "${name}" (the file's name), got "${catalog.name}"`);
  return catalog;
}

/**
 * A catalog from a YAML file (the shipped format). Problems are ConfigErrors located as
 * `file:line: types[2].ratePerGpuDay: reason`. The name defaults to the file's base name.
 */
export function loadCatalogFile(file: string): FaultCatalog {
  const text = readYamlText(file, 'fault catalog file');
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'silent' });
  // A warning (an unknown tag, an unsupported YAML version) is as much a problem as an error, as in a scenario.
  const syntaxError = document.errors[0] ?? document.warnings[0];
  if (syntaxError) {
    throw new ConfigError(`${file}:${lineCounter.linePos(syntaxError.pos[0]).line}`, firstLine(syntaxError.message));
  }
  let raw: unknown;
  try {
    raw = document.toJS();
  } catch (error) {
    throw new ConfigError(file, firstLine(error instanceof Error ? error.message : String(error)));
  }
  const result = catalogSchema.safeParse(raw, { error: yamlErrorMap });
  if (!result.success) {
    const { path, message, unknownKey } = firstIssue(result.error);
    const line = lineOf(document, lineCounter, unknownKey === undefined ? path : [...path, unknownKey], true);
    const shown = formatYamlPath(path);
    const where = line === null ? file : `${file}:${line}`;
    throw new ConfigError(shown === '' ? where : `${where}: ${shown}`, message);
  }
  const doc = result.data;
  return {
    name: doc.name ?? basename(file, extname(file)),
    description: doc.description,
    source: doc.source,
    types: doc.types,
  };
}

/**
 * The catalog with `faults.overrides` applied (each value validated with `faultOverrideSchema`),
 * then every rate (overridden ones too) multiplied by `scale` (≥ 0; 0 turns rate faults off).
 * An unknown name is a ConfigError naming it and listing the catalog's names; other problems are
 * ConfigErrors whose `where` is the path inside the overrides mapping ("xid-79-gpu-fell-off-bus.repair").
 */
export function scaledCatalog(
  catalog: FaultCatalog,
  scale: number,
  overrides: Readonly<Record<string, FaultTypeOverride | unknown>> = {},
): FaultCatalog {
  if (!(Number.isFinite(scale) && scale >= 0)) throw new ConfigError('scale', `expected a number ≥ 0, got ${scale}`);
  const known = catalog.types.map((type) => type.name);
  for (const name of Object.keys(overrides)) {
    if (!known.includes(name)) {
      const list = known.length > 0 ? known.join(', ') : '(none)';
      throw new ConfigError('', `unknown fault type "${name}"; fault types of catalog ${catalog.name}: ${list}`);
    }
  }
  const types = catalog.types.map((type): FaultType => {
    const raw = overrides[type.name];
    const overridden = raw === undefined ? type : applyOverride(type, raw);
    return { ...overridden, ratePerGpuDay: overridden.ratePerGpuDay * scale, ratePerNodeDay: overridden.ratePerNodeDay * scale };
  });
  return { ...catalog, types };
}

/** The fault type with one validated override applied; ConfigError at `name.field` when invalid. */
function applyOverride(type: FaultType, raw: unknown): FaultType {
  const result = faultOverrideSchema.safeParse(raw, { error: yamlErrorMap });
  if (!result.success) {
    const { path, message } = firstIssue(result.error);
    throw new ConfigError(formatYamlPath([type.name, ...path]), message);
  }
  const { ratePerGpuDay, ratePerNodeDay, scope, effect, foundByNodeCheck, repair, category, exit } = result.data;
  const next: FaultType = {
    ...type,
    ...(ratePerGpuDay !== undefined && { ratePerGpuDay, ratePerNodeDay: 0 }),
    ...(ratePerNodeDay !== undefined && { ratePerGpuDay: 0, ratePerNodeDay }),
    ...(scope !== undefined && { scope }),
    ...(effect !== undefined && { effect }),
    ...(foundByNodeCheck !== undefined && { foundByNodeCheck }),
    // A new slowdown factor without a flag: found exactly when the node check flags that factor.
    ...(foundByNodeCheck === undefined && effect?.kind === 'slowdown' && { foundByNodeCheck: nodeCheckFindsSlowdown(effect.factor) }),
    ...(repair !== undefined && { repair }),
    ...(category !== undefined && { category }),
    ...(exit !== undefined && { exit }),
  };
  const problem = typeProblem(next);
  if (problem) throw new ConfigError(formatYamlPath([type.name, ...problem.path]), `${problem.message} (after overrides)`);
  return next;
}

/** Sum of all rates in faults per GPU-day, node-day rates divided by `gpusPerNode` (> 0). */
export function totalRatePerGpuDay(catalog: FaultCatalog, gpusPerNode: number): number {
  if (!(Number.isFinite(gpusPerNode) && gpusPerNode > 0)) throw new InvariantError(`gpusPerNode must be > 0, got ${gpusPerNode}`);
  let total = 0;
  for (const type of catalog.types) total += type.ratePerGpuDay + type.ratePerNodeDay / gpusPerNode;
  return total;
}


/** Mean of a repair-time distribution in seconds (0 for none): a lognormal's mean is its median × exp(σ²/2). */
export function meanRepairS(repair: RepairTime): number {
  switch (repair.kind) {
    case 'none':
      return 0;
    case 'fixed':
      return repair.seconds;
    case 'exponential':
      return repair.meanS;
    case 'lognormal':
      return repair.medianS * Math.exp((repair.sigma * repair.sigma) / 2);
    default:
      return assertNever(repair);
  }
}

/**
 * Long-run share of a cluster's GPUs out of service under a catalog: outages of a node (node or
 * network down) and of one GPU arrive as Poisson processes and last their repair times, so the
 * outages active at once are Poisson with mean rate × mean repair (an M/G/∞ system) and a GPU is
 * usable only when none of its node's nor its own is. Hidden faults found late count from the fault.
 */
export function expectedDownShare(catalog: FaultCatalog, gpusPerNode: number): number {
  let nodeOutages = 0;
  let gpuOutages = 0;
  for (const type of catalog.types) {
    const effect = type.effect.kind;
    const days = meanRepairS(type.repair) / 86_400;
    const perNodeDay = type.ratePerNodeDay + type.ratePerGpuDay * gpusPerNode;
    if (effect === 'node-down' || effect === 'network-down') nodeOutages += perNodeDay * days;
    else if (effect === 'gpu-down') gpuOutages += (perNodeDay / Math.max(1, gpusPerNode)) * days;
  }
  return 1 - Math.exp(-(nodeOutages + gpuOutages));
}
