import { describe, expect, it } from 'vitest';
import { isRecoveryPause, type PauseKind, type PauseStep } from '../../src/model/pause.js';

const step = (kind: PauseKind, seconds = 1): PauseStep => ({ kind, seconds });

describe('isRecoveryPause', () => {
  it.each<PauseKind>(['detecting', 'rescheduling', 'health-check', 'loading'])('a pause with a %s step is recovery from a fault', (kind) => {
    expect(isRecoveryPause([step('starting'), step(kind)])).toBe(true);
  });

  it('start-ups and resizes alone are not recovery, nor is an empty pause', () => {
    expect(isRecoveryPause([step('starting'), step('resizing')])).toBe(false);
    expect(isRecoveryPause([])).toBe(false);
  });
});
