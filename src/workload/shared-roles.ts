import type { JobSpec, RoleSpec } from '../model/job-spec.js';

/**
 * One list of roles per distinct list read, shared by every job of a trace that asks for it.
 * A trace reader makes a list per job, yet a trace has few distinct ones (Philly's 82,247 jobs ask
 * for a few dozen): sharing them keeps less in memory for the run, and a queue keyed by the list
 * (see ShapeIds) finds a job's gang without hashing its fields. Two lists are the same when they
 * write out alike as JSON (every field, in order), so a job keeps exactly what it asked for.
 */
export class SharedRoles {
  private readonly lists = new Map<string, readonly RoleSpec[]>();

  /** The job, asking for the shared copy of its list of roles (the job itself when its list is that copy). */
  shared(job: JobSpec): JobSpec {
    const key = JSON.stringify(job.roles);
    const known = this.lists.get(key);
    if (known === undefined) {
      this.lists.set(key, job.roles);
      return job;
    }
    return known === job.roles ? job : { ...job, roles: known };
  }

  /** Distinct lists seen. */
  get size(): number {
    return this.lists.size;
  }
}
