import { sameDemand, type JobSpec, type RoleSpec } from '../model/job-spec.js';
import { mixHash } from '../model/shape-ids.js';

/**
 * One list of roles per distinct list read, shared by every job of a trace that asks for it.
 * A trace reader makes a list per job, yet a trace has few distinct ones (Philly's 82,247 jobs ask
 * for ten): sharing them keeps less in memory for the run, and a queue keyed by the list (see
 * ShapeIds) finds a job's gang without hashing its fields. Two lists are the same when they hold,
 * role by role, the same name, replicas, memory use and demand (GPUs, GPU share, CPU, memory): every
 * field a role has. A list is found among those seen by a hash of its fields, then compared field
 * by field (writing each list out as JSON for a key took 1.7-2 µs a job, 0.14-0.17 s of loading Philly's jobs).
 */
export class SharedRoles {
  /** The lists seen, by the hash of their fields. */
  private readonly byHash = new Map<number, (readonly RoleSpec[])[]>();

  /** The job, asking for the shared copy of its list of roles (the job itself when its list is that copy). */
  shared(job: JobSpec): JobSpec {
    const roles = job.roles;
    const hash = hashOf(roles);
    const listed = this.byHash.get(hash);
    if (listed === undefined) {
      this.byHash.set(hash, [roles]);
      return job;
    }
    for (const known of listed) {
      if (known === roles) return job;
      if (sameRoles(known, roles)) return { ...job, roles: known };
    }
    listed.push(roles);
    return job;
  }

  /** Distinct lists seen. */
  get size(): number {
    let lists = 0;
    for (const listed of this.byHash.values()) lists += listed.length;
    return lists;
  }
}

/** A hash of a list's fields (lists the same have the same hash). */
function hashOf(roles: readonly RoleSpec[]): number {
  let hash = roles.length;
  for (const role of roles) {
    const d = role.demand;
    hash = mixHash(mixHash(mixHash(hash, role.role.length), role.role.charCodeAt(0)), role.replicas);
    hash = mixHash(mixHash(mixHash(mixHash(mixHash(hash, d.gpus), d.gpuMilli), d.cpuMilli), d.memMiB), role.memUseMiB ?? -1);
  }
  return hash;
}

/** True when two lists hold, role by role, the same fields. */
export function sameRoles(a: readonly RoleSpec[], b: readonly RoleSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    if (x.role !== y.role || x.replicas !== y.replicas || x.memUseMiB !== y.memUseMiB || !sameDemand(x.demand, y.demand)) return false;
  }
  return true;
}
