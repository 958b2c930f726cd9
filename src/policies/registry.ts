import { z } from 'zod';
import type { SimParams } from '../model/sim-params.js';
import { brainHistoryOf } from './autoscale/brain-history.js';
import { createDlroverBrain } from './autoscale/dlrover-brain.js';
import { createNoAutoscale } from './autoscale/none.js';
import type { AutoscalePolicy } from './autoscale/types.js';
import type { HistoryView } from './autoscale/history-view.js';
import { createCoupledData } from './data/coupled.js';
import { createGoldMiner } from './data/goldminer.js';
import type { DataPolicy } from './data/types.js';
import { says } from '../io/yaml-errors.js';
import { durationOption, positiveOption, shareOption } from './options.js';
import { firstFitPlacement } from './placement/first-fit.js';
import { packPlacement } from './placement/pack.js';
import { spreadPlacement } from './placement/spread.js';
import { topologyPlacement } from './placement/topology.js';
import { createDrf } from './scheduling/drf.js';
import { createDrfDynamic } from './scheduling/drf-dynamic.js';
import { createFifo } from './scheduling/fifo.js';
import { createOptimus } from './scheduling/optimus.js';
import { createSjf } from './scheduling/sjf.js';
import { createTetris } from './scheduling/tetris.js';
import { createEdl } from './scheduling/edl.js';
import { createTiresias } from './scheduling/tiresias.js';
import { createDlrover, DLROVER, DLROVER_COUNTS, DLROVER_TIMES } from './recovery/dlrover.js';
import { createManualRecovery, MANUAL_RECOVERY } from './recovery/manual.js';
import { createTorchElastic, TORCH_ELASTIC } from './recovery/torch-elastic.js';
import { createNoRecovery } from './recovery/none.js';
import type { RecoveryPolicy } from './recovery/types.js';
import type { PlacementPolicy, SchedulingPolicy } from './types.js';

/** What every policy factory may read: the simulation's parameters and the scenario's settings. */
export interface PolicyHandle {
  readonly params: SimParams;
  /** Weights of users (the scenario's `users`); a user not listed weighs 1. */
  readonly userWeights: Readonly<Record<string, number>>;
  /** The run's seed, for a policy that draws at random (from its own stream). */
  readonly seed: number;
  /** The history of finished jobs (the scenario's `history`), as it was when the run started; absent without one. */
  readonly history?: HistoryView;
}

/**
 * A registered policy: how to make one for a run from its options (a scenario's
 * `policies.<kind>: {name, options}`, checked against `options` before the run; none when absent)
 * and the run's handle.
 */
export interface PolicyEntry<P> {
  /** The options it takes; a scenario naming others is an error at their YAML path. */
  readonly options?: z.ZodType<Readonly<Record<string, unknown>>>;
  create(handle: PolicyHandle, options: Readonly<Record<string, unknown>>): P;
}

/** An entry whose options are checked by `schema` and handed to `create` typed. */
function withOptions<P, O extends Readonly<Record<string, unknown>>>(schema: z.ZodType<O>, create: (handle: PolicyHandle, options: O) => P): PolicyEntry<P> {
  return { options: schema as z.ZodType<Readonly<Record<string, unknown>>>, create: (handle, options) => create(handle, options as O) };
}

/** An entry that takes no options. */
function plain<P>(create: (handle: PolicyHandle) => P): PolicyEntry<P> {
  return { create: (handle) => create(handle) };
}

