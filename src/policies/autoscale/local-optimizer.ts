/**
 * DLRover's local optimizer (single-job mode, REFERENCE §2, `master/resource/local_optimizer.py`):
 * sizes a PS job from its own records within its resource budget, with no history.
 */
import { round2 } from '../../metrics/summary.js';
import { oomRelaunchMemMiB } from '../recovery/dlrover.js';
import { lastRecords, maxOf, maxPsUtil, meanOf, psOf, totalPsCpu, workerMem } from './brain-observe.js';
import { speedOf, type JobReading, type PsMigration, type ResourcePlan, type RolePlan } from './brain-plan.js';
import { BRAIN_SERVICE, JOB_MASTER, LOCAL_OPTIMIZER } from './dlrover-constants.js';

/** The create plan: 1 PS and 1 worker of min(ceil(limit/5), 16 cores) CPU and min(ceil(limit/5), 8 GiB) memory each. */
export function localCreate(limitCpuMilli: number, limitMemMiB: number): { ps: RolePlan; worker: RolePlan } {
  const cpuMilli = Math.min(Math.ceil(limitCpuMilli / 1000 / LOCAL_OPTIMIZER.createDivisor), LOCAL_OPTIMIZER.createMaxCpuCores) * 1000;
  const memMiB = Math.min(Math.ceil(limitMemMiB / LOCAL_OPTIMIZER.createDivisor), LOCAL_OPTIMIZER.createMaxMemMiB);
  return { ps: { replicas: 1, cpuMilli, memMiB }, worker: { replicas: 1, cpuMilli, memMiB } };
}

/** How many workers the budget holds at the PS CPU each worker drives: limitCPU / (psCpuPerWorker + workerCpu). */
function maxWorkers(reading: JobReading, psCpuPerWorkerCores: number): number {
  const workerCores = reading.workerCpuMilli / 1000;
  const fit = Math.floor(reading.limitCpuMilli / 1000 / (psCpuPerWorkerCores + workerCores));
  return Math.max(1, Math.min(JOB_MASTER.maxWorkers, fit));
}

/**
 * The initial estimation, after ~3 minutes of training, from the last 5 records:
 * ps_cpu_per_worker = mean total PS CPU used / workers; max_workers = limitCPU / (ps_cpu_per_worker
 * + worker CPU); PS count = ceil((limitCPU - max_workers x worker CPU) / PS CPU); PS memory = max used
 * x 1.2; worker memory = 1.5 x max used.
 */
export function localInitial(reading: JobReading): ResourcePlan {
  const records = lastRecords(reading.records, LOCAL_OPTIMIZER.samples);
  const psCpuPerWorker = meanOf(records, totalPsCpu) / Math.max(1, reading.workers);
  const workers = maxWorkers(reading, psCpuPerWorker);
  const psCpuMilli = reading.psCpuMilli[0] ?? 1000;
  const leftMilli = reading.limitCpuMilli - workers * reading.workerCpuMilli;
  const psCount = Math.max(1, Math.min(JOB_MASTER.maxPs, Math.ceil(leftMilli / psCpuMilli)));
  const psMemUsed = maxOf(records, (r) => psOf(r).reduce((most, p) => Math.max(most, p.memUsedMiB), 0));
  const psMemMiB = Math.max(reading.psMemMiB[0] ?? 0, Math.ceil(psMemUsed * LOCAL_OPTIMIZER.psMemFactor));
  const workerMemMiB = Math.max(1, Math.ceil(maxOf(records, workerMem) * LOCAL_OPTIMIZER.workerMemFactor));
  const plan: { ps?: RolePlan; workers?: RolePlan } = {};
  if (psCount !== reading.psCpuMilli.length) plan.ps = { replicas: psCount, cpuMilli: psCpuMilli, memMiB: psMemMiB };
  if (workers !== reading.workers) plan.workers = { replicas: workers, cpuMilli: reading.workerCpuMilli, memMiB: workerMemMiB };
  const reason = `initial estimation: ${round2(psCpuPerWorker)} PS cores per worker, worker ${reading.workerCpuMilli / 1000} cores: ${workers} workers and ${psCount} PS fit ${reading.limitCpuMilli / 1000} cores`;
  return { ...plan, reason };
}

