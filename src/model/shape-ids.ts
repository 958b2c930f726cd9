import type { JobRequest, RoleSpec } from './job-spec.js';

/** What decides a gang: a job's kind, allowed GPU models and roles (a request's or a spec's). */
export type Gang = Pick<JobRequest, 'kind' | 'gpuTypes' | 'roles'>;

/**
 * Numbers the gangs requests ask for: two requests get the same number exactly when they ask for
 * the same gang (the same kind and allowed GPU models, and role by role the same name, replicas
 * and replica demand: GPUs, GPU share, CPU, memory). Queues group their jobs by it. Numbered
 * without writing the gang out as a string (a large part of what a queue allocated per job): a
 * hash of its fields picks the few gangs seen with that hash, compared field by field.
 * Each user keeps its own numbering, so nothing outlives the run.
 */
export class ShapeIds {
  /** Ids of the gangs seen, by the hash of their fields. */
  private readonly byHash = new Map<number, number | number[]>();
  /** The first request seen of each gang, by id. */
  private readonly examples: Gang[] = [];
  /** Kinds, role names and GPU models numbered, so that hashing them reads no characters. */
  private readonly names = new Map<string, number>();
  /**
   * The last gang numbered for a list of roles (a generated trace's jobs of one shape share one
   * list): a request with that list, kind and GPU models has its number without hashing.
   */
  private readonly byRoles = new WeakMap<readonly RoleSpec[], { readonly kind: Gang['kind']; readonly gpuTypes: readonly string[]; readonly id: number }>();

  /** Gangs numbered so far. */
  get size(): number {
    return this.examples.length;
  }

  /** The number of the request's gang (a new one for a gang not seen before). */
  idOf(request: Gang): number {
    const known = this.byRoles.get(request.roles);
    if (known !== undefined && known.kind === request.kind && sameList(known.gpuTypes, request.gpuTypes)) return known.id;
    const id = this.numberOf(request);
    this.byRoles.set(request.roles, { kind: request.kind, gpuTypes: request.gpuTypes, id });
    return id;
  }

  /** The gang's number, from the hash of its fields. */
  private numberOf(request: Gang): number {
    const hash = this.hashOf(request);
    const listed = this.byHash.get(hash);
    if (listed !== undefined) {
      if (typeof listed === 'number') {
        if (sameGang(this.examples[listed]!, request)) return listed;
      } else {
        for (const id of listed) if (sameGang(this.examples[id]!, request)) return id;
      }
    }
    const id = this.examples.length;
    this.examples.push(request);
    if (listed === undefined) this.byHash.set(hash, id);
    else if (typeof listed === 'number') this.byHash.set(hash, [listed, id]);
    else listed.push(id);
    return id;
  }

  private hashOf(request: Gang): number {
    let hash = mixHash(this.nameId(request.kind), request.gpuTypes.length);
    for (const gpuType of request.gpuTypes) hash = mixHash(hash, this.nameId(gpuType));
    for (const role of request.roles) {
      const d = role.demand;
      hash = mixHash(mixHash(mixHash(hash, this.nameId(role.role)), role.replicas), d.gpus);
      hash = mixHash(mixHash(mixHash(hash, d.gpuMilli), d.cpuMilli), d.memMiB);
    }
    return hash;
  }

  private nameId(name: string): number {
    let id = this.names.get(name);
    if (id === undefined) this.names.set(name, (id = this.names.size));
    return id;
  }
}

/** True when two lists of GPU models are the same, in order. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** True when two requests ask for the same gang (what ShapeIds numbers alike). */
export function sameGang(a: Gang, b: Gang): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.gpuTypes.length !== b.gpuTypes.length || a.roles.length !== b.roles.length) return false;
  for (let k = 0; k < a.gpuTypes.length; k++) if (a.gpuTypes[k] !== b.gpuTypes[k]) return false;
  for (let k = 0; k < a.roles.length; k++) {
    const x = a.roles[k]!;
    const y = b.roles[k]!;
    if (x.role !== y.role || x.replicas !== y.replicas) return false;
    const d = x.demand;
    const e = y.demand;
    if (d.gpus !== e.gpus || d.gpuMilli !== e.gpuMilli || d.cpuMilli !== e.cpuMilli || d.memMiB !== e.memMiB) return false;
  }
  return true;
}

/** Mixes a number (an integer, or a fraction: its 1,024ths count too) into a 32-bit hash. */
export function mixHash(hash: number, value: number): number {
  return Math.imul(hash ^ (value | 0) ^ Math.imul((value * 1024) | 0, 0x27d4eb2d), 0x9e3779b1) ^ (hash >>> 15);
}
