import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, InvariantError } from '../../src/errors.js';
import { HISTORY_ROLES, HistoryDb, MAX_SAMPLES_PER_JOB, type HistoryRecord, type HistorySample } from '../../src/io/history-db.js';
import { rejection } from '../cli-run.js';

/** A fresh folder for one test's files. */
function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'dlsim-history-'));
}

const NO_ROLE = { replicas: 0, cpuMilli: 0, memMiB: 0 };

/** A record with the given identity and finish time; the rest plausible, sampled twice. */
function record(jobId: string, user: string, dataset: string, finishedAtS: number, overrides: Partial<HistoryRecord> = {}): HistoryRecord {
  const samples: HistorySample[] = [
    { atS: finishedAtS - 60, role: 'worker', replicas: 2, cpuCores: 3.5, memMiB: 4000, stepsPerS: 20 },
    { atS: finishedAtS - 60, role: 'ps', replicas: 1, cpuCores: 6, memMiB: 5000, stepsPerS: 20 },
    { atS: finishedAtS - 30, role: 'worker', replicas: 2, cpuCores: 3.7, memMiB: 4100, stepsPerS: 21 },
    { atS: finishedAtS - 30, role: 'ps', replicas: 1, cpuCores: 6.5, memMiB: 5200, stepsPerS: 21 },
  ];
  return {
    jobId,
    user,
    dataset,
    finishedAtS,
    runLabel: 'test seed 1',
    shape: { ps: { replicas: 1, cpuMilli: 8000, memMiB: 8192 }, worker: { replicas: 2, cpuMilli: 4000, memMiB: 8192 }, chief: NO_ROLE },
    usage: { ps: { maxCpuCores: 6.5, meanCpuCores: 6.25, maxMemMiB: 5200 }, worker: { maxCpuCores: 3.7, meanCpuCores: 3.6, maxMemMiB: 4100 }, chief: null },
    psTotals: { meanCpuCores: 6.25, maxCpuCores: 6.5, maxMemMiB: 5200 },
    meanStepsPerS: 20.5,
    finalStepsPerS: 21,
    totalSteps: 20_000,
    samples,
    ...overrides,
  };
}

