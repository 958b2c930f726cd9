/**
 * The auto-scaler's history store: one record per finished job (its user, dataset, final shape,
 * usage, speed and sampled usage records) in an embedded SQLite database file, as DLRover's brain
 * keeps finished jobs to size new ones from (REFERENCE §2). SQLite runs as WebAssembly (sql.js):
 * no native build, the same bytes on every machine. The whole database is held in memory while
 * open; `save` writes it back in one atomic rename, so a reader never sees half a file.
 */
import { readFileSync, statSync } from 'node:fs';
import initSqlJs from 'sql.js';
import { ConfigError, InvariantError, oneLine } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

/** What the version table names the database as: a file without it is not a dlsim history. */
export const HISTORY_FORMAT = 'dlsim-history';
/** The schema version this build writes and reads. */
export const HISTORY_SCHEMA_VERSION = 1;
/** Sample times kept per job: DLRover's job master keeps its last 50 records (REFERENCE §2). */
export const MAX_SAMPLES_PER_JOB = 50;

/** Roles a history record describes (a job's parameter servers, workers and chief). */
export type HistoryRole = 'ps' | 'worker' | 'chief';
/** Every role a record describes, in column order. */
export const HISTORY_ROLES: readonly HistoryRole[] = ['ps', 'worker', 'chief'];

/** A role's final shape: replicas and what each held (all 0 when the job had no such role). */
export interface HistoryRoleShape {
  readonly replicas: number;
  /** CPU per replica in thousandths of a core. */
  readonly cpuMilli: number;
  /** Memory per replica in MiB. */
  readonly memMiB: number;
}

/** A role's sampled use per replica over the job's sampled records. */
export interface HistoryRoleUsage {
  /** Largest CPU cores one replica used in a sample. */
  readonly maxCpuCores: number;
  /** Mean over samples of the CPU cores one replica used. */
  readonly meanCpuCores: number;
  /** Largest memory one replica used in a sample, MiB. */
  readonly maxMemMiB: number;
}

/** What all the parameter servers of a job used together, over its sampled records. */
export interface HistoryPsTotals {
  /** Mean over samples of the CPU cores all PS used together. */
  readonly meanCpuCores: number;
  /** Largest CPU cores all PS used together in a sample. */
  readonly maxCpuCores: number;
  /** Largest memory all PS used together in a sample, MiB. */
  readonly maxMemMiB: number;
}

/** One role of one sampled record (per replica, as the sampler measured it). */
export interface HistorySample {
  /** When it was sampled, in history time (seconds). */
  readonly atS: number;
  readonly role: HistoryRole;
  readonly replicas: number;
  /** CPU cores one replica used. */
  readonly cpuCores: number;
  /** Memory one replica used, MiB. */
  readonly memMiB: number;
  /** The job's steps/s in that record. */
  readonly stepsPerS: number;
}

/** A finished job as the history keeps it (plain data). */
export interface HistoryRecord {
  readonly jobId: string;
  readonly user: string;
  /** The dataset it trained on; "" when unknown. */
  readonly dataset: string;
  /** When it finished, in history time: seconds on the clock that runs on from one run to the next. */
  readonly finishedAtS: number;
  /** The run that recorded it: scenario name and seed. */
  readonly runLabel: string;
  /** The shape it finished with, per role. */
  readonly shape: Readonly<Record<HistoryRole, HistoryRoleShape>>;
  /** Sampled use per replica, per role; null for a role never sampled. */
  readonly usage: Readonly<Record<HistoryRole, HistoryRoleUsage | null>>;
  /** Sampled use of all its PS together; null when its PS were never sampled. */
  readonly psTotals: HistoryPsTotals | null;
  /** Steps done over seconds trained. */
  readonly meanStepsPerS: number;
  /** Steps/s of its last sampled record (its mean speed when never sampled). */
  readonly finalStepsPerS: number;
  /** Steps it did in all. */
  readonly totalSteps: number;
  /** Its sampled records, one row per role, oldest first (at most MAX_SAMPLES_PER_JOB sample times). */
  readonly samples: readonly HistorySample[];
}

