import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTrace } from '../../src/cli/trace-generate.js';
import { nativeFormat } from '../../src/workload/formats/native.js';

const SAMPLES = join(import.meta.dirname, '../../traces/samples/native');

describe.each(['philly', 'alibaba-pai', 'ant'])('native sample of the %s generator', (style) => {
  it('is exactly what `trace generate --jobs 200 --seed 1` writes (scripts/make-samples.mjs)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-samples-')), `${style}.jsonl`);
    await generateTrace(style, 200, 1, out);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(SAMPLES, `${style}.jsonl`), 'utf8'));
  });

  it('reads back with no bad line', async () => {
    const skipped: unknown[] = [];
    let jobs = 0;
    for await (const _ of nativeFormat.readJobs([join(SAMPLES, `${style}.jsonl`)], { limit: Infinity, strict: false, onSkip: (e) => skipped.push(e) })) jobs++;
    expect(jobs).toBe(200);
    expect(skipped).toEqual([]);
  });
});
