/**
 * The constants of DLRover's auto-scaling, as REFERENCE §2 reads them from DLRover's code
 * (`master/resource/local_optimizer.py`, `resource/job.py`, `node/job_auto_scaler.py`,
 * `common/global_context.py`, the Go brain's optimizer) and seed 000. Every one is a documented
 * default a scenario may override through the policy's options.
 */

/** The job master's loop (REFERENCE §2, "Job-master loop"). */
export const JOB_MASTER = {
  /** Seconds between two checks of a job. */
  checkS: 30,
  /** Seconds between two plans of a job at least. */
  planIntervalS: 300,
  /** Seconds the worker count must have been stable before a plan. */
  stableWorkersS: 60,
  /** Seconds between two PS changes at least. */
  psChangeIntervalS: 3600,
  /** Seconds of training before the initial estimation (seed 000: "比如 3min"). */
  estimateAfterS: 180,
  /** Most PS a job may have. */
  maxPs: 15,
  /** Most workers a job may have. */
  maxWorkers: 60,
  /** Most CPU cores one pod may have (one node's). */
  maxPodCpuCores: 32,
  /** Seconds a scale-up pod may stay pending before it is asked again with half its CPU and memory. */
  pendingRelaunchS: 900,
  /** Floors of a pending pod's halved request: CPU cores and memory MiB. */
  pendingFloorCpuCores: 4,
  pendingFloorMemMiB: 6 * 1024,
  /** Records the master keeps per job (the sampler keeps as many). */
  recordsKept: 50,
} as const;

/** The local optimizer of single-job mode (REFERENCE §2, "Local optimizer"). */
export const LOCAL_OPTIMIZER = {
  /** Records it reads. */
  samples: 5,
  /** The created pods get limitCPU / this and limitMem / this. */
  createDivisor: 5,
  /** Most CPU cores of a created pod. */
  createMaxCpuCores: 16,
  /** Most memory of a created pod, MiB. */
  createMaxMemMiB: 8 * 1024,
  /** PS memory = max used x this. */
  psMemFactor: 1.2,
  /** Worker memory = max used x this. */
  workerMemFactor: 1.5,
  /** No workers are added above this PS utilisation. */
  psBusyUtil: 0.95,
  /** No workers are added when the last addition's speed ratio fell under this. */
  minAdditionSpeedRatio: 0.2,
  /** Workers are scaled towards this PS utilisation: n x (target / max PS util). */
  targetPsUtil: 0.9,
  /** A PS at or above this utilisation is hot. */
  hotPsUtil: 0.9,
} as const;

/** The brain service of cluster mode (REFERENCE §2, "Brain service"). */
export const BRAIN_SERVICE = {
  /** The cold plan without history: PS count, CPU cores and memory MiB each. */
  coldPs: 4,
  coldPsCpuCores: 12,
  coldPsMemMiB: 16 * 1024,
  /** Days of history a create plan reads (seed 000: "最近 7 天"). */
  historyDays: 7,
  /** From history: PS CPU = max used + this many cores. */
  psCpuMarginCores: 4,
  /** From history: total PS CPU = mean total x this. */
  psTotalCpuFactor: 1.5,
  /** Memory factor over what was used (PS from history, workers). */
  memFactor: 1.2,
  /** The first worker gets at least this many cores and this much memory (MiB). */
  firstWorkerMinCpuCores: 12,
  firstWorkerMinMemMiB: 16 * 1024,
  /** Records a PS utilisation is averaged over. */
  utilRecords: 3,
  /** Workers are removed when some PS is above this (3-record mean). */
  psExhaustedUtil: 0.95,
  /** Workers removed then. */
  workersRemoved: 4,
  /** Workers are added while the largest PS utilisation is under this. */
  psHeadroomUtil: 0.8,
  /** ... and the speed did not drop by this share since the last change. */
  speedDropShare: 0.1,
  /** Most workers added in one round. */
  maxWorkersAdded: 4,
  /** A PS whose 3-record mean CPU utilisation is above this is CPU-hot. */
  hotPsUtil: 0.8,
  /** A PS whose memory utilisation is above this in each of 3 records is memory-hot. */
  hotPsMemUtil: 0.9,
  /** Memory added to a memory-hot PS, MiB (at most this much a step, as the OOM relaunch). */
  memStepMiB: 8 * 1024,
  /** PS under this utilisation shrink to max used + the CPU margin, when an hour or more is left. */
  idlePsUtil: 0.4,
  /** Seconds left a PS shrink needs at least. */
  shrinkMinLeftS: 3600,
} as const;
