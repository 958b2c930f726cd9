import { nominalStepsPerS } from '../../model/speed.js';
import { placementRequestOf, type JobView, type SchedulingAction, type SchedulingContext, type SchedulingPolicy } from '../types.js';

/**
 * Oracle remaining run time of a job in seconds: steps left (from `spec.totalSteps`, the ground
 * truth, even for jobs that end on convergence) divided by the nominal speed at its requested shape.
 * Only oracle baselines (SJF, Tetris) may use it; learning policies must not.
 */
export function oracleRemainingS(job: Pick<JobView, 'spec' | 'progressSteps'>): number {
  return Math.max(0, job.spec.totalSteps - job.progressSteps) / nominalStepsPerS(job.spec);
}

/**
 * `sjf`: shortest job first, an oracle baseline. Queued jobs are ordered by their oracle remaining
 * run time (see `oracleRemainingS`; ties keep submission order) and started with all their
 * requested replicas (elastic jobs too, at their requested size). No preemption. Unlike `fifo`,
 * which blocks behind a head job that does not fit, SJF skips such a job and keeps going down the
 * list, so smaller jobs behind it start (backfilling; a big short job can starve while smaller ones
 * keep fitting).
 */
export function createSjf(): SchedulingPolicy {
  return {
    name: 'sjf',
    schedule(context: SchedulingContext): SchedulingAction[] {
      const order = context.queued
        .map((job, index) => ({ spec: job.spec, index, remainingS: oracleRemainingS(job) }))
        .sort((a, b) => a.remainingS - b.remainingS || a.index - b.index);
      const actions: SchedulingAction[] = [];
      const scratch = context.scratch();
      for (const { spec } of order) {
        const tasks = context.placement.place(scratch, placementRequestOf(spec));
        if (tasks !== null) actions.push({ kind: 'start', jobId: spec.id, tasks });
      }
      return actions;
    },
  };
}
