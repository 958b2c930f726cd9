import { ciHalfWidth, meanOf, round6 } from './interval.js';

/** Mean and 95% interval of a policy's per-seed differences to the first policy (policy − first). */
export interface PairedDifference {
  /** Seeds paired (both policies ran the seed). */
  readonly n: number;
  readonly mean: number;
  /** Half-width of the 95% confidence interval of the mean difference (Student t); null with one pair. */
  readonly ci95: number | null;
}

/** One run's metrics as pairing needs them. */
export interface MetricRun {
  readonly policy: string;
  readonly seed: number;
  /** Metric name -> value, as flattenMetrics names them. */
  readonly metrics: ReadonlyMap<string, number>;
}

/**
 * For every metric and each policy after the first: the difference policy − first policy on the
 * same seed, averaged over the seeds both ran, with its Student-t 95% interval over seeds
 * (metric -> policy -> difference). Seeds are shared, so this interval is usually much narrower
 * than the two unpaired intervals side by side: seed-to-seed variation common to both cancels.
 */
export function pairedDifferences(policies: readonly string[], metricNames: readonly string[], runs: readonly MetricRun[]): Record<string, Record<string, PairedDifference>> {
  const first = policies[0];
  const reference = new Map<number, MetricRun>();
  for (const run of runs) if (run.policy === first) reference.set(run.seed, run);
  const out: Record<string, Record<string, PairedDifference>> = {};
  for (const metric of metricNames) {
    out[metric] = {};
    for (const policy of policies.slice(1)) {
      const differences: number[] = [];
      for (const run of runs) {
        if (run.policy !== policy) continue;
        const base = reference.get(run.seed)?.metrics.get(metric);
        const value = run.metrics.get(metric);
        if (base !== undefined && value !== undefined) differences.push(value - base);
      }
      if (differences.length > 0) out[metric][policy] = meanWithCi95(differences);
    }
  }
  return out;
}

/** True when the difference's 95% interval leaves out 0 (the policies differ on this metric at that level); false without an interval. */
export function excludesZero(difference: PairedDifference): boolean {
  return difference.ci95 !== null && Math.abs(difference.mean) > difference.ci95;
}

function meanWithCi95(values: readonly number[]): PairedDifference {
  const mean = meanOf(values);
  return { n: values.length, mean: round6(mean), ci95: values.length > 1 ? round6(ciHalfWidth(values, mean)) : null };
}
