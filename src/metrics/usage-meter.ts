/** Levels of cluster use at one moment. */
export interface UsageLevels {
  /** GPUs allocated to jobs (shared GPUs fractionally). */
  readonly allocatedGpus: number;
  /** Allocated GPUs weighted by how fast their jobs train relative to full speed. */
  readonly busyGpus: number;
  /** CPU allocated to jobs, in thousandths of a core. */
  readonly allocatedCpuMilli: number;
}

/** Integrates cluster use over time: call `advanceTo` before every change of the levels. */
export class UsageMeter {
  private lastS: number;
  /** Allocated GPU-seconds so far. */
  allocatedGpuS = 0;
  /** Busy GPU-seconds so far. */
  busyGpuS = 0;
  /** Allocated CPU milli-seconds so far (thousandths of a core times seconds). */
  allocatedCpuMilliS = 0;

  constructor(
    startS: number,
    private readonly levels: () => UsageLevels,
  ) {
    this.lastS = startS;
  }

  /** Adds the current levels times the time since the last call. */
  advanceTo(nowS: number): void {
    const dtS = nowS - this.lastS;
    if (dtS <= 0) return;
    const level = this.levels();
    this.allocatedGpuS += level.allocatedGpus * dtS;
    this.busyGpuS += level.busyGpus * dtS;
    this.allocatedCpuMilliS += level.allocatedCpuMilli * dtS;
    this.lastS = nowS;
  }
}
