/** Gantt states in legend order, with their colours (recovery phases in reds and oranges). */
export const STATE_COLORS: readonly (readonly [state: string, color: string])[] = [
  ['queued', '#d3d3d3'],
  ['running', '#59a14f'],
  ['scaled-down', '#b6d7a8'],
  ['checkpointing', '#4e79a7'],
  ['starting', '#76b7b2'],
  ['resizing', '#b07aa1'],
  ['detecting', '#e15759'],
  ['rescheduling', '#f28e2b'],
  ['health-check', '#edc948'],
  ['loading', '#9c755f'],
];

/** States of a recovery from a fault, in the order they happen. */
export const RECOVERY_STATES: readonly string[] = ['detecting', 'rescheduling', 'health-check', 'loading'];

/** The colour of a Gantt state (grey for one this version does not know). */
export function stateColor(state: string): string {
  return STATE_COLORS.find(([s]) => s === state)?.[1] ?? '#888888';
}
