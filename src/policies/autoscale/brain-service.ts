/**
 * DLRover's brain service (cluster mode, REFERENCE §2 "Brain service" and seed 000): sizes a new job
 * from the history of jobs of the same user and dataset, estimates after ~3 minutes of training
 * (the seed's formulas), and tunes running jobs by the Go brain's rules.
 */
import { round2 } from '../../metrics/summary.js';
import { lastRecords, maxOf, meanOf, psOf, psUtilMeans, totalPsCpu, totalPsMem, workerCpu, workerMem } from './brain-observe.js';
import { ceilCores, speedOf, type JobReading, type PsMigration, type ResourcePlan, type RolePlan } from './brain-plan.js';
import { BRAIN_SERVICE, JOB_MASTER } from './dlrover-constants.js';

/** What the brain reads of one finished job in its history. */
export interface HistoryUsage {
  /** Mean and largest total CPU cores the job's PS used. */
  readonly meanTotalPsCpuCores: number;
  /** Largest CPU cores one PS used. */
  readonly maxPsCpuCores: number;
  /** Largest total memory the job's PS used, MiB. */
  readonly maxTotalPsMemMiB: number;
  /** Largest CPU cores and memory one worker (or the chief) used. */
  readonly maxWorkerCpuCores: number;
  readonly maxWorkerMemMiB: number;
}

/**
 * The create plan: without history the cold plan (4 PS x 12 cores x 16 GiB, a first worker of 12
 * cores and 16 GiB); from history: PS CPU = max used + 4, total = mean total x 1.5, count =
 * ceil(total / CPU) <= 15, memory = max total / count x 1.2; the first worker >= 12 cores and
 * 16 GiB, else what workers used (+1 core, memory x 1.2).
 */
export function brainCreate(history: readonly HistoryUsage[]): { ps: RolePlan; worker: RolePlan; reason: string } {
  if (history.length === 0) {
    return {
      ps: { replicas: BRAIN_SERVICE.coldPs, cpuMilli: BRAIN_SERVICE.coldPsCpuCores * 1000, memMiB: BRAIN_SERVICE.coldPsMemMiB },
      worker: { replicas: 1, cpuMilli: BRAIN_SERVICE.firstWorkerMinCpuCores * 1000, memMiB: BRAIN_SERVICE.firstWorkerMinMemMiB },
      reason: 'cold plan: no job of this user and dataset in the last 7 days',
    };
  }
  const psCpuCores = Math.min(JOB_MASTER.maxPodCpuCores, Math.ceil(Math.max(...history.map((h) => h.maxPsCpuCores)) + BRAIN_SERVICE.psCpuMarginCores));
  const totalCores = (history.reduce((sum, h) => sum + h.meanTotalPsCpuCores, 0) / history.length) * BRAIN_SERVICE.psTotalCpuFactor;
  const replicas = Math.max(1, Math.min(JOB_MASTER.maxPs, Math.ceil(totalCores / psCpuCores)));
  const psMemMiB = Math.ceil((Math.max(...history.map((h) => h.maxTotalPsMemMiB)) / replicas) * BRAIN_SERVICE.memFactor);
  const workerCores = Math.max(BRAIN_SERVICE.firstWorkerMinCpuCores, Math.ceil(Math.max(...history.map((h) => h.maxWorkerCpuCores)) + 1));
  const workerMemMiB = Math.max(BRAIN_SERVICE.firstWorkerMinMemMiB, Math.ceil(Math.max(...history.map((h) => h.maxWorkerMemMiB)) * BRAIN_SERVICE.memFactor));
  return {
    ps: { replicas, cpuMilli: psCpuCores * 1000, memMiB: Math.max(1, psMemMiB) },
    worker: { replicas: 1, cpuMilli: workerCores * 1000, memMiB: workerMemMiB },
    reason: `from ${history.length} job(s) of this user and dataset in the last 7 days`,
  };
}

