import { ConfigError } from '../errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { flattenMetrics } from '../report/compare.js';
import { ciHalfWidth, meanOf } from '../report/interval.js';
import { PAIRED_RATIO_PREFIX } from '../scenario/schema.js';
import type { Expectation } from '../scenario/scenario.js';

/** How an expectation came out: met or known gap pass; the others fail the check. */
export type GateStatus = 'met' | 'missed' | 'known-gap' | 'gap-drifted' | 'gap-closed';

/** An expectation's measured mean over its seeds and what it means for the gate. */
export interface GateResult {
  readonly scenario: string;
  readonly expectation: Expectation;
  /** Seeds that gave a value (for a paired ratio: the seeds where the baseline's value is not 0). */
  readonly n: number;
  readonly mean: number;
  /** Half-width of the 95% interval of the mean (Student t); null with one value. */
  readonly ci95: number | null;
  readonly status: GateStatus;
}

/** Slack on the two-sided comparisons, so a figure met exactly is not lost to rounding. */
const EPSILON = 1e-9;

/** The seeds an expectation averages over: `first` and the `count - 1` after it. */
export function seedsOf(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i);
}

/**
 * Evaluates one expectation on the runs it needs (`summaryOf(policy, seed)`, seeds from `firstSeed`):
 * the mean is checked two-sided against target ± tolerance, or for a known gap against model ± drift
 * (and the gap counts as closed when the mean meets the target). An unknown metric is a ConfigError
 * at the entry; a fault type a run did not meet counts as 0.
 */
export function evaluateExpectation(
  scenario: string,
  expectation: Expectation,
  firstSeed: number,
  summaryOf: (policy: string, seed: number) => RunSummary,
): GateResult {
  const paired = expectation.metric.startsWith(PAIRED_RATIO_PREFIX);
  const metric = paired ? expectation.metric.slice(PAIRED_RATIO_PREFIX.length) : expectation.metric;
  const seeds = seedsOf(firstSeed, expectation.seeds);
  const read = (policy: string): (number | undefined)[] => seeds.map((seed) => new Map(flattenMetrics(summaryOf(policy, seed))).get(metric));
  const mine = read(expectation.policy);
  const theirs = paired ? read(expectation.baseline!) : [];
  if (![...mine, ...theirs].some((value) => value !== undefined) && !metric.startsWith('faults.byType.')) {
    throw new ConfigError(`${expectation.where}: metric`, `unknown metric "${metric}"; metrics are the summary's, e.g. ettr, jctS.mean, faults.daysWithFault`);
  }
  const values: number[] = [];
  mine.forEach((value, i) => {
    if (!paired) return values.push(value ?? 0);
    const denominator = theirs[i] ?? 0;
    if (denominator !== 0) values.push((value ?? 0) / denominator);
  });
  if (values.length === 0) {
    throw new ConfigError(`${expectation.where}: baseline`, `${expectation.baseline}'s ${metric} is 0 on every seed: no ratio to take`);
  }
  const mean = meanOf(values);
  const ci95 = values.length > 1 ? ciHalfWidth(values, mean) : null;
  return { scenario, expectation, n: values.length, mean, ci95, status: statusOf(expectation, mean) };
}

function statusOf(expectation: Expectation, mean: number): GateStatus {
  const meetsTarget = Math.abs(mean - expectation.target) <= expectation.tolerance + EPSILON;
  const gap = expectation.gap;
  if (gap === undefined) return meetsTarget ? 'met' : 'missed';
  if (meetsTarget) return 'gap-closed';
  return Math.abs(mean - gap.model) <= gap.drift + EPSILON ? 'known-gap' : 'gap-drifted';
}

/** True when the result fails the check. */
export function gateFails(result: GateResult): boolean {
  return result.status === 'missed' || result.status === 'gap-drifted' || result.status === 'gap-closed';
}

const LABELS: Readonly<Record<GateStatus, string>> = {
  met: 'target met   ',
  missed: 'TARGET MISSED',
  'known-gap': 'KNOWN GAP    ',
  'gap-drifted': 'GAP DRIFTED  ',
  'gap-closed': 'GAP CLOSED   ',
};

/**
 * One result as a line: status, scenario, policy, metric, the measured mean with its 95% interval
 * and seeds, the published target, tolerance and source, and for a known gap the gap and the band
 * the model is held to.
 */
export function formatGate(result: GateResult): string {
  const { expectation: e } = result;
  const who = e.baseline === undefined ? e.policy : `${e.policy}/${e.baseline}`;
  const interval = result.ci95 === null ? '' : ` (95% CI ${fmt(result.mean - result.ci95)} to ${fmt(result.mean + result.ci95)})`;
  const measured = `mean ${fmt(result.mean)}${interval} over ${result.n} seed${result.n === 1 ? '' : 's'}`;
  const published = `target ${fmt(e.target)} ± ${fmt(e.tolerance)} (${e.source})`;
  let line = `${LABELS[result.status]}  ${result.scenario}  ${who}  ${e.metric}: ${measured}; ${published}`;
  if (e.gap !== undefined) {
    const gap = result.mean - e.target;
    line += `; gap ${gap >= 0 ? '+' : ''}${fmt(gap)}, held to the model's ${fmt(e.gap.model)} ± ${fmt(e.gap.drift)}`;
    if (result.status === 'gap-closed') line += ': the mean now meets the published figure, remove the gap';
  }
  return line;
}

/** A number with four significant digits, without exponent noise for ordinary sizes. */
function fmt(value: number): string {
  return String(Number(value.toPrecision(4)));
}
