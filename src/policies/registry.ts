import { packPlacement } from './placement/pack.js';
import { spreadPlacement } from './placement/spread.js';
import { topologyPlacement } from './placement/topology.js';
import { createDrf } from './scheduling/drf.js';
import { createFifo } from './scheduling/fifo.js';
import { createOptimus } from './scheduling/optimus.js';
import { createSjf } from './scheduling/sjf.js';
import { createTetris } from './scheduling/tetris.js';
import { createEdl } from './scheduling/edl.js';
import { createTiresias } from './scheduling/tiresias.js';
import { createDlrover } from './recovery/dlrover.js';
import { createManualRecovery } from './recovery/manual.js';
import { createTorchElastic } from './recovery/torch-elastic.js';
import { createNoRecovery } from './recovery/none.js';
import type { RecoveryPolicy } from './recovery/types.js';
import type { PlacementPolicy, SchedulingPolicy } from './types.js';

/** Scheduling policies by id: one line each. */
export const schedulingPolicies: Readonly<Record<string, () => SchedulingPolicy>> = {
  fifo: createFifo,
  optimus: () => createOptimus(),
  sjf: createSjf,
  drf: () => createDrf({ growRunning: false }),
  'drf-elastic': () => createDrf({ growRunning: true }),
  tetris: createTetris,
  edl: createEdl,
  tiresias: createTiresias,
};

/** Placement policies by id: one line each. */
export const placementPolicies: Readonly<Record<string, () => PlacementPolicy>> = {
  pack: () => packPlacement,
  spread: () => spreadPlacement,
  topology: () => topologyPlacement,
};

/** Recovery policies by id: one line each. */
export const recoveryPolicies: Readonly<Record<string, () => RecoveryPolicy>> = {
  none: createNoRecovery,
  manual: () => createManualRecovery(),
  'torch-elastic': () => createTorchElastic(),
  dlrover: () => createDlrover(),
};

/** Auto-scaling policies by id ("none": jobs keep their requested size). */
export const autoscalePolicies: readonly string[] = ['none'];
