/**
 * Alibaba PAI GPU trace v2020 (alibaba/clusterdata `cluster-trace-gpu-v2020`, NSDI'22 "MLaaS in the
 * Wild"). The CSV files have no header row; the column orders below are those of the published
 * `*.header` files.
 *
 * Jobs come from `pai_job_table.csv` joined with `pai_task_table.csv` by job_name, and optionally
 * `pai_instance_table.csv` for retries. Each job-table row gives exactly one job or one skipped row.
 * - Passes: the task table is read first into a Map from job_name to its tasks (the task table has
 *   ~1.2M rows; holding one small record per task, with equal names and demands shared, is the
 *   accepted memory cost, since a job's tasks may be anywhere in the file: ~400 MB of heap for 1M
 *   jobs and 1.2M tasks); then the instance table, counting instances per task; then the job table
 *   twice, streamed: once for the smallest submission time (the trace's times carry a constant
 *   offset), once to emit jobs in file order. `limit` stops the last pass only.
 * - submitS = job start_time (the submission time) − the smallest start_time of the table; a job
 *   with no start_time falls back to its earliest task start.
 * - durationS = end − launch, where end = the job's end_time and launch = the earliest task
 *   start_time (else the job's start_time). The trace's job start_time is the submission time and
 *   the gap to the first task's start is PAI's queueing delay, so the run time starts at the launch:
 *   replaying submission-to-end would count that queueing twice. A Terminated or Failed job without
 *   an end_time ends at its tasks' latest end_time; a Running or Waiting job without one had not
 *   ended when the trace was cut and is skipped ("end_time: no end time"), as is any job with no end
 *   at all. End before launch is "end_time: end before start"; a zero run time becomes 1 s.
 * - Roles: one RoleSpec per role, in task-file order of first appearance; replicas = inst_num. The
 *   training tasks (`worker`, `tensorflow`, `PyTorchWorker`, `xComputeWorker`, `OpenmpiWorker`,
 *   `DecoderWorker`, `JupyterTask`, `TVMTuneMain`) → worker; `ps` → ps; auxiliary tasks that hold
 *   their resources for the job's life at a fixed count (`chief`, `evaluator`, `TensorboardTask`,
 *   `OpenmpiTracker`) → chief, which every policy keeps at its count and never scales. Any other
 *   name is a bad task row ("task_name: unknown task"). Tasks of one role with the same demand add
 *   their replicas; with different demands the job is skipped ("job_name: unlike tasks in one
 *   role"). A job with no worker task uses its chief as the worker (TensorFlow's chief is worker 0);
 *   with neither it is skipped ("job_name: no worker task").
 * - Kind: every job is `batch` with fixed speed, so the simulator replays the measured run time. The
 *   PS structure is kept as roles (placement sees the ps and worker replicas), but the speed follows
 *   the trace, not a PS speed model: the trace gives no step counts to fit one.
 * - Demand per replica: plan_cpu is percent of a core (600 → cpuMilli 6000), plan_mem GB (→ memMiB =
 *   round(GB × 1024)), plan_gpu percent of a GPU: 1..100 → one GPU with gpuMilli = plan_gpu × 10
 *   (50 → 500), a multiple of 100 above → that many whole GPUs, anything else above 100 → rounded up
 *   to whole GPUs (250 → 3: the sim cannot give a replica 2.5 GPUs). Empty plan_gpu, plan_cpu or
 *   plan_mem is 0 (no reservation), as the trace leaves CPU-only tasks' plan_gpu empty.
 * - gpuTypes: gpu_type P100/T4/V100/V100M32 of the job's GPU tasks (their union); MISC, CPU or empty
 *   on any GPU task → any GPU. Other values → "unknown GPU type".
 * - traceStatus = job status (all kept); user = user. A job-table row with no tasks → "no tasks", a
 *   repeated job_name → "duplicate id", a job one of whose task rows was bad (including a repeated
 *   task name) → "job_name: bad task" (the task row is reported too); task rows of jobs missing
 *   from the job table are ignored.
 * - traceRetries (only with an instance table): per task, instance rows beyond inst_num, summed over
 *   the job's tasks; instance rows of unknown jobs or tasks are ignored.
 *
 * Machines: `pai_machine_spec.csv` (machine,gpu_type,cap_cpu,cap_mem,cap_gpu; cores and GB): one
 * node per row, group = gpu_type, gpuType = gpu_type except CPU (null, 0 GPUs), cpuMilli = cores ×
 * 1000, memMiB = GB × 1024, racks of 32 in file order. The real file has 1,897 rows.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { ConfigError, TraceError } from '../../errors.js';
import type { ClusterSpec, NodeSpec } from '../../model/cluster-spec.js';
import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { JobSpec, ReplicaDemand, Role, RoleSpec } from '../../model/job-spec.js';
import { convertRow, csvRows, fileError, type CsvRow } from '../csv-rows.js';
import type { TraceFormat, TraceReadOptions } from '../trace-format.js';
import { checkNodeSize } from '../trace-rows.js';

/** Column order of the headerless `pai_job_table.csv`. */
export const PAI_JOB_COLUMNS = ['job_name', 'inst_id', 'user', 'status', 'start_time', 'end_time'] as const;

