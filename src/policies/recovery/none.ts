import { locatedByHandS } from './manual.js';
import type { RecoveryPolicy } from './types.js';

/** `none`: no fault tolerance; a crashed job fails and its work is lost. */
export function createNoRecovery(): RecoveryPolicy {
  return { name: 'none', onCrash: () => ({ kind: 'fail', why: 'no recovery' }), isolationDelayS: locatedByHandS };
}
