import type { SortedMap } from '../../model/sorted-map.js';
import type { JobRequest, ReplicaDemand, Role } from '../../model/job-spec.js';
import type { OracleJobView, PlacementRequest } from '../types.js';
import { oracleRemainingS } from './sjf.js';

/** Queued jobs that ask for the same replicas (roles, demands, GPU models and kind): they fit and score alike on every machine. */
export interface TetrisClass {
  readonly signature: string;
  /** The placement request of the class's first job (gang trials: jobs of a class place alike). */
  readonly request: PlacementRequest;
  /** The first replica's role and demand, or null for a job without replicas. */
  readonly first: { readonly role: Role; readonly demand: ReplicaDemand } | null;
  /** More than one replica: the placement policy places it. */
  readonly gang: boolean;
  /** All replicas ask for the same resources. */
  readonly identical: boolean;
  /** Its jobs by [remaining work in whole milliseconds, queue position]: the first is the one a round would start. */
  readonly jobs: SortedMap<readonly number[], OracleJobView>;
  /** Its jobs' remaining work summed, whole milliseconds (an exact integer, whatever order jobs came and went in). */
  remainingMs: number;
  /** The key of its first job (the one a round would start), or null when it has none. */
  firstKey: readonly number[] | null;
  /** No candidate on the free capacity it last saw, which has only shrunk since. */
  dead: boolean;
}

/** What a gang asks for, as a string: jobs with the same one place alike (Tetris orders its classes by it). */
export function shapeSignature(request: JobRequest): string {
  let signature = `${request.kind}|${request.gpuTypes.join(',')}`;
  for (const role of request.roles) {
    const d = role.demand;
    signature += `|${role.role}x${role.replicas}:${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB}`;
  }
  return signature;
}

/** Orders class signatures (the order the round's sums run in). */
export function compareSignatures(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A queued job's remaining work as Tetris counts it: oracle remaining seconds, in whole milliseconds. */
export function remainingMsOf(job: OracleJobView): number {
  return Math.round(oracleRemainingS(job) * 1000);
}

