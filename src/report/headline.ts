/**
 * The headline metrics of a comparison: the figures a scheduling comparison is usually read by.
 * The printed table shows their paired differences by default, and `compare --seeds auto` adds
 * seeds until each one's 95% interval is narrow enough for every policy.
 */
export const HEADLINE_METRICS: readonly string[] = ['jctS.mean', 'makespanS', 'gpuAllocationRate'];
