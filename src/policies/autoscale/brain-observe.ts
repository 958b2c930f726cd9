/**
 * What DLRover's job master reads off a PS job's sampled records (never the ground truth): speed,
 * CPU and memory used per role, each PS's utilisation. Every figure is a pure function of records.
 */
import type { Role } from '../../model/job-spec.js';
import type { ReplicaUsage, RoleUsage, UsageSample } from '../../model/usage.js';

/** One PS as a record shows it: what it used and what it holds. */
export type PsReading = ReplicaUsage;

/** The role's usage in a record, or null when the record has none of it. */
export function roleIn(record: UsageSample, role: Role): RoleUsage | null {
  for (const r of record.roles) if (r.role === role) return r;
  return null;
}

/** Each PS of a record, rank by rank (empty without PS). */
export function psOf(record: UsageSample): readonly PsReading[] {
  const ps = roleIn(record, 'ps');
  if (ps === null) return [];
  if (ps.perReplica !== undefined) return ps.perReplica;
  // A record without per-PS figures: every PS alike.
  return Array.from({ length: ps.replicas }, () => ({ cpuUsedCores: ps.cpuUsedCores, memUsedMiB: ps.memUsedMiB, cpuHeldCores: Number.NaN, memHeldMiB: Number.NaN }));
}

/** Total CPU cores the PS of a record used. */
export function totalPsCpu(record: UsageSample): number {
  return psOf(record).reduce((sum, p) => sum + p.cpuUsedCores, 0);
}

/** Total memory the PS of a record used, MiB. */
export function totalPsMem(record: UsageSample): number {
  return psOf(record).reduce((sum, p) => sum + p.memUsedMiB, 0);
}

/** The largest PS CPU utilisation (used ÷ held) in a record (0 without PS). */
export function maxPsUtil(record: UsageSample): number {
  return psOf(record).reduce((most, p) => Math.max(most, p.cpuHeldCores > 0 ? p.cpuUsedCores / p.cpuHeldCores : 0), 0);
}

/** Training workers (chief included) in a record. */
export function workersIn(record: UsageSample): number {
  return (roleIn(record, 'worker')?.replicas ?? 0) + (roleIn(record, 'chief')?.replicas ?? 0);
}

/** CPU cores the busiest training worker (or the chief) used in a record. */
export function workerCpu(record: UsageSample): number {
  let most = 0;
  for (const role of ['worker', 'chief'] as const) {
    const usage = roleIn(record, role);
    if (usage === null) continue;
    most = Math.max(most, usage.cpuUsedCores, ...(usage.perReplica ?? []).map((u) => u.cpuUsedCores));
  }
  return most;
}

/** Memory one training worker (or the chief) used in a record, MiB. */
export function workerMem(record: UsageSample): number {
  return Math.max(roleIn(record, 'worker')?.memUsedMiB ?? 0, roleIn(record, 'chief')?.memUsedMiB ?? 0);
}

/** Mean of `f` over records (0 for none). */
export function meanOf(records: readonly UsageSample[], f: (record: UsageSample) => number): number {
  if (records.length === 0) return 0;
  return records.reduce((sum, r) => sum + f(r), 0) / records.length;
}

/** Largest `f` over records (0 for none). */
export function maxOf(records: readonly UsageSample[], f: (record: UsageSample) => number): number {
  return records.reduce((most, r) => Math.max(most, f(r)), 0);
}

/** Mean CPU utilisation of each PS over records with the same PS count as the last, rank by rank. */
export function psUtilMeans(records: readonly UsageSample[]): number[] {
  const last = records[records.length - 1];
  if (last === undefined) return [];
  const count = psOf(last).length;
  const same = records.filter((r) => psOf(r).length === count);
  return Array.from({ length: count }, (_, rank) => meanOf(same, (r) => {
    const p = psOf(r)[rank]!;
    return p.cpuHeldCores > 0 ? p.cpuUsedCores / p.cpuHeldCores : 0;
  }));
}

/** The last `n` records (all when fewer). */
export function lastRecords(records: readonly UsageSample[], n: number): readonly UsageSample[] {
  return records.length <= n ? records : records.slice(records.length - n);
}

/** Records taken since `sinceS` (training at the current shape), with a positive speed. */
export function recordsSince(records: readonly UsageSample[], sinceS: number): UsageSample[] {
  return records.filter((r) => r.atS >= sinceS && r.stepsPerS > 0);
}
