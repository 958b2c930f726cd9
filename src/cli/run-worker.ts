import { runScenario, type RunRequest } from '../sim/run-scenario.js';
import type { RunSummary } from '../metrics/summary.js';

/** Worker-thread entry for runs in parallel (piscina): one run per call. */
export default function runInWorker(request: RunRequest): Promise<RunSummary> {
  return runScenario(request);
}
