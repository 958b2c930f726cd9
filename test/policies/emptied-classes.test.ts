import { describe, expect, it } from 'vitest';
import { EmptiedClasses } from '../../src/policies/scheduling/emptied-classes.js';

describe('EmptiedClasses: empty classes kept for their next job, at most a bound of them', () => {
  /** A queue's classes by name, each with its job count. */
  function queueOf(kept: number): { jobs: Map<string, number>; emptied: EmptiedClasses<string> } {
    const jobs = new Map<string, number>();
    const emptied = new EmptiedClasses<string>(kept, (name) => {
      if (jobs.get(name) === 0) jobs.delete(name);
    });
    return { jobs, emptied };
  }

  it('keeps up to the bound, then drops every listed class still empty', () => {
    const { jobs, emptied } = queueOf(2);
    for (const name of ['a', 'b', 'c']) jobs.set(name, 0);
    emptied.emptied('a');
    emptied.emptied('b');
    expect([...jobs.keys()]).toEqual(['a', 'b', 'c']);
    // 'b' took a job again: kept when the third emptying drops the others.
    jobs.set('b', 1);
    emptied.emptied('c');
    expect([...jobs.keys()]).toEqual(['b']);
  });

  it('lists a class each time it empties, and keeps none with a bound of 0', () => {
    const { jobs, emptied } = queueOf(0);
    jobs.set('a', 0);
    emptied.emptied('a');
    expect(jobs.size).toBe(0);
    const kept = queueOf(3);
    kept.jobs.set('a', 0);
    for (let k = 0; k < 3; k++) kept.emptied.emptied('a');
    expect(kept.jobs.size).toBe(1);
    kept.emptied.emptied('a');
    expect(kept.jobs.size).toBe(0);
  });
});
