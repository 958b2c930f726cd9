import type { FaultOccurrence } from '../faults/occurrence.js';
import type { JobRuntime } from './job-runtime.js';

/** Every kind of event the simulation handles (one handler per kind in simulation.ts). */
export type SimEvent =
  /** The job at this index of the scenario's job list is submitted. */
  | { readonly kind: 'job-arrival'; readonly jobIndex: number }
  /** A running job reaches its last step; stale when the job's epoch moved on. */
  | { readonly kind: 'job-finish'; readonly job: JobRuntime; readonly epoch: number }
  /** A running job's input queue runs dry: from now it trains at its input's supply; stale when the job's epoch moved on. */
  | { readonly kind: 'input-dry'; readonly job: JobRuntime; readonly epoch: number }
  /** A paused job (resize, restart) resumes training; stale unless the job is still in that same pause (rate changes do not touch it). */
  | { readonly kind: 'job-resume'; readonly job: JobRuntime; readonly pause: number }
  /** A running job's speed is multiplied by `factor` from now on (a straggler, thermal slowdown, …). */
  | { readonly kind: 'job-speed-factor'; readonly job: JobRuntime; readonly factor: number }
  /** A periodic policy of this kind asks to be consulted. */
  | { readonly kind: 'policy-tick'; readonly policy: 'scheduling' | 'autoscale' | 'data' }
  /** The jobs policies listen to are sampled. */
  | { readonly kind: 'sample' }
  /** A fault strikes; `replayIndex` is its index in the replayed trace, null for a rate-injected fault. */
  | { readonly kind: 'fault'; readonly occurrence: FaultOccurrence; readonly replayIndex: number | null }
  /** Broken hardware the scheduler could not see is located and taken out of service. */
  | { readonly kind: 'isolate'; readonly occurrence: FaultOccurrence }
  /** A job starts training on broken hardware and crashes; stale when the job's epoch moved on. */
  | { readonly kind: 'job-broken'; readonly job: JobRuntime; readonly epoch: number }
  /** The hardware a fault took down (or slowed) is repaired. */
  | { readonly kind: 'repair'; readonly occurrence: FaultOccurrence }
  /** A running job starts a checkpoint save; stale when the job's epoch moved on. */
  | { readonly kind: 'checkpoint'; readonly job: JobRuntime; readonly epoch: number }
  /** A checkpoint save completes; stale when the job's epoch moved on. */
  | { readonly kind: 'checkpoint-done'; readonly job: JobRuntime; readonly epoch: number }
  /** A crashed job is resubmitted (manual recovery noticed the failure). */
  | { readonly kind: 'job-resubmit'; readonly job: JobRuntime; readonly rescheduleS: number }
  /** A hung job's watchdog fires; stale unless the job is still in that same hang. */
  | { readonly kind: 'job-hang-timeout'; readonly job: JobRuntime; readonly hang: number }
  /** A pod short of memory is OOM-killed; stale unless the job's processes are still those of that start. */
  | { readonly kind: 'job-oom'; readonly job: JobRuntime; readonly trainingStart: number };
