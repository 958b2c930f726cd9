import type { AutoscalePolicy } from './types.js';

/** `none`: jobs keep the size they were started with (no auto-scaling). */
export function createNoAutoscale(): AutoscalePolicy {
  return { name: 'none', autoscale: () => [] };
}