type SqlDatabase = initSqlJs.Database;
type SqlValue = initSqlJs.SqlValue;

let engine: Promise<initSqlJs.SqlJsStatic> | null = null;

/** SQLite's WebAssembly module, loaded once per thread. */
function sqlite(): Promise<initSqlJs.SqlJsStatic> {
  engine ??= initSqlJs();
  return engine;
}

const SHAPE_COLUMNS = HISTORY_ROLES.flatMap((role) => [`${role}_replicas`, `${role}_cpu_milli`, `${role}_mem_mib`]);
const USAGE_COLUMNS = HISTORY_ROLES.flatMap((role) => [`${role}_max_cpu_cores`, `${role}_mean_cpu_cores`, `${role}_max_mem_mib`]);
const PS_TOTAL_COLUMNS = ['ps_total_mean_cpu_cores', 'ps_total_max_cpu_cores', 'ps_total_max_mem_mib'];
/** Columns of `jobs` after its row id, in the order records are written and read. */
const JOB_COLUMNS = [
  'job_id',
  'user',
  'dataset',
  'finished_at_s',
  'run_label',
  ...SHAPE_COLUMNS,
  ...USAGE_COLUMNS,
  ...PS_TOTAL_COLUMNS,
  'mean_steps_per_s',
  'final_steps_per_s',
  'total_steps',
];
const SAMPLE_COLUMNS = ['at_s', 'role', 'replicas', 'cpu_cores', 'mem_mib', 'steps_per_s'];

/** The schema: a version table, the jobs, and their sampled records (a child table). */
const SCHEMA = `
CREATE TABLE dlsim_history (format TEXT NOT NULL, version INTEGER NOT NULL);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL, user TEXT NOT NULL, dataset TEXT NOT NULL, finished_at_s REAL NOT NULL, run_label TEXT NOT NULL,
  ${SHAPE_COLUMNS.map((c) => `${c} ${c.endsWith('replicas') ? 'INTEGER' : 'REAL'} NOT NULL`).join(', ')},
  ${[...USAGE_COLUMNS, ...PS_TOTAL_COLUMNS].map((c) => `${c} REAL`).join(', ')},
  mean_steps_per_s REAL NOT NULL, final_steps_per_s REAL NOT NULL, total_steps REAL NOT NULL
);
CREATE INDEX jobs_by_user_dataset ON jobs (user, dataset, finished_at_s);
CREATE TABLE samples (
  job INTEGER NOT NULL REFERENCES jobs (id), seq INTEGER NOT NULL,
  at_s REAL NOT NULL, role TEXT NOT NULL, replicas INTEGER NOT NULL,
  cpu_cores REAL NOT NULL, mem_mib REAL NOT NULL, steps_per_s REAL NOT NULL,
  PRIMARY KEY (job, seq)
);
`;

/**
 * A history database: opened from its file (or bytes), read and added to in memory, written back
 * whole by `save`. Every query binds its values as parameters.
 */
export class HistoryDb {
  private closed = false;

  private constructor(
    /** The file it was opened from and `save` writes to. */
    readonly file: string,
    private readonly db: SqlDatabase,
  ) {}

  /**
   * Opens the history in `file`: an empty one when the file is missing (it is created by `save`).
   * A file that is not a dlsim history (or is corrupt, or from a newer dlsim) is a one-line
   * ConfigError naming it.
   */
  static async open(file: string): Promise<HistoryDb> {
    let bytes: Uint8Array | null = null;
    try {
      if (!statSync(file).isFile()) throw new ConfigError(file, 'not a file (the history database must be a file)');
      bytes = readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') bytes = null;
      else if (error instanceof ConfigError) throw error;
      else if (code !== undefined) throw new ConfigError(file, `cannot read the history database (${code})`);
      else throw error;
    }
    return HistoryDb.fromBytes(bytes, file);
  }

