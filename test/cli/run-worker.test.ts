import { describe, expect, it } from 'vitest';
import runInWorker from '../../src/cli/run-worker.js';

describe('runInWorker', () => {
  it('returns the summary of a good run', async () => {
    const result = await runInWorker({ file: 'scenarios/quickstart.yaml', policy: 'fifo', seed: 1, sets: [] });
    expect('summary' in result && result.summary.jobs.submitted).toBeGreaterThan(0);
  });

  it('returns a user error as its message, since error classes do not cross threads', async () => {
    const result = await runInWorker({ file: 'scenarios/quickstart.yaml', policy: 'fifo', seed: 1, sets: ['recoveryTimes.manual.replace=1m'] });
    expect(result).toEqual({ userError: expect.stringMatching(/recoveryTimes\.manual\.replace: recovery policy manual has no time "replace"/) });
  });
});