/**
 * Running-stage tuning (the OOM-risk check comes first, at every check: see memoryHotPs): a CPU-hot PS (utilisation >= 0.9) makes every PS bigger: CPU x min(max_workers / workers, 32 / used);
 * otherwise workers: none when some PS is over 0.95 or the last addition's speed ratio fell under
 * 0.2, else n x (0.9 / max PS utilisation), within the budget.
 */
export function localRunning(reading: JobReading, psMayChange: boolean): ResourcePlan | null {
  const records = lastRecords(reading.records, LOCAL_OPTIMIZER.samples);
  if (records.length === 0) return null;
  const util = meanOf(records, maxPsUtil);
  const psCpuPerWorker = meanOf(records, totalPsCpu) / Math.max(1, reading.workers);
  if (psMayChange && util >= LOCAL_OPTIMIZER.hotPsUtil) {
    const used = meanOf(records, totalPsCpu) / Math.max(1, reading.psCpuMilli.length);
    const factor = Math.min(maxWorkers(reading, psCpuPerWorker) / reading.workers, JOB_MASTER.maxPodCpuCores / Math.max(used, 1e-9));
    if (factor > 1) {
      const migrate = reading.psCpuMilli.map((cpuMilli, rank): PsMigration => ({ rank, cpuMilli: Math.min(JOB_MASTER.maxPodCpuCores * 1000, Math.ceil((cpuMilli * factor) / 1000) * 1000), memMiB: reading.psMemMiB[rank]! }));
      return { migrate, reason: `hot PS (CPU ${round2(util)} of its limit): every PS x ${round2(factor)} CPU` };
    }
  }
  if (util > LOCAL_OPTIMIZER.psBusyUtil) return null;
  const ratio = additionSpeedRatio(reading);
  if (ratio !== null && ratio < LOCAL_OPTIMIZER.minAdditionSpeedRatio) return null;
  const target = Math.floor(reading.workers * (LOCAL_OPTIMIZER.targetPsUtil / Math.max(util, 1e-9)));
  const psHeldMilli = reading.psCpuMilli.reduce((sum, c) => sum + c, 0);
  const budget = Math.floor((reading.limitCpuMilli - psHeldMilli) / reading.workerCpuMilli);
  const workers = Math.max(1, Math.min(JOB_MASTER.maxWorkers, target, budget));
  if (workers <= reading.workers) return null;
  const memMiB = Math.max(reading.workerMemMiB, Math.ceil(maxOf(records, workerMem) * LOCAL_OPTIMIZER.workerMemFactor));
  return { workers: { replicas: workers, cpuMilli: reading.workerCpuMilli, memMiB }, reason: `PS CPU ${round2(util)} of its limit: ${workers} workers (n x ${LOCAL_OPTIMIZER.targetPsUtil} / util, within ${reading.limitCpuMilli / 1000} cores)` };
}

/** The last worker addition's speed ratio: (speed gain share) / (worker gain share); null before any. */
export function additionSpeedRatio(reading: JobReading): number | null {
  const before = reading.beforeLastAddition;
  if (before === null || before.workers >= reading.workers || !(before.stepsPerS > 0)) return null;
  const speed = speedOf(reading);
  return (speed / before.stepsPerS - 1) / (reading.workers / before.workers - 1);
}

/** PS whose memory was over 0.9 of what they hold in each of the last 3 records: each with more memory (2x, at most +8 GiB). */
export function memoryHotPs(reading: JobReading): PsMigration[] {
  const records = lastRecords(reading.records, BRAIN_SERVICE.utilRecords);
  if (records.length < BRAIN_SERVICE.utilRecords) return [];
  const hot: PsMigration[] = [];
  reading.psMemMiB.forEach((heldMiB, rank) => {
    const always = records.every((r) => {
      const p = psOf(r)[rank];
      return p !== undefined && p.memUsedMiB > BRAIN_SERVICE.hotPsMemUtil * heldMiB;
    });
    if (always) hot.push({ rank, cpuMilli: reading.psCpuMilli[rank]!, memMiB: oomRelaunchMemMiB('ps', heldMiB, heldMiB) });
  });
  return hot;
}