/** Column order of the headerless `pai_task_table.csv`. */
export const PAI_TASK_COLUMNS = [
  'job_name',
  'task_name',
  'inst_num',
  'status',
  'start_time',
  'end_time',
  'plan_cpu',
  'plan_mem',
  'plan_gpu',
  'gpu_type',
] as const;

/** Column order of the headerless `pai_instance_table.csv`. */
export const PAI_INSTANCE_COLUMNS = [
  'job_name',
  'task_name',
  'inst_name',
  'worker_name',
  'inst_id',
  'status',
  'start_time',
  'end_time',
  'machine',
] as const;

/** Column order of the headerless `pai_machine_spec.csv`. */
export const PAI_MACHINE_COLUMNS = ['machine', 'gpu_type', 'cap_cpu', 'cap_mem', 'cap_gpu'] as const;

/** GPU models of PAI tasks and machines that name one model (MISC is a mix of older GPUs; CPU has none). */
const PAI_GPU_MODELS: ReadonlySet<string> = new Set(['P100', 'T4', 'V100', 'V100M32']);

/** gpu_type values meaning "no specific model": MISC (older GPUs of several models), CPU and empty. */
const PAI_ANY_GPU_TYPES: ReadonlySet<string> = new Set(['MISC', 'CPU', '']);

/** Machines per rack when racks are assigned by file order (the trace publishes no topology). */
const MACHINES_PER_RACK = 32;

/** Shortest run time a job is replayed with, in seconds. */
const MIN_DURATION_S = 1;

/** The files readJobs recognises, by what their base name contains. */
const TABLE_NAMES = { job: 'job_table', task: 'task_table', instance: 'instance_table' } as const;

/** What `trace import` expects for this format. */
const FILES_HELP = 'pai_job_table.csv pai_task_table.csv [pai_instance_table.csv]';

/** One task of a job as read from the task table. */
interface PaiTask {
  readonly name: string;
  readonly role: Role;
  readonly replicas: number;
  readonly demand: ReplicaDemand;
  /** The task's GPU model, or null for "any" (MISC, CPU, empty). */
  readonly gpuType: string | null;
  readonly startS: number | null;
  readonly endS: number | null;
  /** Instance rows seen for this task in the instance table. */
  instances: number;
}

/** A job's tasks, whether one of its task rows was bad (then the job is skipped), and whether its job row was emitted. */
interface PaiJobTasks {
  readonly tasks: PaiTask[];
  hasBadTask: boolean;
  emitted: boolean;
}

/** The input files of readJobs, by table. */
interface PaiTables {
  readonly jobFile: string;
  readonly taskFile: string;
  readonly instanceFile: string | null;
}

/** Sorts the given files into tables by base name; throws ConfigError for an unknown or missing one. */
function tablesOf(files: readonly string[]): PaiTables {
  let jobFile: string | null = null;
  let taskFile: string | null = null;
  let instanceFile: string | null = null;
  const expected = `expected ${FILES_HELP}`;
  for (const file of files) {
    const name = basename(file);
    if (name.includes(TABLE_NAMES.job)) {
      if (jobFile !== null) throw new ConfigError(file, `a second job table (after ${jobFile})`);
      jobFile = file;
    } else if (name.includes(TABLE_NAMES.task)) {
      if (taskFile !== null) throw new ConfigError(file, `a second task table (after ${taskFile})`);
      taskFile = file;
    } else if (name.includes(TABLE_NAMES.instance)) {
      if (instanceFile !== null) throw new ConfigError(file, `a second instance table (after ${instanceFile})`);
      instanceFile = file;
    } else {
      throw new ConfigError(file, `not a PAI job, task or instance table: ${expected}`);
    }
  }
  if (jobFile === null) throw new ConfigError(files.join(' ') || 'alibaba-pai-2020', `no job table: ${expected}`);
  if (taskFile === null) throw new ConfigError(jobFile, `no task table: ${expected}`);
  return { jobFile, taskFile, instanceFile };
}

