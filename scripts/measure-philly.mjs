#!/usr/bin/env node
// Measures the figures the `philly` generator style uses (src/workload/generators/philly.ts)
// from the Philly trace as published by Pollux (petuum/adaptdl, osdi21-artifact):
//   node scripts/measure-philly.mjs [../shared/traces/philly-pollux/philly.csv]
// Prints one JSON object: GPU-count mix, duration quantiles and log-normal fit, arrivals by hour
// of day, mean arrival rate and virtual-cluster shares. Rows: timestamp,duration,num_gpus,gpu_time,cluster.
import { createReadStream } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { quantileSorted, deviation, mean } from 'd3-array';

const here = dirname(fileURLToPath(import.meta.url));
const file = process.argv[2] ?? join(here, '../../shared/traces/philly-pollux/philly.csv');

/** Probabilities of the empirical duration quantiles the generator interpolates between. */
const PROBABILITIES = [0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 1];
/** Job-size classes with their own duration quantiles (larger jobs run much longer in Philly). */
const SIZE_CLASSES = [
  { label: '1', minGpus: 1, maxGpus: 1 },
  { label: '2', minGpus: 2, maxGpus: 2 },
  { label: '3-4', minGpus: 3, maxGpus: 4 },
  { label: '5-8', minGpus: 5, maxGpus: 8 },
  { label: '>8', minGpus: 9, maxGpus: Infinity },
];

const gpuCounts = new Map();
const clusterCounts = new Map();
const arrivalsByHour = new Array(24).fill(0);
const durationsS = [];
const durationsByGpus = new Map();
let firstMs = Infinity;
let lastMs = -Infinity;
let rows = 0;
let skipped = 0;

const parser = createReadStream(file).pipe(parse({ columns: true, skip_empty_lines: true }));
for await (const row of parser) {
  const durationS = Number(row.duration);
  const gpus = Number(row.num_gpus);
  // The timestamp has no zone: read it as UTC so the hour is the trace's own wall-clock hour.
  const ms = Date.parse(`${row.timestamp.replace(' ', 'T')}Z`);
  if (!(durationS > 0) || !Number.isInteger(gpus) || gpus < 1 || !Number.isFinite(ms)) {
    skipped++;
    continue;
  }
  rows++;
  durationsS.push(durationS);
  (durationsByGpus.get(gpus) ?? durationsByGpus.set(gpus, []).get(gpus)).push(durationS);
  gpuCounts.set(gpus, (gpuCounts.get(gpus) ?? 0) + 1);
  clusterCounts.set(row.cluster, (clusterCounts.get(row.cluster) ?? 0) + 1);
  arrivalsByHour[new Date(ms).getUTCHours()]++;
  firstMs = Math.min(firstMs, ms);
  lastMs = Math.max(lastMs, ms);
}

durationsS.sort((a, b) => a - b);
const logs = durationsS.map(Math.log);
const spanHours = (lastMs - firstMs) / 3_600_000;
const meanPerHour = rows / 24;
const round = (x, digits = 4) => Number(x.toFixed(digits));

const result = {
  file,
  jobs: rows,
  skippedRows: skipped,
  firstSubmit: new Date(firstMs).toISOString(),
  lastSubmit: new Date(lastMs).toISOString(),
  spanDays: round(spanHours / 24, 2),
  meanArrivalsPerHour: round(rows / spanHours, 2),
  gpuMix: [...gpuCounts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([gpus, count]) => ({ gpus, count, share: round(count / rows, 5) })),
  multiGpuShare: round(1 - (gpuCounts.get(1) ?? 0) / rows),
  durationS: {
    mean: round(mean(durationsS), 1),
    quantiles: PROBABILITIES.map((p) => ({ p, durationS: round(quantileSorted(durationsS, p), 1) })),
    medianByGpus: [...durationsByGpus.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([gpus, values]) => ({ gpus, medianS: round(quantileSorted(values.sort((a, b) => a - b), 0.5), 1) })),
    // What the generator draws from: quantiles per size class, interpolated log-linearly.
    bySizeClass: SIZE_CLASSES.map(({ label, minGpus, maxGpus }) => {
      const values = [...durationsByGpus.entries()]
        .filter(([gpus]) => gpus >= minGpus && gpus <= maxGpus)
        .flatMap(([, v]) => v)
        .sort((a, b) => a - b);
      return {
        label,
        jobs: values.length,
        meanS: round(mean(values), 1),
        quantiles: PROBABILITIES.map((p) => [p, round(quantileSorted(values, p), 1)]),
      };
    }),
    logNormalFit: { medianS: round(Math.exp(mean(logs)), 1), sigma: round(deviation(logs), 4) },
  },
  // Relative arrival weight per hour of day (mean 1), hour 0 = 00:00-00:59 of the trace's clock.
  arrivalWeightByHour: arrivalsByHour.map((count) => round(count / meanPerHour, 3)),
  arrivalsByHour,
  virtualClusters: [...clusterCounts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([cluster, count]) => ({ cluster, count, share: round(count / rows, 5) })),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
