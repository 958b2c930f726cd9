import { assertNever, InvariantError } from '../errors.js';
import { isPsMigration, type Decision } from '../policies/decision.js';
import type { JobControl } from './job-control.js';
import type { JobRuntime } from './job-runtime.js';

/**
 * Validates a batch of decisions from the policy `by` and applies it through the job control:
 * preemptions first, then every removal (resizes, reshapes, detaches), then every addition, then
 * the resized and reshaped jobs take their shapes, then starts. A batch naming one job twice, a
 * decision for a job in the wrong phase, or a shape outside the spec's bounds is a policy bug
 * (InvariantError naming `by`).
 */
export function applyDecisions(control: JobControl, decisions: readonly Decision[], by: string): void {
  control.decidedBy = by;
  // A batch of one decision cannot name a job twice: no set of jobs is kept for it.
  const touched = decisions.length > 1 ? new Set<JobRuntime>() : null;
  const claim = (jobId: string, view?: object): JobRuntime => {
    const job = control.jobNamed(jobId, view);
    if (touched !== null) {
      if (touched.has(job)) throw new InvariantError(`${by}: two decisions for job ${jobId}`);
      touched.add(job);
    }
    return job;
  };
  // Resized and reshaped jobs, kept between the removals and the additions (made only for such a decision).
  let jobs: Map<Decision, JobRuntime> | null = null;
  // A preempted job waits for the first job the batch starts, when it starts one.
  let preemptor: JobRuntime | undefined;
  for (const decision of decisions) {
    if (decision.kind !== 'preempt') continue;
    if (preemptor === undefined) {
      const start = decisions.find((d) => d.kind === 'start');
      preemptor = start === undefined ? undefined : control.jobNamed(start.jobId, start.job);
    }
    control.preempt(claim(decision.jobId), decision.reclaim === true, preemptor);
  }
  for (const decision of decisions) {
    switch (decision.kind) {
      case 'resize': {
        const job = claim(decision.jobId);
        control.releaseForResize(job, decision.remove);
        (jobs ??= new Map()).set(decision, job);
        break;
      }
      case 'reshape-role': {
        const job = claim(decision.jobId);
        control.releaseForReshape(job, decision.role, decision.remove);
        (jobs ??= new Map()).set(decision, job);
        break;
      }
      case 'detach': {
        const job = claim(decision.jobId);
        control.detach(job, decision.tasks);
        break;
      }
      case 'start':
      case 'preempt':
      case 'attach':
        break;
      default:
        assertNever(decision);
    }
  }
  for (const decision of decisions) {
    if (decision.kind === 'resize') control.addTasks(jobs!.get(decision)!, decision.add);
    else if (decision.kind === 'reshape-role') control.addForReshape(jobs!.get(decision)!, decision.role, decision.add);
    else if (decision.kind === 'attach') control.attach(claim(decision.jobId), decision.tasks);
  }
  for (const decision of decisions) {
    if (decision.kind === 'resize') control.finishResize(jobs!.get(decision)!);
    else if (decision.kind === 'reshape-role') control.finishReshape(jobs!.get(decision)!, decision.pause, isPsMigration(decision));
  }
  for (const decision of decisions) if (decision.kind === 'start') control.start(claim(decision.jobId, decision.job), decision.tasks);
}
