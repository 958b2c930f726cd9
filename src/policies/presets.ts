import { InvariantError } from '../errors.js';
import type { AutoscaleId, DataId, PlacementId, RecoveryId, SchedulingId } from './registry.js';

/** A named stack of policies, one per kind, referred to by registry ids (checked at compile time). */
export interface PolicyStack {
  readonly scheduling: SchedulingId;
  readonly placement: PlacementId;
  readonly recovery: RecoveryId;
  readonly autoscale: AutoscaleId;
  /** Data-worker policy; absent: DEFAULT_DATA_POLICY. */
  readonly data?: DataId;
  /** One line saying what the stack models. */
  readonly description: string;
}

/** The data policy of a stack that names none: preprocessing on the training tasks' own CPUs. */
export const DEFAULT_DATA_POLICY: DataId = 'coupled';

/** Presets by name: what `--policy` and a scenario's `policy` choose from. */
export const presets: Readonly<Record<string, PolicyStack>> = {
  fifo: {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'strict arrival order, gang start, packed placement, manual recovery, no auto-scaling',
  },
  'fifo-backfill': {
    scheduling: 'fifo-backfill',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'arrival order with backfilling: jobs that do not fit are skipped and later ones that fit start (the Alibaba PAI simulator\'s FIFO)',
  },
  dlrover: {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'dlrover',
    autoscale: 'dlrover-brain',
    description: 'fifo + pack with DLRover: fault tolerance (node check, pod replacement or scale-down to the node unit, flash checkpoints) and the brain auto-scaling elastic PS jobs',
  },
  static: {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'dlrover',
    autoscale: 'none',
    description: 'dlrover without auto-scaling: jobs keep the sizes their users gave (the baseline the brain is compared with)',
  },
  'torch-elastic': {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'torch-elastic',
    autoscale: 'none',
    description: 'fifo + pack with Torch Elastic: restart on membership change, pod replacement when capacity allows, store on rank 0',
  },
  optimus: {
    scheduling: 'optimus',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'Optimus: learned loss and speed models, marginal-gain PS/worker allocation every 10 min, even spread on the fewest servers',
  },
  sjf: {
    scheduling: 'sjf',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'shortest oracle remaining time first, gang start, skips jobs that do not fit (backfilling), packed placement',
  },
  drf: {
    scheduling: 'drf',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'weighted dominant resource fairness per user by progressive filling at admission; allocations kept while jobs run; packed placement',
  },
  'drf-dynamic': {
    scheduling: 'drf-dynamic',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'weighted DRF per user re-run every 10 min: elastic jobs shrink or grow to their fair share by resizes; packed placement',
  },
  tetris: {
    scheduling: 'tetris',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'Tetris: best resource alignment minus a shortest-remaining-work term (oracle); gangs placed by pack',
  },
  'fifo-spread': {
    scheduling: 'fifo',
    placement: 'spread',
    recovery: 'manual',
    autoscale: 'none',
    description: 'strict arrival order, gang start, worst-fit (spread) placement, to compare with fifo (pack)',
  },
  'fifo-topology': {
    scheduling: 'fifo',
    placement: 'topology',
    recovery: 'manual',
    autoscale: 'none',
    description: 'strict arrival order, gang start, rack-aware placement keeping all-reduce jobs in one rack',
  },
  edl: {
    scheduling: 'edl',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'PaddlePaddle EDL: elastic trainers grow least-fulfilled first up to 97% load, new jobs start at their min by shrinking the most fulfilled',
  },
  tiresias: {
    scheduling: 'tiresias',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    description: 'Tiresias 2D-LAS: least attained GPU service first in 2 queues (3,200 GPU-s), preempting lower queues, FIFO within a queue',
  },
  goldminer: {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'manual',
    autoscale: 'none',
    data: 'goldminer',
    description: 'fifo + pack with GoldMiner (dlsim\'s reconstruction): training workers keep a small CPU share, elastic data workers preprocess input on any node\'s idle CPUs',
  },
};

/** Names of all presets, in declaration order. */
export function presetNames(): string[] {
  return Object.keys(presets);
}

/** The stack of a preset; the name must already be validated (unknown names are a bug here). */
export function presetStack(name: string): PolicyStack {
  const stack = Object.hasOwn(presets, name) ? presets[name] : undefined;
  if (!stack) throw new InvariantError(`unknown preset ${name}`);
  return stack;
}
