/** Small report data for chart and page tests, made by hand. */
import { WAIT_REASONS, type WaitReason } from '../../../src/policies/wait-reason.js';
import { TIME_SPLIT_PARTS, type PolicyData, type ReportData, type TimeSplitPart, type UsageRow } from '../../../src/report/report-data.js';

/** Usage rows of a run: `bins` bins of 60 s with a ramp of allocated GPUs. */
export function usageRows(bins: number, totalGpus = 64): UsageRow[] {
  return Array.from({ length: bins }, (_, i) => ({
    timeS: i * 60,
    binS: 60,
    allocatedGpus: Math.min(totalGpus, i),
    busyGpus: Math.min(totalGpus, i) * 0.8,
    totalGpus,
    allocatedCpuMilli: 1000 * i,
    pendingJobs: i % 7,
    runningJobs: i % 5,
    dataWorkers: i % 3,
  }));
}

/** A policy's data with a few jobs, faults, a Gantt and an auto-scaled job. */
export function policyOf(policy: string, scale = 1): PolicyData {
  const split = Object.fromEntries(TIME_SPLIT_PARTS.map((p, i) => [p, (i + 1) * scale])) as Record<TimeSplitPart, number>;
  const waits = Object.fromEntries(WAIT_REASONS.map((r, i) => [r, i % 2 === 0 ? 0 : i * scale])) as Record<WaitReason, number>;
  return {
    policy,
    jobs: { jobs: 4, jctS: Float64Array.from([10, 100, 1000, 5000].map((v) => v * scale)), waitS: Float64Array.from([0, 0.5, 30, 600]), timeSplitGpuH: split, waitReasonJobH: waits },
    usage: usageRows(100),
    gantt: [
      { jobId: 'a', state: 'queued', fromS: 0, toS: 100 },
      { jobId: 'a', state: 'running', fromS: 100, toS: 2000 },
      { jobId: 'a', state: 'detecting', fromS: 2000, toS: 2100 },
      { jobId: 'a', state: 'rescheduling', fromS: 2100, toS: 2200 },
      { jobId: 'a', state: 'loading', fromS: 2200, toS: 2250 },
      { jobId: 'a', state: 'running', fromS: 2250, toS: 4000 },
      { jobId: 'b', state: 'running', fromS: 50, toS: 3000 },
    ],
    autoscale: [
      { jobId: 'ps-1', timeS: 0, workers: 2, ps: 1, stepsPerS: 3 },
      { jobId: 'ps-1', timeS: 600, workers: 4, ps: 1, stepsPerS: 0 },
      { jobId: 'ps-1', timeS: 630, workers: 4, ps: 1, stepsPerS: 5.5 },
    ],
    faults: [
      { timeS: 1990, faultType: 'xid-79-gpu-fell-off-bus' },
      { timeS: 3000, faultType: 'nccl-timeout' },
    ],
    summary: { scenario: 'tiny', policy, seed: 1, jctS: { mean: 1527 * scale, p50: 550 }, makespanS: 6000, gpuAllocationRate: 0.5 },
    seed: 1,
  };
}

/** A comparison of two policies as the page reads it. */
export function compareData(): ReportData {
  return {
    kind: 'compare',
    scenario: 'tiny',
    version: '9.9.9',
    policies: [policyOf('fifo'), policyOf('dlrover', 0.5)],
    comparison: {
      seeds: [1, 2, 3],
      metrics: {
        'jctS.mean': { fifo: { mean: 1527, ci95: 100, ratioToFirst: null }, dlrover: { mean: 763.5, ci95: 50, ratioToFirst: 0.5 } },
        makespanS: { fifo: { mean: 6000, ci95: null, ratioToFirst: null }, dlrover: { mean: 6000, ci95: null, ratioToFirst: 1 } },
      },
      pairedRatios: { 'jctS.mean': { dlrover: { mean: 0.49, ci95: 0.02 } } },
    },
  };
}
