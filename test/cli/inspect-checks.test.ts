import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { inspectTrace } from '../../src/cli/trace-inspect.js';

/** A fresh file of the given lines. */
function fileOf(name: string, lines: readonly string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dlsim-inspect-')), name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('trace inspect reads what a run would read', () => {
  it('is an error naming the first skipped row when no job is left, not an all-zero report', async () => {
    const file = fileOf('philly.csv', ['timestamp,duration,num_gpus,gpu_time,cluster', '2017-10-01 00:00:00,abc,1,60,c1']);
    const error = await inspectTrace([file], 'philly').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/no job read; the first of 1 bad row: .*philly\.csv:2: duration: /);
  });

  it('counts a job beyond the native bounds as a skipped row', async () => {
    const file = fileOf('philly.csv', ['timestamp,duration,num_gpus,gpu_time,cluster', '2017-10-01 00:00:00,60,1,60,c1', '2017-10-01 00:00:00,60,6214e9,60,c1']);
    const inspection = await inspectTrace([file], 'philly');
    expect(inspection.stats.jobs).toBe(1);
    expect(inspection.skippedRows.total).toBe(1);
  });
});