/** Scheduling policies by id: one line each. */
export const schedulingPolicies = {
  fifo: withOptions(z.strictObject({ backfill: z.boolean().optional() }), (_handle, o) => createFifo(o.backfill === undefined ? {} : { backfill: o.backfill })),
  'fifo-backfill': plain(() => createFifo({ backfill: true })),
  optimus: withOptions(z.strictObject({ tick: durationOption.optional() }), (handle, o) => createOptimus({ resizePauseS: handle.params.resizePauseS, ...(o.tick === undefined ? {} : { tickS: o.tick }) })),
  sjf: plain(() => createSjf()),
  drf: plain((handle) => createDrf({ userWeights: handle.userWeights })),
  'drf-dynamic': withOptions(z.strictObject({ interval: durationOption.optional() }), (handle, o) =>
    createDrfDynamic({ userWeights: handle.userWeights, ...(o.interval === undefined ? {} : { intervalS: o.interval }) }),
  ),
  tetris: withOptions(z.strictObject({ candidateMachines: z.int(says('expected a whole number of machines, at least 1')).min(1, says('expected a whole number of machines, at least 1')).optional() }), (_handle, o) =>
    createTetris(o.candidateMachines === undefined ? {} : { candidateMachines: o.candidateMachines }),
  ),
  edl: withOptions(z.strictObject({ maxLoad: shareOption.optional(), tick: durationOption.optional() }), (_handle, o) =>
    createEdl({ ...(o.maxLoad === undefined ? {} : { maxLoad: o.maxLoad }), ...(o.tick === undefined ? {} : { tickS: o.tick }) }),
  ),
  tiresias: withOptions(z.strictObject({ thresholdsGpuS: z.array(positiveOption).optional(), promoteKnob: positiveOption.optional(), tick: durationOption.optional() }), (_handle, o) =>
    createTiresias({
      ...(o.thresholdsGpuS === undefined ? {} : { thresholdsGpuS: o.thresholdsGpuS }),
      ...(o.promoteKnob === undefined ? {} : { promoteKnob: o.promoteKnob }),
      ...(o.tick === undefined ? {} : { tickS: o.tick }),
    }),
  ),
} satisfies Record<string, PolicyEntry<SchedulingPolicy>>;

/** Placement policies by id: one line each. */
export const placementPolicies = {
  pack: plain(() => packPlacement),
  spread: plain(() => spreadPlacement),
  topology: plain(() => topologyPlacement),
  'first-fit': plain(() => firstFitPlacement),
} satisfies Record<string, PolicyEntry<PlacementPolicy>>;

/**
 * A recovery policy's factory, its default times (seconds, names ending in S) and its default
 * counts (whole numbers, e.g. maxRelaunches), which a scenario's `recoveryTimes` may replace.
 */
export interface RecoveryEntry {
  readonly defaultTimesS: Readonly<Record<string, number>>;
  readonly defaultCounts: Readonly<Record<string, number>>;
  create(settings: Readonly<Record<string, number>>): RecoveryPolicy;
}

/** Recovery policies by id: one line each. */
export const recoveryPolicies = {
  none: { defaultTimesS: {}, defaultCounts: {}, create: createNoRecovery },
  manual: { defaultTimesS: { ...MANUAL_RECOVERY }, defaultCounts: {}, create: (t) => createManualRecovery({ ...MANUAL_RECOVERY, ...t }) },
  'torch-elastic': { defaultTimesS: { ...TORCH_ELASTIC }, defaultCounts: {}, create: (t) => createTorchElastic({ ...TORCH_ELASTIC, ...t }) },
  dlrover: { defaultTimesS: { ...DLROVER_TIMES }, defaultCounts: { ...DLROVER_COUNTS }, create: (t) => createDlrover({ ...DLROVER, ...t }) },
} satisfies Record<string, RecoveryEntry>;

/** Auto-scaling policies by id: one line each ("none": jobs keep their size). */
export const autoscalePolicies = {
  none: plain(() => createNoAutoscale()),
  'dlrover-brain': withOptions(
    z.strictObject({ mode: z.enum(['single-job', 'cluster']).optional(), check: durationOption.optional(), planInterval: durationOption.optional(), estimateAfter: durationOption.optional(), psChangeInterval: durationOption.optional() }),
    (handle, o) =>
      createDlroverBrain({
        ...(o.mode === undefined ? {} : { mode: o.mode }),
        ...(handle.history === undefined ? {} : { history: brainHistoryOf(handle.history) }),
        ...(o.check === undefined ? {} : { checkS: o.check }),
        ...(o.planInterval === undefined ? {} : { planIntervalS: o.planInterval }),
        ...(o.estimateAfter === undefined ? {} : { estimateAfterS: o.estimateAfter }),
        ...(o.psChangeInterval === undefined ? {} : { psChangeIntervalS: o.psChangeInterval }),
      }),
  ),
} satisfies Record<string, PolicyEntry<AutoscalePolicy>>;