/**
 * The initial estimation (seed 000, "资源预估阶段"): trainingCPU = chief used + total PS used;
 * workers = limitCPU / trainingCPU; worker CPU and memory = chief used x 1.2; PS count = total PS
 * used x workers / PS CPU; PS memory = used per PS x 1.2 while it is stable, else its growth per step
 * x the declared steps / PS count.
 */
export function brainInitial(reading: JobReading): ResourcePlan {
  const records = reading.records;
  const chiefCpu = meanOf(records, workerCpu);
  const psUsed = meanOf(records, totalPsCpu);
  const trainingCpu = chiefCpu + psUsed;
  const workers = Math.max(1, Math.min(JOB_MASTER.maxWorkers, Math.floor(reading.limitCpuMilli / 1000 / Math.max(trainingCpu, 1e-9))));
  const workerCpuMilli = Math.min(JOB_MASTER.maxPodCpuCores * 1000, ceilCores(chiefCpu * BRAIN_SERVICE.memFactor));
  const workerMemMiB = Math.ceil(maxOf(records, workerMem) * BRAIN_SERVICE.memFactor);
  const psCpuMilli = reading.psCpuMilli[0] ?? 1000;
  const psCount = Math.max(1, Math.min(JOB_MASTER.maxPs, Math.ceil((psUsed * workers * 1000) / psCpuMilli)));
  const psMemMiB = Math.max(reading.psMemMiB[0] ?? 0, estimatedPsMemMiB(reading, psCount));
  const plan: { ps?: RolePlan; workers?: RolePlan } = {};
  if (psCount !== reading.psCpuMilli.length) plan.ps = { replicas: psCount, cpuMilli: psCpuMilli, memMiB: psMemMiB };
  if (workers !== reading.workers) plan.workers = { replicas: workers, cpuMilli: workerCpuMilli, memMiB: Math.max(1, workerMemMiB) };
  return { ...plan, reason: `initial estimation: a worker needs ${round2(trainingCpu)} cores with its PS share: ${workers} workers, ${psCount} PS` };
}

/** PS memory each: used per PS x 1.2 when stable; with growth and declared steps, the growth per step x the steps / count. */
function estimatedPsMemMiB(reading: JobReading, psCount: number): number {
  const records = reading.records;
  const first = records[0];
  const last = records[records.length - 1];
  const stable = Math.ceil((maxOf(records, totalPsMem) / psCount) * BRAIN_SERVICE.memFactor);
  const declared = reading.request.declaredSteps;
  if (first === undefined || last === undefined || declared === null || last.atS <= first.atS) return stable;
  const steps = meanOf(records, (r) => r.stepsPerS) * (last.atS - first.atS);
  const growthPerStep = steps > 0 ? (totalPsMem(last) - totalPsMem(first)) / steps : 0;
  // Growth under the records' noise counts as stable.
  if (!(growthPerStep * steps > 0.05 * totalPsMem(first))) return stable;
  return Math.max(stable, Math.ceil((totalPsMem(last) + growthPerStep * Math.max(0, declared - reading.progressSteps)) / psCount));
}

/**
 * Running-stage tuning (the Go brain; a memory-hot PS gets 8 GiB more, checked by the policy at
 * every check); a CPU-hot PS (3-record mean
 * over 0.8) makes every PS bigger: CPU x min(32 / workers, 32 / used); a PS under 0.4 with an hour
 * or more left shrinks to max used + 4 cores; workers: 4 fewer when some PS is over 0.95, else
 * while the largest PS utilisation is under 0.8 and the speed did not drop by 10%, ceil(0.8 / util
 * x n), at most 4 more a round and 60 in all, within the budget.
 */
