import type { RunSummary } from '../metrics/summary.js';
import { ciHalfWidth, meanOf, round6 } from './interval.js';

/** Metrics whose per-seed ratio to the first policy a comparison reports. */
export const PAIRED_METRICS: readonly (readonly [metric: string, label: string, value: (summary: RunSummary) => number])[] = [
  ['jctS.mean', 'JCT mean', (summary) => summary.jctS.mean],
  ['makespanS', 'makespan', (summary) => summary.makespanS],
];

/** Mean and 95% confidence half-width of a policy's per-seed ratios to the first policy. */
export interface PairedRatio {
  /** Seeds paired (both policies ran and the first policy's value is not 0). */
  readonly n: number;
  readonly mean: number;
  /** Half-width of the 95% confidence interval of the mean (Student t); null with one pair. */
  readonly ci95: number | null;
}

/** One run as pairing needs it. */
interface PairedRun {
  readonly policy: string;
  readonly seed: number;
  readonly summary: RunSummary;
}

/**
 * For each paired metric and each policy after the first: the ratio policy / first policy on the
 * same seed, averaged over the seeds, with its Student-t 95% interval (metric -> policy -> ratio).
 */
export function pairedRatios(policies: readonly string[], runs: readonly PairedRun[]): Record<string, Record<string, PairedRatio>> {
  const first = policies[0];
  const out: Record<string, Record<string, PairedRatio>> = {};
  for (const [metric, , value] of PAIRED_METRICS) {
    const reference = new Map<number, number>();
    for (const run of runs) if (run.policy === first) reference.set(run.seed, value(run.summary));
    out[metric] = {};
    for (const policy of policies.slice(1)) {
      const ratios: number[] = [];
      for (const run of runs) {
        const denominator = run.policy === policy ? reference.get(run.seed) : undefined;
        if (denominator !== undefined && denominator !== 0) ratios.push(value(run.summary) / denominator);
      }
      if (ratios.length > 0) out[metric][policy] = meanWithCi95(ratios);
    }
  }
  return out;
}

/** Lines printing the paired ratios, one per metric: "JCT mean   1.23x ± 0.05   0.98x ± 0.02". */
export function pairedRatioLines(policies: readonly string[], ratios: Readonly<Record<string, Readonly<Record<string, PairedRatio>>>>): string[][] {
  const rows: string[][] = [];
  for (const [metric, label] of PAIRED_METRICS) {
    const byPolicy = ratios[metric] ?? {};
    rows.push([
      label,
      ...policies.slice(1).map((policy) => {
        const r = byPolicy[policy];
        if (r === undefined) return '–';
        return `${r.mean.toFixed(2)}x${r.ci95 === null ? '' : ` ± ${r.ci95.toFixed(2)}`}`;
      }),
    ]);
  }
  return rows;
}

function meanWithCi95(values: readonly number[]): PairedRatio {
  const mean = meanOf(values);
  return { n: values.length, mean: round6(mean), ci95: values.length > 1 ? round6(ciHalfWidth(values, mean)) : null };
}
