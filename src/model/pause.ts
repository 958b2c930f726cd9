/** What a paused job waits for; jobs.csv splits pause time by these. */
export type PauseKind = 'detecting' | 'rescheduling' | 'health-check' | 'starting' | 'loading' | 'resizing';

/** One step of a pause: its kind and length in seconds. Steps run one after another. */
export interface PauseStep {
  readonly kind: PauseKind;
  readonly seconds: number;
}

/** Pause kinds only recovery from a fault pays; a pause with one of them is recovery downtime as a whole. */
const RECOVERY_PAUSE_KINDS: ReadonlySet<PauseKind> = new Set<PauseKind>(['detecting', 'rescheduling', 'health-check', 'loading']);

/** True when a pause is recovery from a fault (it detects, reschedules, checks nodes or loads a checkpoint). */
export function isRecoveryPause(steps: readonly PauseStep[]): boolean {
  return steps.some((step) => RECOVERY_PAUSE_KINDS.has(step.kind));
}
