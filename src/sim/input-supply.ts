/**
 * What a running job's input preprocessing gets, from the CPUs it holds: its GPU tasks' own CPU
 * (coupled) and its data workers' (auxiliary tasks); and the state that follows from it: its speed
 * factor, its input queue's level and its data-worker-seconds (model/preprocessing.ts).
 */
import type { AuxTask, TaskPlacement } from '../model/allocation.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import { inputQueueLevelAfter, inputQueueLevelPerS, preprocessingSpeedFactor, type PreprocessingSpec } from '../model/preprocessing.js';
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
 * refreshed: its speed factor (1 without a preprocessing spec), and the count and seconds of its
 * data workers.
 */
export function updateInputSupply(job: JobRuntime, tasks: readonly TaskPlacement[], aux: readonly AuxTask[], remoteCapCpuMilliPerNode: number | null, nowS: number): void {
  if (aux.length > 0 || job.dataState !== null) noteDataWorkers(dataStateOf(job, nowS), aux.length, nowS);
  const spec = job.spec.preprocessing;
  if (spec === undefined) return;
  const perGpu = inputCpuMilliPerGpu(tasks, aux, remoteCapCpuMilliPerNode);
  job.preprocessingFactor = perGpu === null ? 1 : preprocessingSpeedFactor(spec, perGpu);
  if (job.dataState !== null) job.dataState.cpuMilliPerGpu = perGpu;
}

/** Moves a tracked job's input queue to now and sets how it moves from now on (called at every change of its rate). */
export function refreshInputQueue(job: JobRuntime, nowS: number): void {
  const state = job.dataState;
  if (state === null) return;
  state.level = inputQueueLevelAfter(state.level, state.levelPerS, nowS - state.levelAtS);
  state.levelAtS = nowS;
  const spec: PreprocessingSpec | undefined = job.spec.preprocessing;
  if (spec === undefined || state.cpuMilliPerGpu === null) {
    // Without a spec its input keeps up: the queue reads full while it runs. Without GPUs: empty.
    state.level = state.cpuMilliPerGpu === null && spec !== undefined ? 0 : 1;
    state.levelPerS = 0;
    return;
  }
  state.levelPerS = inputQueueLevelPerS(spec, state.cpuMilliPerGpu, job.rateStepsPerS > 0);
}

/** A tracked job's input queue fill now (0 empty, 1 full). */
export function inputQueueLevelNow(state: DataWorkerState, nowS: number): number {
  return inputQueueLevelAfter(state.level, state.levelPerS, nowS - state.levelAtS);
}

/** The job's data-worker state, made (empty queue, no workers) when absent. */
export function dataStateOf(job: JobRuntime, nowS: number): DataWorkerState {
  return (job.dataState ??= { workers: 0, workerS: 0, sinceS: nowS, level: 0, levelAtS: nowS, levelPerS: 0, cpuMilliPerGpu: null });
}

/** Counts the data-worker-seconds up to now and sets the count from now on. */
export function noteDataWorkers(state: DataWorkerState, workers: number, nowS: number): void {
  state.workerS += state.workers * (nowS - state.sinceS);
  state.workers = workers;
  state.sinceS = nowS;
}
