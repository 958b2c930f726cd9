import type { TaskPlacement } from './allocation.js';
import type { JobSpec, ReplicaDemand, Role } from './job-spec.js';

/** One role of a running job as it runs now: how many replicas and what each holds. */
export interface RoleShape {
  readonly role: Role;
  readonly replicas: number;
  /**
   * What one replica holds. When the replicas of a role differ (an OOM relaunch gave some more
   * memory), the smallest CPU and memory among them: the slowest replica bounds the role.
   */
  readonly demand: ReplicaDemand;
}

/** A running job's shape, role by role in the spec's role order (roles without replicas left out). */
export type RuntimeShape = readonly RoleShape[];

/** The shape of a job that holds nothing (shared: one empty array for every such job). */
export const EMPTY_SHAPE: RuntimeShape = [];

/** The shape a job's tasks form, role by role in the spec's role order. */
export function shapeOfTasks(spec: JobSpec, tasks: readonly TaskPlacement[]): RuntimeShape {
  const shape = ROLE_SHAPES;
  let count = 0;
  for (const role of spec.roles) {
    let replicas = 0;
    let smallest: ReplicaDemand | undefined;
    for (const task of tasks) {
      if (task.role !== role.role) continue;
      replicas++;
      const d = task.demand;
      // A new object only where a replica holds less than the smallest so far (most hold the same demand).
      if (smallest === undefined) smallest = d;
      else if (d !== smallest && (d.cpuMilli < smallest.cpuMilli || d.memMiB < smallest.memMiB)) {
        smallest = { ...smallest, cpuMilli: Math.min(smallest.cpuMilli, d.cpuMilli), memMiB: Math.min(smallest.memMiB, d.memMiB) };
      }
    }
    if (smallest !== undefined) shape[count++] = { role: role.role, replicas, demand: smallest };
  }
  // A running job keeps its shape: a copy of its own length (a list pushed into keeps room for 16).
  return shape.slice(0, count);
}

/** The roles shapeOfTasks is listing, its first entries (reused, never emptied: an emptied array gives up its room). */
const ROLE_SHAPES: RoleShape[] = [];

/** The shape a job asks for: its spec's roles at their requested counts and demands. */
export function requestedRuntimeShape(spec: JobSpec): RuntimeShape {
  return spec.roles.map((role) => ({ role: role.role, replicas: role.replicas, demand: role.demand }));
}

/** Replicas of `role` in a shape (0 when absent). */
export function replicasIn(shape: RuntimeShape, role: Role): number {
  let count = 0;
  for (const r of shape) if (r.role === role) count += r.replicas;
  return count;
}

/** Per-replica demand of `role` in a shape, or null when the shape has none of it. */
export function demandIn(shape: RuntimeShape, role: Role): ReplicaDemand | null {
  for (const r of shape) if (r.role === role) return r.demand;
  return null;
}
