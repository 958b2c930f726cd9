#!/usr/bin/env node
// Measures the GPU-sharing figures the `alibaba-pai` generator style uses
// (src/workload/generators/alibaba-pai.ts) from the Alibaba GPU cluster trace v2023 pod list
// (alibaba/clusterdata cluster-trace-gpu-v2023, ATC'23 "Beware of Fragmentation"):
//   node scripts/measure-alibaba-pods.mjs [../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv]
// Prints one JSON object: pod shapes (CPU-only / shared GPU / 1, 2, 4, 8 whole GPUs), the gpu_milli
// values of sharing pods, the most common (CPU, memory) requests per GPU of each shape (covering
// at least 95% of its pods), creations by hour of day and the creation rate.
import { createReadStream } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { quantileSorted } from 'd3-array';

const here = dirname(fileURLToPath(import.meta.url));
const file = process.argv[2] ?? join(here, '../../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv');
const COVERAGE = 0.95;

const shapes = new Map();
const sharedMilli = new Map();
const requests = { whole: new Map(), shared: new Map(), cpuOnly: new Map() };
const creationsS = [];
let pods = 0;

const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

const parser = createReadStream(file).pipe(parse({ columns: true, skip_empty_lines: true }));
for await (const row of parser) {
  const gpus = Number(row.num_gpu);
  const gpuMilli = Number(row.gpu_milli);
  const cpuMilli = Number(row.cpu_milli);
  const memMiB = Number(row.memory_mib);
  pods++;
  creationsS.push(Number(row.creation_time));
  if (gpus === 0) {
    bump(shapes, 'cpu-only');
    bump(requests.cpuOnly, `${cpuMilli},${memMiB}`);
  } else if (gpus === 1 && gpuMilli < 1000) {
    bump(shapes, 'shared');
    bump(sharedMilli, gpuMilli);
    bump(requests.shared, `${cpuMilli},${memMiB}`);
  } else {
    bump(shapes, `${gpus}`);
    bump(requests.whole, `${cpuMilli / gpus},${memMiB / gpus}`);
  }
}

const round = (x, digits = 4) => Number(x.toFixed(digits));
/** The most common requests, most frequent first, until they cover COVERAGE of the pods. */
function topRequests(map) {
  const total = [...map.values()].reduce((a, b) => a + b, 0);
  const sorted = [...map.entries()].sort((a, b) => b[1] - a[1]);
  const kept = [];
  let covered = 0;
  for (const [key, count] of sorted) {
    if (covered / total >= COVERAGE) break;
    const [cpuMilli, memMiB] = key.split(',').map(Number);
    kept.push({ cpuMilli, memMiB, count });
    covered += count;
  }
  return { pods: total, coveredShare: round(covered / total), requests: kept };
}

creationsS.sort((a, b) => a - b);
// A few long-running pods were created long before the rest: the rate is taken from the 1st percentile on.
const windowStartS = quantileSorted(creationsS, 0.01);
const windowEndS = creationsS[creationsS.length - 1];
const inWindow = creationsS.filter((t) => t >= windowStartS);
const byHour = new Array(24).fill(0);
for (const t of inWindow) byHour[Math.floor((t % 86400) / 3600)]++;
const meanPerHour = inWindow.length / 24;
const gpuPods = pods - (shapes.get('cpu-only') ?? 0);

const result = {
  file,
  pods,
  gpuPods,
  shapes: [...shapes.entries()].map(([shape, count]) => ({ shape, count, share: round(count / pods, 5) })),
  sharedShareOfGpuPods: round((shapes.get('shared') ?? 0) / gpuPods),
  sharedGpuMilli: [...sharedMilli.entries()].sort((a, b) => b[1] - a[1]).map(([gpuMilli, count]) => ({ gpuMilli, count })),
  requestsPerGpuWhole: topRequests(requests.whole),
  requestsShared: topRequests(requests.shared),
  requestsCpuOnly: topRequests(requests.cpuOnly),
  creation: {
    windowStartS,
    windowEndS,
    podsInWindow: inWindow.length,
    meanCreationsPerHour: round(inWindow.length / ((windowEndS - windowStartS) / 3600), 2),
    // Relative weight per hour of day (mean 1) on the trace's own clock (creation_time mod 86400).
    weightByHour: byHour.map((count) => round(count / meanPerHour, 3)),
    byHour,
  },
};
process.stdout.write(`${JSON.stringify(result)}\n`);