  /** Opens a history from the bytes of its file (null or empty: a new, empty history), named `file` in messages and saves. */
  static async fromBytes(bytes: Uint8Array | null, file: string): Promise<HistoryDb> {
    const SQL = await sqlite();
    if (bytes === null || bytes.length === 0) {
      const db = new SQL.Database();
      db.run(SCHEMA);
      db.run('INSERT INTO dlsim_history (format, version) VALUES (?, ?)', [HISTORY_FORMAT, HISTORY_SCHEMA_VERSION]);
      return new HistoryDb(file, db);
    }
    let db: SqlDatabase | null = null;
    try {
      db = new SQL.Database(bytes);
      checkSchema(db, file);
      return new HistoryDb(file, db);
    } catch (error) {
      db?.close();
      if (error instanceof ConfigError) throw error;
      throw notHistory(file, error);
    }
  }

  /** Adds a finished job's record (its samples in their order; at most MAX_SAMPLES_PER_JOB sample times). */
  add(record: HistoryRecord): void {
    checkRecord(record);
    const values: SqlValue[] = [record.jobId, record.user, record.dataset, record.finishedAtS, record.runLabel];
    for (const role of HISTORY_ROLES) {
      const shape = record.shape[role];
      values.push(shape.replicas, shape.cpuMilli, shape.memMiB);
    }
    for (const role of HISTORY_ROLES) {
      const usage = record.usage[role];
      values.push(usage?.maxCpuCores ?? null, usage?.meanCpuCores ?? null, usage?.maxMemMiB ?? null);
    }
    const totals = record.psTotals;
    values.push(totals?.meanCpuCores ?? null, totals?.maxCpuCores ?? null, totals?.maxMemMiB ?? null);
    values.push(record.meanStepsPerS, record.finalStepsPerS, record.totalSteps);
    this.guard(() => {
      // One record is added whole or not at all.
      this.db.run('SAVEPOINT add_record');
      try {
        this.db.run(`INSERT INTO jobs (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map(() => '?').join(', ')})`, values);
        const rowId = this.rows('SELECT last_insert_rowid()', [])[0]![0]!;
        const insert = this.db.prepare(`INSERT INTO samples (job, seq, ${SAMPLE_COLUMNS.join(', ')}) VALUES (?, ?, ${SAMPLE_COLUMNS.map(() => '?').join(', ')})`);
        try {
          record.samples.forEach((s, seq) => insert.run([rowId, seq, s.atS, s.role, s.replicas, s.cpuCores, s.memMiB, s.stepsPerS]));
        } finally {
          insert.free();
        }
      } catch (error) {
        this.db.run('ROLLBACK TO add_record');
        throw error;
      } finally {
        this.db.run('RELEASE add_record');
      }
    });
  }

  /**
   * Records of `user`'s jobs on `dataset` that finished at or after `sinceS` and at or before
   * `untilS` (history time), in finish order (ties in the order they were added).
   */
  similar(user: string, dataset: string, sinceS: number, untilS: number): HistoryRecord[] {
    return this.guard(() => {
      const rows = this.rows(
        `SELECT id, ${JOB_COLUMNS.join(', ')} FROM jobs WHERE user = ? AND dataset = ? AND finished_at_s >= ? AND finished_at_s <= ? ORDER BY finished_at_s, id`,
        [user, dataset, sinceS, untilS],
      );
      return rows.map((row) => this.recordOf(row));
    });
  }

  /** Every record, in finish order (ties in the order they were added). */
  all(): HistoryRecord[] {
    return this.guard(() => this.rows(`SELECT id, ${JOB_COLUMNS.join(', ')} FROM jobs ORDER BY finished_at_s, id`, []).map((row) => this.recordOf(row)));
  }

  /** How many records the history holds. */
  get size(): number {
    return this.guard(() => this.number(this.rows('SELECT count(*) FROM jobs', [])[0]![0]!, 'count'));
  }

