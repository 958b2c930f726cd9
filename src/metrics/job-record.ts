/** What the run summary reads of one job at the end of a run (the simulator's job state provides it). */
export interface JobRecord {
  /** Where the job stands: `completed` and `failed` are final; anything else is unfinished. */
  readonly phase: string;
  readonly spec: { readonly submitS: number; readonly user: string };
  /** The job's priority class (its spec's, `high` by default). */
  readonly priorityClass: 'high' | 'spot';
  /** When the job first started, or null when it never did. */
  readonly firstStartS: number | null;
  /** When the job completed or failed, or null while unfinished. */
  readonly endS: number | null;
  /** Seconds spent waiting in the queue (all waits, including after preemptions). */
  readonly queuedS: number;
  /** Seconds of `queuedS` it was CPU-starved: GPUs free for its gang, CPU not (see sim/cpu-starvation.ts). */
  readonly cpuStarvedWaitS: number;
  /** Data-worker-seconds it held (0 without data workers). */
  readonly dataWorkerS: number;
  readonly restarts: number;
  /** Its pods the OOM killer ended. */
  readonly oomKills: number;
  /** Times the job was preempted (by its policy or for a high-priority job). */
  readonly preemptions: number;
  /** GPU-seconds of training lost when its capacity was reclaimed without a save (spot jobs). */
  readonly reclaimLostGpuS: number;
  /** GPU-seconds of training whose result was lost to faults. */
  readonly lostGpuS: number;
  /** GPU-seconds faults kept the job from training. */
  readonly downtimeGpuS: number;
  /** GPUs held times seconds. */
  readonly attainedGpuS: number;
  /** CPU held times seconds, in thousandths of a core times seconds. */
  readonly attainedCpuMilliS: number;
  /** Seconds from submission to first start (to now, or to the end, when it never started). */
  queueS(nowS: number): number;
  /** Seconds from first start to the end (or to `nowS` while unfinished); 0 when never started. */
  wallSinceStartS(nowS: number): number;
  /** Effective training seconds. */
  effectiveS(): number;
  /** Seconds it would run alone: from its first start at its requested size, no faults, input keeping up (start-up plus its steps at the nominal step time). */
  runAloneS(): number;
  /** Seconds the training processes ran. */
  processRuntimeS(): number;
  /** Whole days from the first start to the end (or `nowS`), and how many of them a fault hit. */
  daysOfLife(nowS: number): { readonly days: number; readonly withFault: number };
}

/** A record of a job that did nothing (ended at 0, every count and time 0), with `fields` in its place (a summary's shape, a test's job). */
export function zeroJobRecord(fields: Partial<JobRecord> = {}): JobRecord {
  return {
    phase: 'failed',
    spec: { submitS: 0, user: '' },
    priorityClass: 'high',
    firstStartS: null,
    endS: 0,
    queuedS: 0,
    cpuStarvedWaitS: 0,
    dataWorkerS: 0,
    restarts: 0,
    oomKills: 0,
    preemptions: 0,
    reclaimLostGpuS: 0,
    lostGpuS: 0,
    downtimeGpuS: 0,
    attainedGpuS: 0,
    attainedCpuMilliS: 0,
    queueS: () => 0,
    wallSinceStartS: () => 0,
    effectiveS: () => 0,
    runAloneS: () => 0,
    processRuntimeS: () => 0,
    daysOfLife: () => ({ days: 0, withFault: 0 }),
    ...fields,
  };
}