/**
 * Throws ConfigError unless the file is a readable regular file: csvRows pipes a read stream whose
 * open error (a missing file) `pipe` does not pass on to the parser, so it is checked first.
 */
async function requireReadableFile(file: string): Promise<void> {
  try {
    if ((await stat(file)).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    await access(file, constants.R_OK);
  } catch (error) {
    throw fileError(file, error);
  }
}

/** Throws "missing column" for the first column a (short) row lacks. */
function requireCells(row: CsvRow, columns: readonly string[]): void {
  for (const column of columns) row.text(column);
}

/** A non-empty text cell; throws "empty". */
function nonEmptyText(row: CsvRow, column: string): string {
  const text = row.text(column);
  if (text === '') throw row.error(column, 'empty');
  return text;
}

/** A time in seconds, or null for an empty cell; throws "negative time", "not a number". */
function optionalTimeS(row: CsvRow, column: string): number | null {
  return row.text(column) === '' ? null : row.nonNegative(column, 'negative time');
}

/** A non-negative number, or 0 for an empty cell. */
function amountOrZero(row: CsvRow, column: string): number {
  return row.text(column) === '' ? 0 : row.nonNegative(column);
}

/**
 * Task names of the trace's task table, by the role they play (see the header comment). The names
 * are those the published task table holds (worker, ps, chief, evaluator, tensorflow, PyTorchWorker,
 * xComputeWorker, TensorboardTask, DecoderWorker, JupyterTask, TVMTuneMain, OpenmpiTracker,
 * OpenmpiWorker, ReduceTask, …); a name not listed here is a bad task row ("unknown task").
 */
const ROLE_OF_TASK: ReadonlyMap<string, Role> = new Map<string, Role>([
  // The job's training (or only) processes.
  ['worker', 'worker'],
  ['tensorflow', 'worker'],
  ['PyTorchWorker', 'worker'],
  ['xComputeWorker', 'worker'],
  ['OpenmpiWorker', 'worker'],
  ['DecoderWorker', 'worker'],
  ['JupyterTask', 'worker'],
  ['TVMTuneMain', 'worker'],
  ['ps', 'ps'],
  // Auxiliary tasks that hold their resources for the job's life at a fixed count: the chief role.
  ['chief', 'chief'],
  ['evaluator', 'chief'],
  ['TensorboardTask', 'chief'],
  ['OpenmpiTracker', 'chief'],
]);

/** The role a task plays, by its name; null for a name the trace is not known to use. */
function roleOfTask(taskName: string): Role | null {
  return ROLE_OF_TASK.get(taskName) ?? null;
}

/** GPUs and share per replica from plan_gpu in percent of a GPU (see the header comment). */
function gpuDemandOf(planGpuPercent: number): { gpus: number; gpuMilli: number } {
  if (planGpuPercent === 0) return { gpus: 0, gpuMilli: GPU_MILLI };
  if (planGpuPercent <= 100) return { gpus: 1, gpuMilli: Math.min(GPU_MILLI, Math.max(1, Math.round(planGpuPercent * 10))) };
  // Above one GPU the sim places whole GPUs only: 250% becomes 3 GPUs, never less than asked.
  return { gpus: Math.ceil(planGpuPercent / 100 - 1e-9), gpuMilli: GPU_MILLI };
}

/**
 * Shares equal task names and demands between tasks: a full task table repeats a few names and
 * shapes over ~1.2M rows, and one object per distinct value keeps the task Map small.
 */
class TaskInterner {
  private readonly names = new Map<string, string>();
  private readonly demands = new Map<string, ReplicaDemand>();

  /** The shared copy of a task name. */
  name(text: string): string {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    this.names.set(text, text);
    return text;
  }

  /** The shared object for a demand. */
  demand(gpus: number, gpuMilli: number, cpuMilli: number, memMiB: number): ReplicaDemand {
    const key = `${gpus},${gpuMilli},${cpuMilli},${memMiB}`;
    const known = this.demands.get(key);
    if (known !== undefined) return known;
    const demand: ReplicaDemand = { gpus, gpuMilli, cpuMilli, memMiB };
    this.demands.set(key, demand);
    return demand;
  }
}

/** Converts one task row; throws TraceError for a bad row. */
function taskOfRow(row: CsvRow, interner: TaskInterner): { jobName: string; task: PaiTask } {
  requireCells(row, PAI_TASK_COLUMNS);
  const jobName = nonEmptyText(row, 'job_name');
  const name = interner.name(nonEmptyText(row, 'task_name'));
  const role = roleOfTask(name);
  if (role === null) throw row.error('task_name', 'unknown task', name);
  const replicas = row.number('inst_num');
  if (!Number.isInteger(replicas) || replicas < 1) throw row.error('inst_num', 'not a positive whole number', row.text('inst_num'));
  const startS = optionalTimeS(row, 'start_time');
  const endS = optionalTimeS(row, 'end_time');
  const cpuMilli = Math.round(amountOrZero(row, 'plan_cpu') * 10);
  const memMiB = Math.round(amountOrZero(row, 'plan_mem') * 1024);
  const { gpus, gpuMilli } = gpuDemandOf(amountOrZero(row, 'plan_gpu'));
  const gpuTypeText = row.text('gpu_type');
  if (!PAI_ANY_GPU_TYPES.has(gpuTypeText) && !PAI_GPU_MODELS.has(gpuTypeText)) {
    throw row.error('gpu_type', 'unknown GPU type', gpuTypeText);
  }
  const gpuType = PAI_GPU_MODELS.has(gpuTypeText) ? interner.name(gpuTypeText) : null;
  return {
    jobName,
    task: { name, role, replicas, demand: interner.demand(gpus, gpuMilli, cpuMilli, memMiB), gpuType, startS, endS, instances: 0 },
  };
}

/** Reads the task table into job_name → tasks; bad rows are reported per `options` and mark their job. */
async function readTasks(file: string, options: TraceReadOptions): Promise<Map<string, PaiJobTasks>> {
  const byJob = new Map<string, PaiJobTasks>();
  const interner = new TaskInterner();
  for await (const row of csvRows(file, { kind: 'fixed', columns: PAI_TASK_COLUMNS })) {
    const converted = convertRow(options, () => {
      const result = taskOfRow(row, interner);
      if (byJob.get(result.jobName)?.tasks.some((task) => task.name === result.task.name)) {
        throw row.error('task_name', 'duplicate task', result.task.name);
      }
      return result;
    });
    if (converted === null) {
      const jobName = row.has('job_name') ? row.text('job_name') : '';
      if (jobName === '') continue;
      const entry = byJob.get(jobName);
      if (entry === undefined) byJob.set(jobName, { tasks: [], hasBadTask: true, emitted: false });
      else entry.hasBadTask = true;
      continue;
    }
    const entry = byJob.get(converted.jobName);
    // A new array holds exactly its first task: `push` onto [] would reserve room for 17.
    if (entry === undefined) byJob.set(converted.jobName, { tasks: [converted.task], hasBadTask: false, emitted: false });
    else entry.tasks.push(converted.task);
  }
  return byJob;
}

/** Counts the instance rows of each known task (rows of unknown jobs or tasks are ignored). */
async function countInstances(file: string, byJob: Map<string, PaiJobTasks>, options: TraceReadOptions): Promise<void> {
  for await (const row of csvRows(file, { kind: 'fixed', columns: PAI_INSTANCE_COLUMNS })) {
    const key = convertRow(options, () => {
      requireCells(row, PAI_INSTANCE_COLUMNS);
      return { jobName: nonEmptyText(row, 'job_name'), taskName: nonEmptyText(row, 'task_name') };
    });
    if (key === null) continue;
    const task = byJob.get(key.jobName)?.tasks.find((t) => t.name === key.taskName);
    if (task !== undefined) task.instances++;
  }
}

/** A job converted from its row, with its absolute submission time (before the offset is removed). */
interface PaiJobDraft {
  readonly submitAbsS: number;
  readonly job: Omit<JobSpec, 'submitS'>;
}

/** Start and end of a job's tasks in absolute seconds (null when no task has one). */
function taskSpanOf(tasks: readonly PaiTask[]): { startS: number | null; endS: number | null } {
  let startS: number | null = null;
  let endS: number | null = null;
  for (const task of tasks) {
    if (task.startS !== null) startS = startS === null ? task.startS : Math.min(startS, task.startS);
    if (task.endS !== null) endS = endS === null ? task.endS : Math.max(endS, task.endS);
  }
  return { startS, endS };
}

/** Statuses of jobs that had not ended when the trace was cut: without a job end_time their run time is unknown. */
const UNFINISHED_STATUSES: ReadonlySet<string> = new Set(['Running', 'Waiting']);

/** Converts one job row with its tasks; throws TraceError for a bad row. */
function jobOfRow(row: CsvRow, byJob: ReadonlyMap<string, PaiJobTasks>, withInstances: boolean): PaiJobDraft {
  requireCells(row, PAI_JOB_COLUMNS);
  const id = nonEmptyText(row, 'job_name');
  const user = row.text('user');
  const status = row.text('status');
  const jobStartS = optionalTimeS(row, 'start_time');
  const jobEndS = optionalTimeS(row, 'end_time');
  const entry = byJob.get(id);
  if (entry === undefined) throw row.error('job_name', 'no tasks', id);
  if (entry.hasBadTask) throw row.error('job_name', 'bad task', id);
  const tasks = entry.tasks;

  const taskSpan = taskSpanOf(tasks);
  const submitAbsS = jobStartS ?? taskSpan.startS;
  if (submitAbsS === null) throw row.error('start_time', 'no start time');
  // A finished job without an end_time falls back to its tasks' end; an unfinished one has none yet.
  const endS = jobEndS ?? (UNFINISHED_STATUSES.has(status) ? null : taskSpan.endS);
  if (endS === null) throw row.error('end_time', 'no end time');
  const launchS = taskSpan.startS === null ? submitAbsS : Math.max(submitAbsS, taskSpan.startS);
  if (endS < launchS) throw row.error('end_time', 'end before start', row.text('end_time') || String(endS));
  // A job that ended in the second it launched still took a placement: replay it for the minimum.
  const durationS = Math.max(MIN_DURATION_S, endS - launchS);

  const hasWorker = tasks.some((task) => task.role === 'worker');
  if (!hasWorker && !tasks.some((task) => task.role === 'chief')) throw row.error('job_name', 'no worker task', id);
  // One role per kind: tasks of a role with the same demand add up; with different demands the job has no one shape.
  const roles: RoleSpec[] = [];
  for (const task of tasks) {
    const role = !hasWorker && task.role === 'chief' ? 'worker' : task.role;
    const index = roles.findIndex((r) => r.role === role);
    const same = roles[index];
    if (same === undefined) roles.push({ role, replicas: task.replicas, demand: task.demand });
    else if (same.demand === task.demand) roles[index] = { ...same, replicas: same.replicas + task.replicas };
    else throw row.error('job_name', 'unlike tasks in one role', id);
  }

  const gpuTasks = tasks.filter((task) => task.demand.gpus > 0);
  const gpuTypes = gpuTasks.some((task) => task.gpuType === null)
    ? []
    : [...new Set(gpuTasks.map((task) => task.gpuType!))].sort();
  const retries = tasks.reduce((sum, task) => sum + Math.max(0, task.instances - task.replicas), 0);

  return {
    submitAbsS,
    job: {
      id,
      kind: 'batch',
      user,
      gpuTypes,
      roles,
      elastic: null,
      totalSteps: durationS,
      speed: { kind: 'fixed' },
      source: `${row.file}:${row.line}`,
      ...(status === '' ? {} : { traceStatus: status }),
      ...(withInstances ? { traceRetries: retries } : {}),
    },
  };
}

/**
 * The smallest submission time in the job table (the trace's constant offset), over the rows with a
 * usable start_time (or, without one, a task start); 0 when there is none. Rows that are bad for
 * another reason still count: they only shift every submitS by the same constant, never below 0.
 */
async function smallestSubmitS(jobFile: string, byJob: ReadonlyMap<string, PaiJobTasks>): Promise<number> {
  let smallestS = Infinity;
  for await (const row of csvRows(jobFile, { kind: 'fixed', columns: PAI_JOB_COLUMNS })) {
    try {
      const startS = optionalTimeS(row, 'start_time') ?? taskSpanOf(byJob.get(row.text('job_name'))?.tasks ?? []).startS;
      if (startS !== null && startS < smallestS) smallestS = startS;
    } catch (error) {
      // Bad rows are reported by the emitting pass; here they only do not count.
      if (!(error instanceof TraceError)) throw error;
    }
  }
  return smallestS === Infinity ? 0 : smallestS;
}

/** Streams the jobs of a PAI job table joined with its task (and instance) tables, in job-table order. */
async function* readPaiJobs(files: readonly string[], options: TraceReadOptions): AsyncGenerator<JobSpec> {
  const tables = tablesOf(files);
  for (const file of [tables.jobFile, tables.taskFile, tables.instanceFile]) if (file !== null) await requireReadableFile(file);
  if (options.limit <= 0) return;
  const byJob = await readTasks(tables.taskFile, options);
  if (tables.instanceFile !== null) await countInstances(tables.instanceFile, byJob, options);
  const offsetS = await smallestSubmitS(tables.jobFile, byJob);
  let count = 0;
  for await (const row of csvRows(tables.jobFile, { kind: 'fixed', columns: PAI_JOB_COLUMNS })) {
    const job = convertRow(options, (): JobSpec => {
      const draft = jobOfRow(row, byJob, tables.instanceFile !== null);
      const entry = byJob.get(draft.job.id)!;
      if (entry.emitted) throw row.error('job_name', 'duplicate id', draft.job.id);
      entry.emitted = true;
      return { ...draft.job, submitS: draft.submitAbsS - offsetS };
    });
    if (job === null) continue;
    yield job;
    if (++count >= options.limit) return;
  }
}

/** Converts one machine row; `index` is the machine's position among those read so far. */
function machineOfRow(row: CsvRow, index: number): NodeSpec {
  requireCells(row, PAI_MACHINE_COLUMNS);
  const name = nonEmptyText(row, 'machine');
  const gpuType = nonEmptyText(row, 'gpu_type');
  if (!PAI_GPU_MODELS.has(gpuType) && gpuType !== 'MISC' && gpuType !== 'CPU') throw row.error('gpu_type', 'unknown GPU type', gpuType);
  const cpuCores = row.nonNegative('cap_cpu');
  const memGB = row.nonNegative('cap_mem');
  const capGpus = row.nonNegative('cap_gpu');
  if (!Number.isInteger(capGpus)) throw row.error('cap_gpu', 'not a whole number', row.text('cap_gpu'));
  const gpus = gpuType === 'CPU' ? 0 : capGpus;
  const size = { gpus, cpuMilli: Math.round(cpuCores * 1000), memMiB: Math.round(memGB * 1024) };
  checkNodeSize(row, size, { gpus: 'cap_gpu', cpuMilli: 'cap_cpu', memMiB: 'cap_mem' });
  return {
    name,
    group: gpuType,
    gpuType: gpus === 0 ? null : gpuType,
    gpus,
    cpuMilli: size.cpuMilli,
    memMiB: size.memMiB,
    rack: `rack-${Math.floor(index / MACHINES_PER_RACK)}`,
  };
}

/** Reads `pai_machine_spec.csv` as a cluster (bad rows per `options`; `limit` does not apply). */
async function readMachineSpec(file: string, options: TraceReadOptions): Promise<ClusterSpec> {
  await requireReadableFile(file);
  const nodes: NodeSpec[] = [];
  const seenNames = new Set<string>();
  for await (const row of csvRows(file, { kind: 'fixed', columns: PAI_MACHINE_COLUMNS })) {
    const node = convertRow(options, () => {
      const converted = machineOfRow(row, nodes.length);
      if (seenNames.has(converted.name)) throw row.error('machine', 'duplicate name', converted.name);
      return converted;
    });
    if (node === null) continue;
    seenNames.add(node.name);
    nodes.push(node);
  }
  return { nodes };
}

/** Task names writeJobs gives a job's roles: their role names (ps, chief, worker; each read back as itself). */
function taskNamesOf(job: JobSpec): string[] {
  const used = new Set<string>();
  return job.roles.map((role) => {
    if (used.has(role.role)) throw new ConfigError(job.source, `PAI tasks cannot express two ${role.role} roles in one job`);
    used.add(role.role);
    return role.role;
  });
}

/** plan_gpu (percent of a GPU) of a replica demand; "" for none. */
function planGpuOf(job: JobSpec, demand: ReplicaDemand): number | '' {
  if (demand.gpus === 0) return '';
  if (demand.gpus === 1) return demand.gpuMilli / 10;
  if (demand.gpuMilli !== GPU_MILLI) throw new ConfigError(job.source, 'PAI plan_gpu cannot express a share of several GPUs');
  return demand.gpus * 100;
}

/** gpu_type of a task: CPU without GPUs, MISC for any model, else the job's one allowed model. */
function gpuTypeOf(job: JobSpec, demand: ReplicaDemand): string {
  if (demand.gpus === 0) return 'CPU';
  if (job.gpuTypes.length === 0) return 'MISC';
  const model = job.gpuTypes[0]!;
  if (job.gpuTypes.length > 1 || !PAI_GPU_MODELS.has(model)) {
    throw new ConfigError(job.source, `PAI tasks name one GPU model of ${[...PAI_GPU_MODELS].join(', ')}, not ${job.gpuTypes.join('|')}`);
  }
  return model;
}

/**
 * Writes jobs as headerless pai_job_table.csv, pai_task_table.csv and pai_instance_table.csv that
 * readJobs reads back to the same jobs: tasks launch at submission, and a job's traceRetries become
 * extra (Failed) instance rows of its first task. Only fixed-speed jobs; elastic bounds are not kept.
 */
async function writePaiTables(jobs: readonly JobSpec[], outDir: string): Promise<string[]> {
  const jobRows: (string | number)[][] = [];
  const taskRows: (string | number)[][] = [];
  const instanceRows: (string | number)[][] = [];
  for (const job of jobs) {
    if (job.speed.kind !== 'fixed') {
      throw new ConfigError(job.source, `only fixed-speed (trace replay) jobs can be written as PAI jobs, not ${job.speed.kind}`);
    }
    const status = job.traceStatus ?? 'Terminated';
    const startS = job.submitS;
    const endS = job.submitS + job.totalSteps;
    jobRows.push([job.id, job.id, job.user, status, startS, endS]);
    const names = taskNamesOf(job);
    job.roles.forEach((role, index) => {
      const taskName = names[index]!;
      const { demand } = role;
      taskRows.push([
        job.id,
        taskName,
        role.replicas,
        status,
        startS,
        endS,
        demand.cpuMilli / 10,
        demand.memMiB / 1024,
        planGpuOf(job, demand),
        gpuTypeOf(job, demand),
      ]);
      const retries = index === 0 ? (job.traceRetries ?? 0) : 0;
      for (let attempt = 0; attempt < retries; attempt++) {
        const name = `${job.id}-${taskName}-retry-${attempt}`;
        instanceRows.push([job.id, taskName, name, name, job.id, 'Failed', startS, startS, '']);
      }
      for (let replica = 0; replica < role.replicas; replica++) {
        const name = `${job.id}-${taskName}-${replica}`;
        instanceRows.push([job.id, taskName, name, name, job.id, status, startS, endS, '']);
      }
    });
  }
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const [name, rows] of [
    ['pai_job_table.csv', jobRows],
    ['pai_task_table.csv', taskRows],
    ['pai_instance_table.csv', instanceRows],
  ] as const) {
    const file = join(outDir, name);
    await writeFile(file, stringify(rows));
    written.push(file);
  }
  return written;
}

/** Writes a cluster as a headerless `pai_machine_spec.csv` (racks are not kept: the reader re-derives them). */
export async function writePaiMachineSpec(cluster: ClusterSpec, file: string): Promise<void> {
  const rows = cluster.nodes.map((node) => [node.name, node.gpuType ?? 'CPU', node.cpuMilli / 1000, node.memMiB / 1024, node.gpus]);
  await writeFile(file, stringify(rows));
}

/** The Alibaba PAI GPU trace v2020 (job, task and instance tables; machine list). */
export const alibabaPai2020Format: TraceFormat = {
  id: 'alibaba-pai-2020',
  description: "Alibaba PAI GPU trace v2020 (alibaba/clusterdata cluster-trace-gpu-v2020, NSDI'22): jobs with their tasks as roles",
  filesHelp: `${FILES_HELP}; cluster: pai_machine_spec.csv`,
  readJobs: readPaiJobs,
  readCluster: readMachineSpec,
  writeJobs: writePaiTables,
};
