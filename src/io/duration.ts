/** Seconds per duration unit suffix accepted in scenario files. */
const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

const DURATION_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)([smhd]?)$/;

/**
 * Parses a scenario duration into seconds: a number is seconds; a string is a non-negative
 * decimal with an optional unit s, m, h or d ("90", "90s", "15m", "2.5h", "1d"; surrounding
 * spaces allowed). Returns null for anything else (negative, non-finite, malformed).
 */
export function parseDurationS(value: number | string): number | null {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? value : null;
  }
  if (typeof value !== 'string') return null;
  const match = DURATION_PATTERN.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const secondsPerUnit = SECONDS_PER_UNIT[match[2] || 's']!;
  const seconds = amount * secondsPerUnit;
  return Number.isFinite(seconds) ? seconds : null;
}

/** Formats seconds in the largest unit that divides them exactly ("90s", "15m", "2h", "1d"); for messages. */
export function formatDurationS(durationS: number): string {
  if (!Number.isFinite(durationS)) return durationS > 0 ? 'infinity' : String(durationS);
  for (const unit of ['d', 'h', 'm'] as const) {
    const secondsPerUnit = SECONDS_PER_UNIT[unit]!;
    if (durationS !== 0 && durationS % secondsPerUnit === 0) return `${durationS / secondsPerUnit}${unit}`;
  }
  return `${durationS}s`;
}