  /** The latest finish time of any record (history time, seconds), or null for an empty history. */
  latestFinishS(): number | null {
    return this.guard(() => {
      const value = this.rows('SELECT max(finished_at_s) FROM jobs', [])[0]![0]!;
      return value === null ? null : this.number(value, 'finished_at_s');
    });
  }

  /** The whole database as the bytes of its file. */
  bytes(): Uint8Array {
    return this.guard(() => this.db.export());
  }

  /** Writes the whole database to its file atomically (a temporary file renamed over it; none left behind on error). */
  save(): void {
    writeFileAtomic(this.file, this.bytes());
  }

  /** Lets the in-memory database go (nothing is saved). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /** Runs `work`; a failure of SQLite (a corrupt page met late) is a ConfigError naming the file. */
  private guard<T>(work: () => T): T {
    if (this.closed) throw new InvariantError(`history ${this.file} is closed`);
    try {
      return work();
    } catch (error) {
      if (error instanceof ConfigError || error instanceof InvariantError) throw error;
      throw notHistory(this.file, error);
    }
  }

  /** The rows a query returns, its values bound as parameters. */
  private rows(sql: string, params: SqlValue[]): SqlValue[][] {
    const statement = this.db.prepare(sql);
    try {
      statement.bind(params);
      const rows: SqlValue[][] = [];
      while (statement.step()) rows.push(statement.get());
      return rows;
    } finally {
      statement.free();
    }
  }

  /** A record from a `jobs` row (its id first, then JOB_COLUMNS) and its samples. */
  private recordOf(row: readonly SqlValue[]): HistoryRecord {
    let i = 1;
    const next = (): SqlValue => row[i++]!;
    const text = (column: string): string => {
      const value = next();
      if (typeof value !== 'string') throw notHistory(this.file, new Error(`jobs.${column} is not text`));
      return value;
    };
    const num = (column: string): number => this.number(next(), `jobs.${column}`);
    const maybe = (column: string): number | null => {
      const value = row[i];
      if (value === null) {
        i++;
        return null;
      }
      return num(column);
    };
    const jobId = text('job_id');
    const user = text('user');
    const dataset = text('dataset');
    const finishedAtS = num('finished_at_s');
    const runLabel = text('run_label');
    const shape = {} as Record<HistoryRole, HistoryRoleShape>;
    for (const role of HISTORY_ROLES) shape[role] = { replicas: num(`${role}_replicas`), cpuMilli: num(`${role}_cpu_milli`), memMiB: num(`${role}_mem_mib`) };
    const usage = {} as Record<HistoryRole, HistoryRoleUsage | null>;
    for (const role of HISTORY_ROLES) {
      const maxCpuCores = maybe(`${role}_max_cpu_cores`);
      const meanCpuCores = maybe(`${role}_mean_cpu_cores`);
      const maxMemMiB = maybe(`${role}_max_mem_mib`);
      usage[role] = maxCpuCores === null || meanCpuCores === null || maxMemMiB === null ? null : { maxCpuCores, meanCpuCores, maxMemMiB };
    }
    const meanCpuCores = maybe('ps_total_mean_cpu_cores');
    const maxCpuCores = maybe('ps_total_max_cpu_cores');
    const maxMemMiB = maybe('ps_total_max_mem_mib');
    const psTotals = meanCpuCores === null || maxCpuCores === null || maxMemMiB === null ? null : { meanCpuCores, maxCpuCores, maxMemMiB };
    const meanStepsPerS = num('mean_steps_per_s');
    const finalStepsPerS = num('final_steps_per_s');
    const totalSteps = num('total_steps');
    const samples = this.rows(`SELECT ${SAMPLE_COLUMNS.join(', ')} FROM samples WHERE job = ? ORDER BY seq`, [row[0]!]).map((s) => this.sampleOf(s));
    return { jobId, user, dataset, finishedAtS, runLabel, shape, usage, psTotals, meanStepsPerS, finalStepsPerS, totalSteps, samples };
  }

