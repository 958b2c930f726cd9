import { nominalStepsPerS } from '../../model/speed.js';
import { ShapeQueue } from './shape-queue.js';
import {
  type OracleJobView,
  type OracleSchedulingPolicy,
  type SchedulingAction,
  type SchedulingContext,
} from '../types.js';

/**
 * Oracle remaining run time of a job in seconds: steps left (from `truth.totalSteps`, even for jobs
 * that end on convergence) divided by the true nominal speed at its requested shape. Only oracle
 * baselines (SJF, Tetris) may use it; learning policies cannot (their views have no truth).
 */
export function oracleRemainingS(job: Pick<OracleJobView, 'request' | 'truth' | 'progressSteps'>): number {
  const nominal = nominalStepsPerS({ speed: job.truth.speed, roles: job.request.roles });
  return Math.max(0, job.truth.totalSteps - job.progressSteps) / nominal;
}

/**
 * `sjf`: shortest job first, an oracle baseline. Queued jobs are ordered by their oracle remaining
 * run time (see `oracleRemainingS`; ties keep submission order) and started with all their
 * requested replicas (elastic jobs too, at their requested size). No preemption. Unlike `fifo`,
 * which blocks behind a head job that does not fit, SJF skips such a job and keeps going down the
 * list, so smaller jobs behind it start (backfilling; a big short job can starve while smaller ones
 * keep fitting).
 */
export function createSjf(): OracleSchedulingPolicy {
  // A queued job's remaining time does not change while it waits: its place is kept, not re-sorted per pass.
  const queue = new ShapeQueue<OracleJobView>((job, tie) => [oracleRemainingS(job), job.queuePosition, tie]);
  return {
    name: 'sjf',
    oracle: true,
    schedule: (context: SchedulingContext<OracleJobView>): readonly SchedulingAction[] => queue.backfill(context),
  };
}
