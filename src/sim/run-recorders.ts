import { AutoscaleRecorder, type AutoscaleRow } from './autoscale-recorder.js';
import { GanttRecorder, type GanttRow } from './gantt-recorder.js';
import type { JobRuntime } from './job-runtime.js';
import { UsageRecorder, type ClusterLevels, type UsageBin } from './usage-recorder.js';

/** What the recorders of a run saw: the data of usage.csv, gantt.csv and autoscale.csv. */
export interface RecordedRun {
  /** The cluster's levels in fixed bins of simulated time. */
  readonly usage: readonly UsageBin[];
  /** Width of the usage bins, seconds. */
  readonly usageBinS: number;
  /** Total GPUs installed. */
  readonly totalGpus: number;
  /** State intervals of a hash-chosen sample of jobs. */
  readonly gantt: readonly GanttRow[];
  /** Shape and speed over time of the first auto-scaled jobs. */
  readonly autoscale: readonly AutoscaleRow[];
}

/** What the recorders read of the simulation. */
export interface RecordersSetup {
  /** Time the run starts at (the first submission), seconds. */
  readonly startS: number;
  /** The run's sample period: the first width of the usage bins, seconds. */
  readonly samplePeriodS: number;
  readonly totalGpus: number;
  readonly jobs: readonly JobRuntime[];
  /** The cluster's levels now (O(1) to read). */
  readonly levels: () => ClusterLevels;
}

/** The recorders of the data a report draws, each O(1) per call; made only for runs whose data is written. */
export class RunRecorders {
  private readonly usage: UsageRecorder;
  private readonly gantt: GanttRecorder;
  private readonly autoscale = new AutoscaleRecorder();

  constructor(private readonly setup: RecordersSetup) {
    this.usage = new UsageRecorder(setup.startS, setup.samplePeriodS, setup.levels);
    this.gantt = new GanttRecorder(setup.jobs);
  }

  /** The levels held since the last call until `nowS` (call where the usage meter advances). */
  advanceTo(nowS: number): void {
    this.usage.advanceTo(nowS);
  }

  /** The auto-scaler made a plan for `job`. */
  onScalePlan(job: JobRuntime, nowS: number): void {
    this.autoscale.onPlan(job, nowS);
  }

  /** An instant ends at `nowS`: look at the followed jobs that changed. */
  endOfInstant(nowS: number): void {
    this.gantt.endOfInstant(nowS);
    this.autoscale.endOfInstant(nowS);
  }

  /** The run ended at `endS`: what was recorded. */
  finish(endS: number): RecordedRun {
    this.usage.advanceTo(endS);
    return {
      usage: this.usage.bins(),
      usageBinS: this.usage.binWidthS,
      totalGpus: this.setup.totalGpus,
      gantt: this.gantt.finish(endS),
      autoscale: this.autoscale.finish(endS),
    };
  }
}
