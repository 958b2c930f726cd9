/** Constants of the simulated world that every policy faces alike (scenario `sim`). */
export interface SimParams {
  /** Training pause when a running job changes its replicas or restarts after preemption, in seconds. */
  readonly resizePauseS: number;
  /** Step-time multiplier of an all-reduce job whose workers span more than one rack (>= 1). */
  readonly crossRackSlowdown: number;
  /** Seconds of training after which a pod with less memory than its role uses is OOM-killed. */
  readonly oomAfterS: number;
  /** Seconds between two samples of the jobs a policy observes (CPU and memory used, steps/s). */
  readonly samplePeriodS: number;
  /**
   * What data workers on other nodes can send a job's GPU tasks, per node of those tasks, in CPU
   * thousandths of preprocessing output (its network's share); absent: no cap.
   */
  readonly dataWorkerNetworkCapCpuMilli?: number;
}

/**
 * Defaults of SimParams (the scenario `sim` section's defaults). The sample period is DLRover's
 * job master's 30 s check (REFERENCE §2).
 */
export const DEFAULT_SIM_PARAMS: SimParams = { resizePauseS: 30, crossRackSlowdown: 1.25, oomAfterS: 600, samplePeriodS: 30 };
