/**
 * What a running job's input preprocessing gets, from the CPUs it holds: its GPU tasks' own CPU
 * (coupled) and its data workers' (auxiliary tasks); and the state that follows from it: its speed
 * factor, its input queue's level and its data-worker-seconds (model/preprocessing.ts).
 */
import type { AuxTask, TaskPlacement } from '../model/allocation.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import { inputQueueLevelAfter, inputQueueLevelPerS, preprocessingSpeedFactor } from '../model/preprocessing.js';
import type { DataWorkerState, JobRuntime } from './job-runtime.js';

/**
 * CPU per GPU (thousandths of a core) working on a job's input: the CPU of its tasks that hold GPUs,
 * plus its data workers'. Data workers on a node without one of its GPU tasks send their output over
 * the network: what they supply counts up to `remoteCapCpuMilliPerNode` per node of its GPU tasks
 * (null: no cap). Null when it holds no GPU.
 */
export function inputCpuMilliPerGpu(tasks: readonly TaskPlacement[], aux: readonly AuxTask[], remoteCapCpuMilliPerNode: number | null): number | null {
  let gpus = 0;
  let cpuMilli = 0;
  let firstNode = -1;
  let trainingNodes: Set<number> | null = null;
  for (const task of tasks) {
    if (task.gpuIndices.length === 0) continue;
    gpus += (task.gpuIndices.length * task.demand.gpuMilli) / GPU_MILLI;
    cpuMilli += task.demand.cpuMilli;
    if (firstNode < 0) firstNode = task.nodeIndex;
    else if (task.nodeIndex !== firstNode) (trainingNodes ??= new Set([firstNode])).add(task.nodeIndex);
  }
  if (!(gpus > 0)) return null;
  let remoteCpuMilli = 0;
  for (const worker of aux) {
    const local = trainingNodes === null ? worker.nodeIndex === firstNode : trainingNodes.has(worker.nodeIndex);
    if (local) cpuMilli += worker.cpuMilli;
    else remoteCpuMilli += worker.cpuMilli;
  }
  const nodes = trainingNodes === null ? 1 : trainingNodes.size;
  cpuMilli += remoteCapCpuMilliPerNode === null ? remoteCpuMilli : Math.min(remoteCpuMilli, remoteCapCpuMilliPerNode * nodes);
  return cpuMilli / gpus;
}

/**
 * Brings a job's input up to date after its tasks or data workers changed, before its rate is
 * refreshed: the count and seconds of its data workers and the CPU per GPU on its input; for a job
 * whose input queue is not tracked, its speed factor too (a tracked job's follows its queue: see
 * refreshInputQueue).
 */
export function updateInputSupply(job: JobRuntime, tasks: readonly TaskPlacement[], aux: readonly AuxTask[], remoteCapCpuMilliPerNode: number | null, nowS: number): void {
  if (aux.length > 0 || job.dataState !== null) noteDataWorkers(dataStateOf(job, nowS), aux.length, nowS);
  const spec = job.preprocessing;
  if (spec === null) return;
  const perGpu = inputCpuMilliPerGpu(tasks, aux, remoteCapCpuMilliPerNode);
  if (job.dataState !== null) job.dataState.cpuMilliPerGpu = perGpu;
  else job.preprocessingFactor = perGpu === null ? 1 : preprocessingSpeedFactor(spec, perGpu);
}

/**
 * Moves a tracked job's input queue to now and sets how it moves from now on, and the job's speed
 * factor with it (called at every change of its rate, before the rate is read). The queue is a
 * fluid buffer: while it holds input, training runs at its GPUs' full speed and the queue moves at
 * supply minus that; once dry, training runs at the supply. Returns the seconds until it runs dry
 * at the current rates (Infinity when it does not).
 */
export function refreshInputQueue(job: JobRuntime, nowS: number): number {
  const state = job.dataState;
  if (state === null) return Infinity;
  state.level = inputQueueLevelAfter(state.level, state.levelPerS, nowS - state.levelAtS);
  state.levelAtS = nowS;
  const spec = job.preprocessing;
  if (spec === null || state.cpuMilliPerGpu === null) {
    // Without a spec its input keeps up: the queue reads full. Without GPUs: it reads empty.
    state.level = state.cpuMilliPerGpu === null && spec !== null ? 0 : 1;
    state.levelPerS = 0;
    job.preprocessingFactor = 1;
    return Infinity;
  }
  const supply = state.cpuMilliPerGpu / spec.cpuMilliPerGpu;
  const buffered = state.level > 0 || supply >= 1;
  // The factor is relative to the job's nominal speed (a trace job's recorded one).
  job.preprocessingFactor = buffered ? preprocessingSpeedFactor(spec, spec.cpuMilliPerGpu) : preprocessingSpeedFactor(spec, state.cpuMilliPerGpu);
  // Training consumes full speed while buffered, the supply once dry; nothing while it does not train.
  const consumed = !job.trainingActive ? 0 : buffered ? 1 : supply;
  state.levelPerS = inputQueueLevelPerS(spec, state.cpuMilliPerGpu, consumed);
  return state.levelPerS < 0 && state.level > 0 ? state.level / -state.levelPerS : Infinity;
}

/** A tracked job's input queue fill now (0 empty, 1 full). */
export function inputQueueLevelNow(state: DataWorkerState, nowS: number): number {
  return inputQueueLevelAfter(state.level, state.levelPerS, nowS - state.levelAtS);
}

/** The job's data-worker state, made when absent (no workers, an empty queue). */
export function dataStateOf(job: JobRuntime, nowS: number): DataWorkerState {
  return (job.dataState ??= { workers: 0, workerS: 0, sinceS: nowS, level: 0, levelAtS: nowS, levelPerS: 0, cpuMilliPerGpu: null });
}

/**
 * Starts tracking a job's input queue: its state made, and its queue as an untracked job's stands
 * (full while its input keeps up with its GPUs, otherwise dry: untracked, its supply has not changed
 * since it started, when its queue was empty).
 */
export function trackInputQueue(job: JobRuntime, tasks: readonly TaskPlacement[], aux: readonly AuxTask[], remoteCapCpuMilliPerNode: number | null, nowS: number): void {
  if (job.dataState !== null) return;
  const spec = job.preprocessing;
  const perGpu = inputCpuMilliPerGpu(tasks, aux, remoteCapCpuMilliPerNode);
  const state = dataStateOf(job, nowS);
  state.cpuMilliPerGpu = perGpu;
  state.level = spec === null || (perGpu !== null && perGpu >= spec.cpuMilliPerGpu) ? 1 : 0;
}

/** Counts the data-worker-seconds up to now and sets the count from now on. */
export function noteDataWorkers(state: DataWorkerState, workers: number, nowS: number): void {
  state.workerS += state.workers * (nowS - state.sinceS);
  state.workers = workers;
  state.sinceS = nowS;
}
