import type { DataPolicy } from './types.js';

/** `none`: jobs get no auxiliary data workers. */
export function createNoData(): DataPolicy {
  return { name: 'none', data: () => [] };
}