describe('HistoryDb', () => {
  it('opens a missing file as an empty history and creates the file only on save', async () => {
    const file = join(scratch(), 'history.sqlite');
    const db = await HistoryDb.open(file);
    expect(db.size).toBe(0);
    expect(db.latestFinishS()).toBeNull();
    expect(db.similar('alice', 'criteo', -Infinity, Infinity)).toEqual([]);
    expect(existsSync(file)).toBe(false);
    db.save();
    expect(readFileSync(file).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    db.close();
  });

  it('returns the records of one user and dataset finished in the window, in finish order', async () => {
    const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
    db.add(record('late', 'alice', 'criteo', 500));
    db.add(record('early', 'alice', 'criteo', 100));
    db.add(record('other-user', 'bob', 'criteo', 200));
    db.add(record('other-data', 'alice', 'imagenet', 200));
    db.add(record('tie', 'alice', 'criteo', 500));
    db.add(record('edge', 'alice', 'criteo', 300));
    expect(db.similar('alice', 'criteo', 0, 1000).map((r) => r.jobId)).toEqual(['early', 'edge', 'late', 'tie']);
    // Both ends of the window are in it.
    expect(db.similar('alice', 'criteo', 100, 300).map((r) => r.jobId)).toEqual(['early', 'edge']);
    expect(db.similar('alice', 'criteo', 101, 299)).toEqual([]);
    expect(db.similar('bob', 'criteo', 0, 1000).map((r) => r.jobId)).toEqual(['other-user']);
    expect(db.latestFinishS()).toBe(500);
    expect(db.size).toBe(6);
    db.close();
  });

  it('gives back every field of a record as it was added, nulls and samples included', async () => {
    const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
    const unsampled = record('cold', 'carol', '', 42.5, { usage: { ps: null, worker: null, chief: null }, psTotals: null, samples: [] });
    const sampled = record('warm', 'carol', '', 43, { shape: { ps: NO_ROLE, worker: { replicas: 1, cpuMilli: 1500, memMiB: 1024 }, chief: { replicas: 1, cpuMilli: 2000, memMiB: 2048 } } });
    db.add(unsampled);
    db.add(sampled);
    expect(db.similar('carol', '', 0, 100)).toEqual([unsampled, sampled]);
    expect(db.all()).toEqual([unsampled, sampled]);
    db.close();
  });

  it('reads back from its file what it saved', async () => {
    const file = join(scratch(), 'history.sqlite');
    const first = await HistoryDb.open(file);
    const a = record('a', 'alice', 'criteo', 3600);
    first.add(a);
    first.save();
    first.close();
    const second = await HistoryDb.open(file);
    expect(second.all()).toEqual([a]);
    const b = record('b', 'alice', 'criteo', 90_000);
    second.add(b);
    second.save();
    second.close();
    const third = await HistoryDb.open(file);
    expect(third.similar('alice', 'criteo', 0, 100_000)).toEqual([a, b]);
    expect(third.latestFinishS()).toBe(90_000);
    third.close();
  });

  it('binds values as parameters: quotes and SQL in names match only themselves', async () => {
    const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
    db.add(record('q', "o'brien", 'x" OR 1=1 --', 10));
    expect(db.similar("o'brien", 'x" OR 1=1 --', 0, 10).map((r) => r.jobId)).toEqual(['q']);
    expect(db.similar("x' OR '1'='1", 'anything', 0, 10)).toEqual([]);
    db.close();
  });

  it('refuses a record with more sample times than a job keeps, or a number that is not finite', async () => {
    const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
    const samples: HistorySample[] = Array.from({ length: MAX_SAMPLES_PER_JOB + 1 }, (_, i) => ({ atS: i, role: 'ps', replicas: 1, cpuCores: 1, memMiB: 1, stepsPerS: 1 }));
    expect(() => db.add(record('many', 'a', 'd', 100, { samples }))).toThrow(InvariantError);
    // Three roles at each of the most sample times a job keeps are fine.
    const full = samples.slice(1).flatMap((s) => HISTORY_ROLES.map((role) => ({ ...s, role })));
    db.add(record('full', 'a', 'd', 100, { samples: full }));
    expect(db.similar('a', 'd', 0, 100)[0]!.samples).toHaveLength(3 * MAX_SAMPLES_PER_JOB);
    expect(() => db.add(record('nan', 'a', 'd', Number.NaN))).toThrow(InvariantError);
    expect(db.size).toBe(1);
    db.close();
  });

  describe('a file that is not a dlsim history is a one-line ConfigError naming it', () => {
    async function openError(bytes: Uint8Array): Promise<ConfigError> {
      const file = join(scratch(), 'history.sqlite');
      writeFileSync(file, bytes);
      const error = await rejection(HistoryDb.open(file));
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message.startsWith(`${file}: `)).toBe(true);
      expect(message).not.toContain('\n');
      return error as ConfigError;
    }

    it('text', async () => {
      const error = await openError(Buffer.from('name,user\njob,alice\n'.repeat(40)));
      expect(error.message).toMatch(/not a dlsim history database, or a corrupt one \(file is not a database\)/);
    });

    it('another SQLite database', async () => {
      const SQL = await initSqlJs();
      const other = new SQL.Database();
      other.run('CREATE TABLE notes (text TEXT)');
      const error = await openError(other.export());
      other.close();
      expect(error.message).toMatch(/not a dlsim history database \(an SQLite file without its dlsim_history table\)/);
    });

    it('a history cut short', async () => {
      const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
      for (let i = 0; i < 40; i++) db.add(record(`j${i}`, 'alice', 'criteo', i));
      const bytes = db.bytes();
      db.close();
      const error = await openError(bytes.subarray(0, Math.floor(bytes.length / 2)));
      expect(error.message).toMatch(/not a dlsim history database, or a corrupt one/);
    });

    it('a history from a newer dlsim', async () => {
      const SQL = await initSqlJs();
      const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
      const newer = new SQL.Database(db.bytes());
      db.close();
      newer.run('UPDATE dlsim_history SET version = 99');
      const error = await openError(newer.export());
      newer.close();
      expect(error.message).toMatch(/history schema version 99 \(written by a newer dlsim\); this dlsim reads version 1/);
    });

    it('a history whose jobs table lost a column', async () => {
      const SQL = await initSqlJs();
      const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
      const broken = new SQL.Database(db.bytes());
      db.close();
      broken.run('ALTER TABLE jobs DROP COLUMN total_steps');
      const error = await openError(broken.export());
      broken.close();
      expect(error.message).toMatch(/no such column: total_steps/);
    });

    it('a folder', async () => {
      const dir = join(scratch(), 'history.sqlite');
      mkdirSync(dir);
      const error = await rejection(HistoryDb.open(dir));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(`${dir}: not a file (the history database must be a file)`);
    });
  });

  it('saves atomically: only the file is left, and a failed save leaves no temporary file and the old file intact', async () => {
    const dir = scratch();
    const file = join(dir, 'history.sqlite');
    const db = await HistoryDb.open(file);
    db.add(record('a', 'alice', 'criteo', 1));
    db.save();
    expect(readdirSync(dir)).toEqual(['history.sqlite']);
    const saved = readFileSync(file);
    db.add(record('b', 'alice', 'criteo', 2));
    db.save();
    expect(readdirSync(dir)).toEqual(['history.sqlite']);
    expect(readFileSync(file).equals(saved)).toBe(false);
    db.close();

    // A folder in the file's place makes the rename fail after the temporary file was written.
    const blockedDir = scratch();
    const blocked = join(blockedDir, 'history.sqlite');
    const other = await HistoryDb.fromBytes(null, blocked);
    other.add(record('c', 'alice', 'criteo', 3));
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'keep'), 'x');
    expect(() => other.save()).toThrow(ConfigError);
    expect(readdirSync(blockedDir)).toEqual(['history.sqlite']);
    expect(readdirSync(blocked)).toEqual(['keep']);
    other.close();
  });

  it('answers every window query as a filter of what was added would (property)', async () => {
    const db = await HistoryDb.fromBytes(null, 'memory.sqlite');
    const users = ['alice', 'bob'];
    const datasets = ['criteo', ''];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ user: fc.constantFrom(...users), dataset: fc.constantFrom(...datasets), finishedAtS: fc.integer({ min: 0, max: 50 }) }), { maxLength: 12 }),
        fc.constantFrom(...users),
        fc.constantFrom(...datasets),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 50 }),
        async (added, user, dataset, sinceS, untilS) => {
          const fresh = await HistoryDb.fromBytes(db.bytes(), 'memory.sqlite');
          try {
            added.forEach((a, i) => fresh.add(record(`j${i}`, a.user, a.dataset, a.finishedAtS, { samples: [] })));
            const expected = added
              .map((a, i) => ({ ...a, jobId: `j${i}`, i }))
              .filter((a) => a.user === user && a.dataset === dataset && a.finishedAtS >= sinceS && a.finishedAtS <= untilS)
              .sort((x, y) => x.finishedAtS - y.finishedAtS || x.i - y.i)
              .map((a) => a.jobId);
            expect(fresh.similar(user, dataset, sinceS, untilS).map((r) => r.jobId)).toEqual(expected);
          } finally {
            fresh.close();
          }
        },
      ),
      { numRuns: 60 },
    );
    db.close();
  });
});
