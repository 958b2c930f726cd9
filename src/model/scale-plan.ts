import type { Role } from './job-spec.js';

/** What one replica of a role gets: CPU in thousandths of a core and memory in MiB. */
export interface PodResource {
  readonly cpuMilli: number;
  readonly memMiB: number;
}

/** One pod a plan creates, removes or migrates (DLRover's PodMeta). */
export interface PodMeta {
  /** The pod's name: `<job>-edljob-<role>-<id>`. */
  readonly name: string;
  /** The pod's id within its role: a number never reused in the job. */
  readonly id: number;
  readonly type: Role;
  /** Its rank within the role (its position among the role's pods). */
  readonly rankIndex: number;
  /** Its service address: `<name>.dlrover.svc:2222` for a PS, '' otherwise. */
  readonly service: string;
  readonly resource: PodResource;
}

/**
 * One auto-scaling decision as DLRover's job master emits it: a ScalePlan
 * (`elastic.iml.github.io/v1alpha1`, REFERENCE §2), with the time it was made.
 */
export interface ScalePlanRecord {
  /** The job it scales (`spec.ownerJob`). */
  readonly ownerJob: string;
  /** Its number among the job's plans, from 0 (`metadata.name` is `<job>-scaleplan-<seq>`). */
  readonly seq: number;
  /** Simulated time the plan was made, seconds. */
  readonly atS: number;
  /** What the plan did, in words (e.g. "add 3 workers: PS CPU headroom"). */
  readonly reason: string;
  /** Target replicas and per-replica resource of each role it sets. */
  readonly replicaResourceSpecs: Readonly<Partial<Record<Role, { readonly replicas: number; readonly resource: PodResource }>>>;
  readonly createPods: readonly PodMeta[];
  readonly removePods: readonly PodMeta[];
  readonly migratePods: readonly PodMeta[];
  /** The PS service addresses after the plan, in rank order. */
  readonly psHosts: readonly string[];
}

/** The name of a job's pod: `<job>-edljob-<role>-<id>`, as DLRover's ElasticJob controller names them. */
export function podName(jobId: string, role: Role, id: number): string {
  return `${jobId}-edljob-${role}-${id}`;
}

/** The service address of a PS pod, as ScalePlans list them under `psHosts`. */
export function psServiceOf(podNameValue: string): string {
  return `${podNameValue}.dlrover.svc:2222`;
}
