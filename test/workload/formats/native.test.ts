import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/job-spec.js';
import { nativeFormat, nativeLine, parseNativeLine } from '../../../src/workload/formats/native.js';
import { batchJob } from '../../helpers.js';

const PS_JOB: JobSpec = {
  id: 'rec',
  kind: 'ps',
  submitS: 12.5,
  user: 'u1',
  gpuTypes: ['V100', 'T4'],
  roles: [
    { role: 'worker', replicas: 4, demand: { gpus: 1, gpuMilli: 500, cpuMilli: 4000, memMiB: 8192 } },
    { role: 'ps', replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 16384 } },
  ],
  elastic: { minReplicas: 2, maxReplicas: 8, unit: 2 },
  totalSteps: 5000,
  speed: { kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 },
  source: 'x.csv:7',
  traceStatus: 'Failed',
  traceRetries: 2,
};

async function readAll(file: string, strict: boolean, limit = Infinity): Promise<{ jobs: JobSpec[]; skipped: TraceError[] }> {
  const skipped: TraceError[] = [];
  const jobs: JobSpec[] = [];
  for await (const job of nativeFormat.readJobs([file], { limit, strict, onSkip: (e) => skipped.push(e) })) jobs.push(job);
  return { jobs, skipped };
}

describe('native JSON Lines format', () => {
  it('round-trips every field of a job', () => {
    for (const job of [PS_JOB, batchJob('b', 3, 8, 3600, 2)]) {
      expect(parseNativeLine(nativeLine(job), 'f.jsonl', 1)).toEqual(job);
    }
  });

  it('writes fixed-speed jobs with durationS', () => {
    const line = JSON.parse(nativeLine(batchJob('b', 0, 1, 90))) as Record<string, unknown>;
    expect(line.durationS).toBe(90);
    expect(line).not.toHaveProperty('totalSteps');
  });

  it('names the file, line and field of a bad line', () => {
    expect(() => parseNativeLine('{"id":"a"', 'f.jsonl', 3)).toThrow(new TraceError('f.jsonl', 3, 'record', 'not valid JSON'));
    const negative = nativeLine(batchJob('b', 0, 1, 90)).replace('"submitS":0', '"submitS":-5');
    expect(() => parseNativeLine(negative, 'f.jsonl', 4)).toThrow(/^f\.jsonl:4: submitS: /);
    const both = JSON.stringify({ ...JSON.parse(nativeLine(batchJob('b', 0, 1, 90))), totalSteps: 3 });
    expect(() => parseNativeLine(both, 'f.jsonl', 5)).toThrow('f.jsonl:5: durationS: give exactly one of durationS and totalSteps');
  });

  it('keeps a priority class and rejects an unknown one at its field', () => {
    const spot = { ...batchJob('s', 0, 1, 10), priority: 'spot' as const };
    expect(parseNativeLine(nativeLine(spot), 'f.jsonl', 1).priority).toBe('spot');
    expect(parseNativeLine(nativeLine(batchJob('h', 0, 1, 10)), 'f.jsonl', 1).priority).toBeUndefined();
    const urgent = nativeLine(spot).replace('"spot"', '"urgent"');
    expect(() => parseNativeLine(urgent, 'f.jsonl', 2)).toThrow(/^f\.jsonl:2: priority: /);
  });

  it('streams files, skipping bad lines in lenient mode and stopping in strict mode', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dlsim-native-')), 'jobs.jsonl');
    const good = [batchJob('a', 0, 1, 10), batchJob('b', 5, 2, 20), batchJob('c', 9, 4, 30)].map(nativeLine);
    writeFileSync(file, ['# a comment', good[0], 'not json', '', good[1], good[2]].join('\n'));
    const lenient = await readAll(file, false);
    expect(lenient.jobs.map((j) => j.id)).toEqual(['a', 'b', 'c']);
    expect(lenient.skipped.map((e) => [e.line, e.countKey])).toEqual([[3, 'record: not valid JSON']]);
    await expect(readAll(file, true)).rejects.toThrow(`${file}:3: record: not valid JSON`);
    expect((await readAll(file, false, 2)).jobs.map((j) => j.id)).toEqual(['a', 'b']);
    expect((await readAll(file, false)).jobs[1]!.source).toBe(`test:b`);
  });

  it('reports a missing file as a one-line user error', async () => {
    await expect(readAll('/nonexistent/jobs.jsonl', true)).rejects.toThrow('/nonexistent/jobs.jsonl: no such file');
  });
});
