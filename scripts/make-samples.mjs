// Remakes every sample in traces/samples from the project's own code: the fixed job lists of
// src/workload/samples/*.ts written by each format's writer, 200 jobs of each generator style
// in the native format, and 50 alibaba-pai jobs in the PAI simulator's job CSV. Run after `npm install` (which builds dist/): node scripts/make-samples.mjs
import { writeAlibabaSamples } from '../dist/workload/samples/alibaba.js';
import { writeOtherSamples } from '../dist/workload/samples/others.js';
import { writeSpotSamples } from '../dist/workload/samples/spot.js';
import { generateTrace } from '../dist/cli/trace-generate.js';

const dir = new URL('../traces/samples/', import.meta.url).pathname;
await writeAlibabaSamples(dir);
await writeOtherSamples(dir);
await writeSpotSamples(dir);
for (const style of ['philly', 'alibaba-pai', 'ant']) {
  const result = await generateTrace(style, 200, 1, `${dir}native/${style}.jsonl`);
  console.log(`${style}: ${result.jobs ?? 200} jobs`);
}
await generateTrace('alibaba-pai', 50, 1, `${dir}alibaba-pai-sim`, 'alibaba-pai-sim');
console.log('alibaba-pai-sim: 50 jobs');
console.log(`samples written to ${dir}`);
