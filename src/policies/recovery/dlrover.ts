import { exitClassOf } from '../../faults/catalog.js';
import type { Role } from '../../model/job-spec.js';
import { InPlaceRecovery } from './in-place.js';
import type { RecoveryPolicy } from './types.js';

/** Parameters of DLRover's fault tolerance (seed 001's table), in seconds. */
export interface DlroverOptions {
  /** A replacement pod on a healthy node (~2 min: one pod, images cached). */
  readonly replaceS: number;
  /** Automatic scale-down to a multiple of the node unit when no healthy node is free (~3 min). */
  readonly scaleDownS: number;
  /** Restarting processes after a software fault (no new pod). */
  readonly restartS: number;
  /** Flash checkpoint save: to memory, then storage (~1 min). */
  readonly checkpointSaveS: number;
  /** Checkpoint load after a restart (~4 min). */
  readonly checkpointLoadS: number;
  /**
   * Automatic detection (~5 min in the seed's table, for network, other hardware and software
   * faults alike): a crashed job pauses this long before its node check, and broken hardware no job
   * runs on is taken out of service after it.
   */
  readonly detectS: number;
  /** A node whose training stops reporting this long is declared failed (DLRover's heartbeat timeout, 600 s). */
  readonly heartbeatTimeoutS: number;
  /** Relaunches a pod's lineage may take (a count, not a duration; DLROVER_MAX_RELAUNCHES by default). */
  readonly maxRelaunches: number;
}

/** Relaunches a pod's lineage may take (DLRover's `max_relaunch_count`, default 3); the replacement inherits the count. */
export const DLROVER_MAX_RELAUNCHES = 3;

/** Default times of DLRover's fault tolerance, in seconds (REFERENCE §1). */
export const DLROVER_TIMES = { replaceS: 120, scaleDownS: 180, restartS: 0, checkpointSaveS: 60, checkpointLoadS: 240, detectS: 300, heartbeatTimeoutS: 600 } as const;

/** Default counts of DLRover's fault tolerance. */
export const DLROVER_COUNTS = { maxRelaunches: DLROVER_MAX_RELAUNCHES } as const;

/** Defaults of DLRover's fault tolerance (REFERENCE §1). */
export const DLROVER: DlroverOptions = { ...DLROVER_TIMES, ...DLROVER_COUNTS };

/** In-place process restarts DLRover's agent makes on a node before it gives up and its pod is relaunched (`--max-restarts`). */
export const DLROVER_MAX_RESTARTS = 3;

/** Memory at which DLRover stops relaunching OOM-killed pods (its MAX_MEMORY, 64 GiB), in MiB. */
export const DLROVER_MAX_MEMORY_MIB = 65_536;

/**
 * Memory DLRover gives a pod relaunched after an OOM kill, in MiB: twice the current (capped at
 * 64 GiB, except for PS pods), at least the requested, and at most 8 GiB more than the current.
 */
export function oomRelaunchMemMiB(role: Role, currentMiB: number, requestedMiB: number): number {
  const doubled = role === 'ps' ? currentMiB * 2 : Math.min(currentMiB * 2, DLROVER_MAX_MEMORY_MIB);
  const target = Math.max(doubled, requestedMiB);
  return currentMiB + Math.min(target - currentMiB, 8192);
}

/**
 * `dlrover`: DLRover's elastic fault tolerance (REFERENCE §1, seed 001). The job master detects a
 * failure automatically in ~5 min (a hang only at the heartbeat timeout); the node check (GEMM +
 * allgather in pairs, 1-3 min) runs on the job's live nodes (a dead one is lost untested) and
 * cordons faulty nodes and stragglers; their pods are replaced on healthy nodes (~2 min), or,
 * without free healthy nodes, the job scales down to a multiple of its node unit (~3 min) and
 * scales back up when capacity returns. A software fault only restarts the processes after a ~1 min
 * check. Checkpoints are flash checkpoints (save ~1 min, load ~4 min).
 *
 * Exit classes, as DLRover's job master treats them: a fatal exit (code 1/134) is not relaunched
 * and fails the job, except for all-reduce jobs, which DLRover always relaunches; hardware, killed
 * and unknown exits are relaunched (hardware ones on another node, the faulty one cordoned), each
 * pod's lineage at most `maxRelaunches` (3) times: past that, a worker is dropped for good (the job shrinks to its
 * node unit, or fails below its minimum) and a PS or chief pod fails the job. A node's agent
 * restarts crashed processes in place up to 3 times; the next crash there relaunches its pod. An
 * OOM-killed pod is relaunched with more memory (`oomRelaunchMemMiB`) until it has 64 GiB, after
 * which the job fails; in an all-reduce job it is not relaunched (the worker is dropped).
 */
export function createDlrover(options: DlroverOptions = DLROVER): RecoveryPolicy {
  const restartsByNode = new Map<string, number>();
  const checkpointCosts = { saveS: options.checkpointSaveS, loadS: options.checkpointLoadS };
  const recovery = new InPlaceRecovery(checkpointCosts);
  return {
    name: 'dlrover',
    checkpointCosts,
    hangTimeoutS: options.heartbeatTimeoutS,
    isolationDelayS: () => options.detectS,
    onCrash: (job, cause, context) => {
      const exit = cause.oom ? 'oom' : cause.fault ? exitClassOf(cause.fault) : 'unknown';
      if (exit === 'fatal' && job.request.kind !== 'allreduce') return { kind: 'fail', why: 'fatal exit: not relaunched' };
      const inPlace = {
        detectS: options.detectS,
        nodeCheck: true,
        replaceS: options.replaceS,
        scaleDownS: options.scaleDownS,
        restartS: options.restartS,
      };
      if (cause.oom && cause.faultNodeIndex !== null) {
        const relaunch = { ...inPlace, relaunchNodeIndices: [cause.faultNodeIndex] };
        // All-reduce jobs: no relaunch after an OOM (a lineage limit of 0 drops the pod).
        if (job.request.kind === 'allreduce') return recovery.plan(job, cause, context, { ...relaunch, maxRelaunchesPerPod: 0, relaunchMemMiB: null });
        if (cause.oom.memMiB >= DLROVER_MAX_MEMORY_MIB) return { kind: 'fail', why: 'OOM with 64 GiB: not relaunched' };
        const requestedMiB = job.request.roles.find((r) => r.role === cause.oom!.role)!.demand.memMiB;
        const relaunchMemMiB = oomRelaunchMemMiB(cause.oom.role, cause.oom.memMiB, requestedMiB);
        return recovery.plan(job, cause, context, { ...relaunch, maxRelaunchesPerPod: options.maxRelaunches, relaunchMemMiB });
      }
      const relaunchNodeIndices: number[] = [];
      if (!cause.hardwareLost && cause.faultNodeIndex !== null) {
        const key = `${job.request.id}:${cause.faultNodeIndex}`;
        const restarts = (restartsByNode.get(key) ?? 0) + 1;
        restartsByNode.set(key, restarts > DLROVER_MAX_RESTARTS ? 0 : restarts);
        if (restarts > DLROVER_MAX_RESTARTS) relaunchNodeIndices.push(cause.faultNodeIndex);
      }
      return recovery.plan(job, cause, context, {
        ...inPlace,
        relaunchNodeIndices,
        // A killed pod (137/143) is always relaunched; others while their lineage has relaunches left.
        maxRelaunchesPerPod: exit === 'killed' ? null : options.maxRelaunches,
        relaunchMemMiB: null,
      });
    },
    growBack: (context) => recovery.growBack(context),
  };
}
