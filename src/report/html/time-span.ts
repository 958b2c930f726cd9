import type { PolicyData } from '../report-data.js';

/** A span of simulated time, seconds. */
export interface TimeSpan {
  readonly startS: number;
  readonly endS: number;
}

/** The span the policies' runs cover (their usage.csv bins), so that charts of different policies share a time axis; null without usage data. */
export function timeSpanOf(policies: readonly PolicyData[]): TimeSpan | null {
  let startS = Infinity;
  let endS = -Infinity;
  for (const p of policies) {
    const rows = p.usage;
    if (rows === null || rows.length === 0) continue;
    const last = rows[rows.length - 1]!;
    startS = Math.min(startS, rows[0]!.timeS);
    endS = Math.max(endS, last.timeS + last.binS);
  }
  return Number.isFinite(startS) ? { startS, endS } : null;
}
