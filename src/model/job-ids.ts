import type { JobSpec } from './job-spec.js';

/**
 * Job lists whose ids were found unique (a scenario's job list is read-only once made, so the
 * finding holds for the list's life): a simulation of such a list need not look again, which over
 * a million jobs is a set of a million strings built for nothing.
 */
const CHECKED = new WeakSet<readonly JobSpec[]>();

/** The first id in the list that an earlier job already has, or null when every id is unique (the list is then recorded so). */
export function firstRepeatedId(jobs: readonly JobSpec[]): string | null {
  if (CHECKED.has(jobs)) return null;
  const ids = new Set<string>();
  for (let index = 0; index < jobs.length; index++) {
    const id = jobs[index]!.id;
    // One lookup a job: an id seen before leaves the set's size as it was.
    ids.add(id);
    if (ids.size === index) return id;
  }
  CHECKED.add(jobs);
  return null;
}

/** Records that the list's ids are unique (the caller found them so, e.g. with firstRepeatedId). */
export function markIdsUnique(jobs: readonly JobSpec[]): void {
  CHECKED.add(jobs);
}

/** True when the list was recorded as having unique ids (see markIdsUnique). */
export function idsKnownUnique(jobs: readonly JobSpec[]): boolean {
  return CHECKED.has(jobs);
}