  private sampleOf(row: readonly SqlValue[]): HistorySample {
    const role = row[1];
    if (!HISTORY_ROLES.includes(role as HistoryRole)) throw notHistory(this.file, new Error(`samples.role ${JSON.stringify(role)} is not a role`));
    return {
      atS: this.number(row[0]!, 'samples.at_s'),
      role: role as HistoryRole,
      replicas: this.number(row[2]!, 'samples.replicas'),
      cpuCores: this.number(row[3]!, 'samples.cpu_cores'),
      memMiB: this.number(row[4]!, 'samples.mem_mib'),
      stepsPerS: this.number(row[5]!, 'samples.steps_per_s'),
    };
  }

  private number(value: SqlValue, column: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw notHistory(this.file, new Error(`${column} is not a number`));
    return value;
  }
}

/** Throws unless `db` is a dlsim history of a version this build reads, with its tables intact. */
function checkSchema(db: SqlDatabase, file: string): void {
  const check = db.exec('PRAGMA quick_check')[0]?.values[0]?.[0];
  if (check !== 'ok') throw notHistory(file, new Error(`integrity check: ${String(check)}`));
  const tables = new Set((db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map((row) => row[0]));
  if (!tables.has('dlsim_history')) throw new ConfigError(file, `not a dlsim history database (an SQLite file without its dlsim_history table)`);
  const version = db.exec('SELECT format, version FROM dlsim_history')[0]?.values;
  if (version?.length !== 1 || version[0]![0] !== HISTORY_FORMAT || typeof version[0]![1] !== 'number') {
    throw new ConfigError(file, 'not a dlsim history database (its dlsim_history table does not name the format)');
  }
  const found = version[0]![1];
  if (found !== HISTORY_SCHEMA_VERSION) {
    const why = found > HISTORY_SCHEMA_VERSION ? 'written by a newer dlsim' : 'an older schema';
    throw new ConfigError(file, `history schema version ${found} (${why}); this dlsim reads version ${HISTORY_SCHEMA_VERSION}`);
  }
  // Every column this build reads must be there: a missing one is named now rather than mid-run.
  db.exec(`SELECT id, ${JOB_COLUMNS.join(', ')} FROM jobs LIMIT 0`);
  db.exec(`SELECT job, seq, ${SAMPLE_COLUMNS.join(', ')} FROM samples LIMIT 0`);
}

/** The error for a file SQLite cannot read as a dlsim history: one line naming the file. */
function notHistory(file: string, error: unknown): ConfigError {
  const why = error instanceof Error ? error.message : String(error);
  return new ConfigError(file, `not a dlsim history database, or a corrupt one (${oneLine(why)})`);
}

/** Throws an InvariantError (a bug in the caller) for a record the history cannot keep. */
function checkRecord(record: HistoryRecord): void {
  const numbers: [string, number][] = [
    ['finishedAtS', record.finishedAtS],
    ['meanStepsPerS', record.meanStepsPerS],
    ['finalStepsPerS', record.finalStepsPerS],
    ['totalSteps', record.totalSteps],
  ];
  for (const role of HISTORY_ROLES) {
    const shape = record.shape[role];
    numbers.push([`shape.${role}.replicas`, shape.replicas], [`shape.${role}.cpuMilli`, shape.cpuMilli], [`shape.${role}.memMiB`, shape.memMiB]);
  }
  for (const [name, value] of numbers) {
    if (!Number.isFinite(value)) throw new InvariantError(`history record of job ${record.jobId}: ${name} ${value} is not a finite number`);
  }
  const times = new Set(record.samples.map((s) => s.atS));
  if (times.size > MAX_SAMPLES_PER_JOB) {
    throw new InvariantError(`history record of job ${record.jobId}: ${times.size} sample times, at most ${MAX_SAMPLES_PER_JOB}`);
  }
}