/** Data-worker policies by id: one line each ("coupled": no data workers, preprocessing on the training tasks' CPUs). */
export const dataPolicies = {
  coupled: withOptions(z.strictObject({ maxCpuCoresPerGpu: positiveOption.optional() }), (_handle, o) =>
    createCoupledData(o.maxCpuCoresPerGpu === undefined ? {} : { maxCpuMilliPerGpu: Math.round(o.maxCpuCoresPerGpu * 1000) }),
  ),
  goldminer: withOptions(
    z.strictObject({ tick: durationOption.optional(), workerCpuCores: positiveOption.optional(), workerMemGiB: positiveOption.optional(), trainingCpuCoresPerGpu: positiveOption.optional() }),
    (_handle, o) =>
      createGoldMiner({
        ...(o.tick === undefined ? {} : { tickS: o.tick }),
        ...(o.workerCpuCores === undefined ? {} : { workerCpuMilli: Math.round(o.workerCpuCores * 1000) }),
        ...(o.workerMemGiB === undefined ? {} : { workerMemMiB: Math.round(o.workerMemGiB * 1024) }),
        ...(o.trainingCpuCoresPerGpu === undefined ? {} : { trainingCpuMilliPerGpu: Math.round(o.trainingCpuCoresPerGpu * 1000) }),
      }),
  ),
} satisfies Record<string, PolicyEntry<DataPolicy>>;

/** Ids of the shipped policies of each kind, checked at compile time where presets name them. */
export type SchedulingId = keyof typeof schedulingPolicies;
export type PlacementId = keyof typeof placementPolicies;
export type RecoveryId = keyof typeof recoveryPolicies;
export type AutoscaleId = keyof typeof autoscalePolicies;
export type DataId = keyof typeof dataPolicies;

/** The policy kinds a stack is made of, each chosen by id. */
export type PolicyKind = 'scheduling' | 'placement' | 'recovery' | 'autoscale' | 'data';

/** What each kind's registry holds. */
interface EntryByKind {
  readonly scheduling: PolicyEntry<SchedulingPolicy>;
  readonly placement: PolicyEntry<PlacementPolicy>;
  readonly recovery: RecoveryEntry;
  readonly autoscale: PolicyEntry<AutoscalePolicy>;
  readonly data: PolicyEntry<DataPolicy>;
}

const shipped: { readonly [K in PolicyKind]: Readonly<Record<string, EntryByKind[K]>> } = {
  scheduling: schedulingPolicies,
  placement: placementPolicies,
  recovery: recoveryPolicies,
  autoscale: autoscalePolicies,
  data: dataPolicies,
};

/** Policies registered at run time (tests, embedding programs), by kind. */
const added: { readonly [K in PolicyKind]: Map<string, EntryByKind[K]> } = {
  scheduling: new Map(),
  placement: new Map(),
  recovery: new Map(),
  autoscale: new Map(),
  data: new Map(),
};

/**
 * Registers a policy of `kind` under `id` for this process, so that a scenario's `policies:` may
 * name it (a program embedding dlsim, or a test). A shipped id cannot be replaced.
 */
export function registerPolicy<K extends PolicyKind>(kind: K, id: string, entry: EntryByKind[K]): void {
  if (Object.hasOwn(shipped[kind], id) || added[kind].has(id)) throw new Error(`a ${kind} policy "${id}" is already registered`);
  added[kind].set(id, entry);
}

/** The entry registered for `kind` under `id`, or undefined (never an inherited name like "constructor"). */
export function policyEntry<K extends PolicyKind>(kind: K, id: string): EntryByKind[K] | undefined {
  const table = shipped[kind] as Readonly<Record<string, EntryByKind[K]>>;
  return Object.hasOwn(table, id) ? table[id] : added[kind].get(id);
}

/** Ids of every policy of `kind`: the shipped ones in declaration order, then those registered. */
export function policyIds(kind: PolicyKind): string[] {
  return [...Object.keys(shipped[kind]), ...added[kind].keys()];
}