export function brainRunning(reading: JobReading, psMayChange: boolean): ResourcePlan | null {
  const records = lastRecords(reading.records, BRAIN_SERVICE.utilRecords);
  if (records.length < BRAIN_SERVICE.utilRecords) return null;
  const utils = psUtilMeans(records);
  const util = Math.max(0, ...utils);
  if (psMayChange && util > BRAIN_SERVICE.hotPsUtil) {
    const used = Math.max(1e-9, meanOf(records, totalPsCpu) / Math.max(1, utils.length));
    const factor = Math.min(JOB_MASTER.maxPodCpuCores / reading.workers, JOB_MASTER.maxPodCpuCores / used);
    if (factor > 1) {
      const migrate = reading.psCpuMilli.map((cpuMilli, rank): PsMigration => ({ rank, cpuMilli: Math.min(JOB_MASTER.maxPodCpuCores * 1000, Math.ceil((cpuMilli * factor) / 1000) * 1000), memMiB: reading.psMemMiB[rank]! }));
      return { migrate, reason: `CPU-hot PS (${round2(util)} over ${BRAIN_SERVICE.utilRecords} records): every PS x ${round2(factor)} CPU` };
    }
  }
  if (psMayChange && util < BRAIN_SERVICE.idlePsUtil && leftS(reading) >= BRAIN_SERVICE.shrinkMinLeftS) {
    const migrate: PsMigration[] = [];
    reading.psCpuMilli.forEach((cpuMilli, rank) => {
      const usedMost = maxOf(records, (r) => psOf(r)[rank]?.cpuUsedCores ?? 0);
      const target = ceilCores(usedMost + BRAIN_SERVICE.psCpuMarginCores);
      if (target < cpuMilli) migrate.push({ rank, cpuMilli: target, memMiB: reading.psMemMiB[rank]! });
    });
    if (migrate.length > 0) return { migrate, reason: `idle PS (${round2(util)}): shrunk to what they used + ${BRAIN_SERVICE.psCpuMarginCores} cores` };
  }
  if (utils.some((u) => u > BRAIN_SERVICE.psExhaustedUtil)) {
    const workers = Math.max(1, reading.workers - BRAIN_SERVICE.workersRemoved);
    if (workers < reading.workers) return { workers: { replicas: workers, cpuMilli: reading.workerCpuMilli, memMiB: reading.workerMemMiB }, reason: `a PS is exhausted (over ${BRAIN_SERVICE.psExhaustedUtil}): ${workers} workers` };
    return null;
  }
  if (util >= BRAIN_SERVICE.psHeadroomUtil) return null;
  const before = reading.beforeLastAddition;
  if (before !== null && speedOf(reading) < before.stepsPerS * (1 - BRAIN_SERVICE.speedDropShare)) return null;
  const target = Math.ceil((BRAIN_SERVICE.psHeadroomUtil / Math.max(util, 1e-9)) * reading.workers);
  const psHeldMilli = reading.psCpuMilli.reduce((sum, c) => sum + c, 0);
  const workerCpuMilli = Math.min(JOB_MASTER.maxPodCpuCores * 1000, ceilCores(meanOf(records, workerCpu) + 1));
  const budget = Math.floor((reading.limitCpuMilli - psHeldMilli) / workerCpuMilli);
  const workers = Math.min(JOB_MASTER.maxWorkers, reading.workers + BRAIN_SERVICE.maxWorkersAdded, target, budget);
  if (workers <= reading.workers) return null;
  const memMiB = Math.min(reading.workerMemMiB + BRAIN_SERVICE.memStepMiB, Math.max(1, Math.ceil(maxOf(records, workerMem) * BRAIN_SERVICE.memFactor)));
  return { workers: { replicas: workers, cpuMilli: workerCpuMilli, memMiB }, reason: `largest PS CPU ${round2(util)} under ${BRAIN_SERVICE.psHeadroomUtil}: ${workers} workers` };
}

/** Seconds of training left at the current speed, from the declared steps (Infinity when not declared). */
function leftS(reading: JobReading): number {
  const declared = reading.request.declaredSteps;
  const speed = speedOf(reading);
  if (declared === null || !(speed > 0)) return Infinity;
  return Math.max(0, declared - reading.progressSteps) / speed;
}
