import { describe, expect, it } from 'vitest';
import { firstRepeatedId, idsKnownUnique, markIdsUnique } from '../../src/model/job-ids.js';
import { batchJob } from '../helpers.js';

describe('job ids found unique', () => {
  it('names the first id an earlier job has, and records a list with none as unique', () => {
    const repeated = ['a', 'b', 'c', 'b', 'a'].map((id) => batchJob(id, 0, 1, 100));
    expect(firstRepeatedId(repeated)).toBe('b');
    expect(idsKnownUnique(repeated)).toBe(false);
    const unique = ['a', 'b', 'c'].map((id) => batchJob(id, 0, 1, 100));
    expect(idsKnownUnique(unique)).toBe(false);
    expect(firstRepeatedId(unique)).toBeNull();
    expect(idsKnownUnique(unique)).toBe(true);
    // The record is of the list, not of its jobs: another list of them is not known.
    expect(idsKnownUnique([...unique])).toBe(false);
    expect(firstRepeatedId([])).toBeNull();
  });

  it('takes a mark as the finding (a marked list is not looked at again)', () => {
    const repeated = ['a', 'a'].map((id) => batchJob(id, 0, 1, 100));
    markIdsUnique(repeated);
    expect(idsKnownUnique(repeated)).toBe(true);
    expect(firstRepeatedId(repeated)).toBeNull();
  });
});
