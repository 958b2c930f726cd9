/** Why queued jobs wait: the reasons a scheduling policy gives for the jobs it keeps waiting (see WaitExplainer in types.ts). */
/**
 * Why a queued job waits, as the policy that kept it says:
 * - `not-chosen`: the policy gave no reason;
 * - `head-of-line`: blocked behind another job that waits ahead of it (strict order);
 * - `no-gpus`: the free GPUs of the types it allows are, in total, fewer than it needs;
 * - `fragmented`: enough GPUs are free in total, but no node can hold even one of its replicas' GPUs;
 * - `gang`: some of its replicas' GPUs could be placed, but not all of them together;
 * - `cpu-memory`: its replicas' GPUs could all be placed, but not with their CPU and memory;
 * - `priority`: it fits, but a job with a higher priority or a smaller share goes first;
 * - `preempted`: stopped and queued again to make room for another job (until a policy says otherwise).
 */
export const WAIT_REASONS = ['not-chosen', 'head-of-line', 'no-gpus', 'fragmented', 'gang', 'cpu-memory', 'priority', 'preempted'] as const;

/** One of WAIT_REASONS. */
export type WaitReason = (typeof WAIT_REASONS)[number];

/** The reasons a placement failure can have (see `WaitExplainer.unplaced`). */
export type CapacityReason = Extract<WaitReason, 'no-gpus' | 'fragmented' | 'gang' | 'cpu-memory'>;

