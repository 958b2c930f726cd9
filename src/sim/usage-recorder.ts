/** Levels of the cluster at one moment, as usage.csv records them. */
export interface ClusterLevels {
  /** GPUs allocated to jobs (shared GPUs fractionally). */
  readonly allocatedGpus: number;
  /** Allocated GPUs weighted by how fast their jobs train relative to full speed. */
  readonly busyGpus: number;
  /** CPU allocated to jobs, in thousandths of a core. */
  readonly allocatedCpuMilli: number;
  /** Jobs waiting in the queue. */
  readonly pendingJobs: number;
  /** Jobs running. */
  readonly runningJobs: number;
  /** Data workers over the cluster. */
  readonly dataWorkers: number;
}

/** One bin of usage.csv: the time-weighted mean of each level over the bin's covered time. */
export interface UsageBin extends ClusterLevels {
  /** Start of the bin, simulated seconds. */
  readonly timeS: number;
  /** Seconds of the bin the run covered (the last bin may be cut short by the run's end). */
  readonly coveredS: number;
}

/** Most bins usage.csv holds: past this, neighbouring bins are merged two by two (the bin width doubles). */
export const MAX_USAGE_BINS = 2000;

const LEVELS = 6;

/**
 * Records the cluster's levels over time in fixed bins of simulated time: each bin holds the
 * integral of every level over it, so its mean is exact whatever the events inside it. The first
 * width is the run's sample period; when a run outgrows MAX_USAGE_BINS bins, neighbours are merged
 * in pairs and the width doubles, so a run of any length keeps at most MAX_USAGE_BINS rows at a
 * cost of O(1) amortised per call (plus one per bin an idle stretch spans).
 */
export class UsageRecorder {
  private widthS: number;
  private lastS: number;
  /** Integrals (level x seconds) per bin, LEVELS numbers a bin, then the covered seconds. */
  private sums: number[] = [];
  private covered: number[] = [];

  constructor(
    private readonly startS: number,
    firstWidthS: number,
    private readonly levels: () => ClusterLevels,
  ) {
    this.widthS = firstWidthS > 0 && Number.isFinite(firstWidthS) ? firstWidthS : 1;
    this.lastS = startS;
  }

  /** Width of the bins now, seconds. */
  get binWidthS(): number {
    return this.widthS;
  }

  /** Adds the current levels over the time since the last call (call before every change of the levels). */
  advanceTo(nowS: number): void {
    if (!(nowS > this.lastS)) return;
    const level = this.levels();
    let fromS = this.lastS;
    while (fromS < nowS) {
      let bin = Math.floor((fromS - this.startS) / this.widthS);
      while (bin >= MAX_USAGE_BINS) {
        this.mergePairs();
        bin = Math.floor((fromS - this.startS) / this.widthS);
      }
      let binEndS = this.startS + (bin + 1) * this.widthS;
      // Float rounding can put fromS at its bin's end: it belongs to the next bin then.
      if (binEndS <= fromS) binEndS = this.startS + (++bin + 1) * this.widthS;
      if (bin >= MAX_USAGE_BINS) continue;
      const toS = Math.min(nowS, binEndS);
      this.add(bin, level, toS - fromS);
      fromS = toS;
    }
    this.lastS = nowS;
  }

  /** The bins so far, in time order (bins the run never reached are left out). */
  bins(): UsageBin[] {
    const out: UsageBin[] = [];
    for (let bin = 0; bin < this.covered.length; bin++) {
      const coveredS = this.covered[bin] ?? 0;
      if (!(coveredS > 0)) continue;
      const at = bin * LEVELS;
      const mean = (i: number): number => this.sums[at + i]! / coveredS;
      out.push({
        timeS: this.startS + bin * this.widthS,
        coveredS,
        allocatedGpus: mean(0),
        busyGpus: mean(1),
        allocatedCpuMilli: mean(2),
        pendingJobs: mean(3),
        runningJobs: mean(4),
        dataWorkers: mean(5),
      });
    }
    return out;
  }

  private add(bin: number, level: ClusterLevels, dtS: number): void {
    while (this.covered.length <= bin) {
      this.covered.push(0);
      for (let i = 0; i < LEVELS; i++) this.sums.push(0);
    }
    const at = bin * LEVELS;
    const sums = this.sums;
    sums[at] = sums[at]! + level.allocatedGpus * dtS;
    sums[at + 1] = sums[at + 1]! + level.busyGpus * dtS;
    sums[at + 2] = sums[at + 2]! + level.allocatedCpuMilli * dtS;
    sums[at + 3] = sums[at + 3]! + level.pendingJobs * dtS;
    sums[at + 4] = sums[at + 4]! + level.runningJobs * dtS;
    sums[at + 5] = sums[at + 5]! + level.dataWorkers * dtS;
    this.covered[bin] = this.covered[bin]! + dtS;
  }

  /** Merges bins two by two and doubles the width. */
  private mergePairs(): void {
    const bins = this.covered.length;
    const merged = Math.ceil(bins / 2);
    const sums: number[] = new Array<number>(merged * LEVELS).fill(0);
    const covered: number[] = new Array<number>(merged).fill(0);
    for (let bin = 0; bin < bins; bin++) {
      const into = bin >> 1;
      covered[into] = covered[into]! + this.covered[bin]!;
      for (let i = 0; i < LEVELS; i++) sums[into * LEVELS + i] = sums[into * LEVELS + i]! + this.sums[bin * LEVELS + i]!;
    }
    this.sums = sums;
    this.covered = covered;
    this.widthS *= 2;
  }
}
