import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { csvRows } from '../../src/workload/csv-rows.js';

async function collect(file: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const row of csvRows(file, { kind: 'first-line' })) out.push([String(row.line), row.text('a'), row.optionalText('b', '-')]);
  return out;
}

describe('csvRows', () => {
  it('reports a missing file as a one-line error instead of hanging', async () => {
    await expect(collect('/nonexistent/x.csv')).rejects.toThrow('/nonexistent/x.csv: no such file');
  });

  it('gives 1-based line numbers and typed accessors that name the column and reason', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dlsim-csv-')), 'x.csv');
    writeFileSync(file, 'a,b\n1,2\n\n3\nx,4\n');
    const rows: { line: number; error: unknown }[] = [];
    for await (const row of csvRows(file, { kind: 'first-line' })) {
      try {
        row.number('a');
        row.number('b');
        rows.push({ line: row.line, error: null });
      } catch (error) {
        rows.push({ line: row.line, error });
      }
    }
    expect(rows.map((r) => r.line)).toEqual([2, 4, 5]);
    expect(rows[1]!.error).toEqual(new TraceError(file, 4, 'b', 'missing column'));
    expect((rows[2]!.error as TraceError).message).toBe(`${file}:5: a: not a number ("x")`);
  });
});
