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

/** What a scenario tells its scheduling policy. */
export interface SchedulingSetup {
  /** Weights of users (the scenario's `users`); a user not listed weighs 1. */
  readonly userWeights?: Readonly<Record<string, number>>;
}

/** Scheduling policies by id: one line each. */
export const schedulingPolicies: Readonly<Record<string, (setup?: SchedulingSetup) => SchedulingPolicy>> = {
  fifo: createFifo,
  optimus: () => createOptimus(),
  sjf: createSjf,
  drf: (setup) => createDrf({ userWeights: setup?.userWeights ?? {} }),
  'drf-dynamic': (setup) => createDrfDynamic({ userWeights: setup?.userWeights ?? {} }),
  tetris: createTetris,
  edl: () => createEdl(),
  tiresias: () => createTiresias(),
};

/** Placement policies by id: one line each. */
export const placementPolicies: Readonly<Record<string, () => PlacementPolicy>> = {
  pack: () => packPlacement,
  spread: () => spreadPlacement,
  topology: () => topologyPlacement,
};

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
export const recoveryPolicies: Readonly<Record<string, RecoveryEntry>> = {
  none: { defaultTimesS: {}, defaultCounts: {}, create: createNoRecovery },
  manual: { defaultTimesS: { ...MANUAL_RECOVERY }, defaultCounts: {}, create: (t) => createManualRecovery({ ...MANUAL_RECOVERY, ...t }) },
  'torch-elastic': { defaultTimesS: { ...TORCH_ELASTIC }, defaultCounts: {}, create: (t) => createTorchElastic({ ...TORCH_ELASTIC, ...t }) },
  dlrover: { defaultTimesS: { ...DLROVER_TIMES }, defaultCounts: { ...DLROVER_COUNTS }, create: (t) => createDlrover({ ...DLROVER, ...t }) },
};

/** Auto-scaling policies by id ("none": jobs keep their requested size). */
export const autoscalePolicies: readonly string[] = ['none'];
