/**
 * Upper bounds on every count, size and time dlsim reads from a scenario, a trace or the command
 * line. Each is far above what any published cluster or trace holds, and low enough that the
 * simulator's arrays and clock stay small and exact; a value beyond one is an input error, reported
 * where it was read.
 */

/** Seconds in 100 years (365.25-day years): submit times, durations and horizons stay below it. */
export const MAX_TIME_S = 100 * 365.25 * 86_400;

/** GPUs in one node (and so in one replica): DGX/HGX servers hold 8-16, an NVL72 rack seen as one node 72. */
export const MAX_GPUS_PER_NODE = 128;

/** CPU cores in one node or replica: the largest 8-socket servers have under 2,048 hardware threads. */
export const MAX_CPU_CORES = 4096;

/** Memory of one node or replica in GiB (64 TiB): the largest shared-memory servers hold 32-48 TiB. */
export const MAX_MEM_GIB = 65_536;

/** Nodes in a group and in the whole cluster: the largest AI clusters announced have ~100,000-200,000 GPUs, i.e. under 25,000 8-GPU nodes. */
export const MAX_NODES = 100_000;

/** Replicas of one role of a job: the largest published training jobs use ~16,000-100,000 GPUs. */
export const MAX_REPLICAS = 100_000;

/** Training steps of one job: keeps a step's share of progress far above double precision (2^53 ≈ 9e15). */
export const MAX_STEPS = 1e12;

/** Jobs in a generated workload: the largest public trace (Alibaba PAI 2020) has ~1.06 million. */
export const MAX_JOBS = 10_000_000;

/**
 * Expected faults per simulated day over the whole cluster (rates × installed hardware × scale):
 * more than one a second, so that no job could run between faults and a week would be millions of events.
 */
export const MAX_FAULTS_PER_DAY = 100_000;
