/** One measured figure of a benchmark, as `dlsim bench --json` prints it. */
export interface BenchFigure {
  readonly bench: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  /** What the figure should stay within, in words (for the table). */
  readonly target: string;
}

/** A ratio measured in one process that the performance gate holds above a floor. */
export interface RatioFloor {
  readonly bench: string;
  readonly metric: string;
  /** The check fails when the ratio falls below this. */
  readonly floor: number;
  /** Where the floor comes from. */
  readonly reason: string;
}

/**
 * Floors of the ratios `dlsim bench --quick` measures: half the lowest value they measured on the
 * 2-core CI machine, so only a large regression fails (the machine is shared and noisy; absolute
 * times are never gated).
 */
export const RATIO_FLOORS: readonly RatioFloor[] = [
  {
    bench: 'engine-ratios',
    metric: 'engine ÷ heap (hold model)',
    floor: 0.3,
    reason: 'half the lowest of 0.60-1.05 measured on the 2-core CI machine',
  },
  {
    bench: 'engine-ratios',
    metric: 'sim-default events/s ÷ heap',
    floor: 0.002,
    reason: 'half the lowest of 0.0044-0.0076 measured on the 2-core CI machine, alone and sharing it with three busy processes',
  },
];

/** One floor checked against the figures: the measured value (null when the bench did not print it). */
export interface RatioCheck {
  readonly floor: RatioFloor;
  readonly value: number | null;
  readonly ok: boolean;
}

/** Checks every floor against `figures`; a missing figure fails. */
export function checkRatioFloors(figures: readonly BenchFigure[], floors: readonly RatioFloor[] = RATIO_FLOORS): RatioCheck[] {
  return floors.map((floor) => {
    const figure = figures.find((f) => f.bench === floor.bench && f.metric === floor.metric);
    const value = figure?.value ?? null;
    return { floor, value, ok: value !== null && Number.isFinite(value) && value >= floor.floor };
  });
}

/** One check as a line: "perf ok       engine-ratios  engine ÷ heap (hold model)  0.8 (floor 0.4: …)". */
export function formatRatioCheck(check: RatioCheck): string {
  const { floor } = check;
  const value = check.value === null ? 'not measured' : String(Number(check.value.toPrecision(3)));
  return `${check.ok ? 'perf ok      ' : 'PERF REGRESSED'}  ${floor.bench}  ${floor.metric}  ${value} (floor ${floor.floor}: ${floor.reason})`;
}
