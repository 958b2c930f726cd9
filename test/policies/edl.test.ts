import { describe, expect, it } from 'vitest';
import { CapacityScratch } from '../../src/model/capacity.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { JobSpec } from '../../src/model/job-spec.js';
import { packPlacement } from '../../src/policies/placement/pack.js';
import {
  compareFulfillment,
  createEdl,
  EDL_MAX_LOAD,
  EDL_TICK_S,
  fulfillment,
  QUEUED_FULFILLMENT,
  trainerBounds,
  type EdlRank,
} from '../../src/policies/scheduling/edl.js';
import { placementRequestOf, type SchedulingAction, type SchedulingContext } from '../../src/policies/types.js';
import { JobRuntime } from '../../src/sim/job-runtime.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, batchJob, gpuCluster, gpuDemand, scenarioOf, NO_CHANGES } from '../helpers.js';

/** An elastic all-reduce job with 1-GPU trainers (unless told), requesting `workers`. */
function elasticJob(id: string, submitS: number, workers: number, min: number, max: number, totalSteps = 1000, gpus = 1): JobSpec {
  return allreduceJob(id, { submitS, workers, gpus, totalSteps, computeS: 0.9, commS: 0.1, elastic: { minReplicas: min, maxReplicas: max, unit: 1 } });
}

/** A hand-made moment: jobs already running with `workers` trainers (placed by pack, in order) and a queue. */
class Moment {
  readonly cluster: ClusterState;
  readonly running: JobRuntime[] = [];
  readonly queued: JobRuntime[] = [];

  constructor(nodes: number) {
    this.cluster = new ClusterState(gpuCluster(nodes, 8));
  }

  run(spec: JobSpec, workers: number): this {
    const tasks = packPlacement.place(new CapacityScratch(this.cluster), placementRequestOf(spec, workers));
    if (!tasks) throw new Error(`${spec.id} does not fit`);
    this.cluster.allocate(spec.id, tasks);
    const job = new JobRuntime(spec, 1, { nowS: 0 });
    job.phase = 'running';
    job.firstStartS = 0;
    job.workers = workers;
    job.gpus = workers * spec.roles[0]!.demand.gpus;
    this.running.push(job);
    return this;
  }

  queue(spec: JobSpec): this {
    const job = new JobRuntime(spec, 1, { nowS: 0 });
    job.phase = 'queued';
    this.queued.push(job);
    return this;
  }

  context(): SchedulingContext {
    const cluster = this.cluster;
    return {
      nowS: 100,
      cluster,
      queued: [...this.queued],
      queuedInOrder: () => [...this.queued],
      running: [...this.running],
      placement: packPlacement,
      scratch: () => new CapacityScratch(cluster),
      changes: NO_CHANGES,
    };
  }

  /** Applies actions the way the simulation does (removals, additions, starts) and updates the views. */
  apply(actions: readonly SchedulingAction[]): void {
    for (const a of actions) if (a.kind === 'resize') this.cluster.releaseTasks(a.jobId, a.remove);
    for (const a of actions) if (a.kind === 'resize') this.cluster.allocate(a.jobId, a.add);
    for (const a of actions) {
      if (a.kind === 'start') {
        this.cluster.allocate(a.jobId, a.tasks);
        const index = this.queued.findIndex((j) => j.spec.id === a.jobId);
        const [job] = this.queued.splice(index, 1);
        job!.phase = 'running';
        this.running.push(job!);
      }
    }
    for (const job of this.running) job.workers = (this.cluster.tasksOf(job.spec.id) ?? []).filter((t) => t.role === 'worker').length;
    this.cluster.checkInvariants();
  }
}

/** Actions as short strings: "start q x6" (workers), "resize a +1 -0". */
function summary(actions: readonly SchedulingAction[]): string[] {
  return actions.map((a) => {
    switch (a.kind) {
      case 'start':
        return `start ${a.jobId} x${a.tasks.filter((t) => t.role === 'worker').length}`;
      case 'resize':
        return `resize ${a.jobId} +${a.add.length} -${a.remove.length}`;
      case 'preempt':
        return `preempt ${a.jobId}`;
      default:
        return `${a.kind} ${a.jobId}`;
    }
  });
}

function rank(id: string, workers: number, min: number, max: number, gpus = 1, cpuMilli = 4000, memMiB = 16_384): EdlRank {
  return { id, workers, bounds: { min, max, unit: 1 }, demand: gpuDemand(gpus, cpuMilli, memMiB) };
}

describe('edl fulfillment', () => {
  it('is (cur - min) / (max - min), 1 for a rigid job, and a queued job ranks below all', () => {
    expect(fulfillment(2, { min: 1, max: 5, unit: 1 })).toBe(0.25);
    expect(fulfillment(4, { min: 4, max: 4, unit: 4 })).toBe(1);
    expect(fulfillment(1, { min: 1, max: 3, unit: 1 })).toBe(0);
    expect(QUEUED_FULFILLMENT).toBeLessThan(0);
    expect(trainerBounds(batchJob('rigid', 0, 1, 10, 3))).toEqual({ min: 3, max: 3, unit: 3 });
    expect(trainerBounds(elasticJob('e', 0, 4, 2, 8))).toEqual({ min: 2, max: 8, unit: 1 });
  });

  it('orders by fulfillment, then fewer GPUs, less CPU, less memory per trainer, then id (hand table)', () => {
    // id      workers min max  gpus cpu   mem     fulfillment
    const table = [
      rank('d', 4, 4, 4), //                         1 (rigid)
      rank('h', 4, 2, 6), //                         0.5
      rank('b', 3, 1, 9, 2), //      2 GPUs          0.25
      rank('a2', 2, 1, 5), //                        0.25
      rank('a', 2, 1, 5), //                         0.25
      rank('f', 2, 1, 5, 1, 4000, 8192), // less mem 0.25
      rank('e', 2, 1, 5, 1, 2000), //   less CPU     0.25
      rank('c', 1, 1, 4), //                         0
    ];
    const ascending = [...table].sort(compareFulfillment).map((r) => r.id);
    expect(ascending).toEqual(['c', 'e', 'f', 'a', 'a2', 'b', 'h', 'd']);
    // Fractions compare exactly: 1/3 and 2/6 tie and fall through to the tie-breaks.
    expect(compareFulfillment(rank('x', 2, 1, 4), rank('y', 3, 1, 7))).toBeLessThan(0);
    expect(compareFulfillment(rank('y', 2, 1, 4), rank('x', 3, 1, 7))).toBeGreaterThan(0);
  });

  it('uses the documented defaults', () => {
    expect(EDL_TICK_S).toBe(30);
    expect(EDL_MAX_LOAD).toBe(0.97);
    expect(createEdl().tickS).toBe(30);
  });
});

describe('edl pass', () => {
  it('grows the least fulfilled job by one unit while allocation stays <= L x capacity', () => {
    // 8 GPUs, L x capacity = 7.76: a (1/3) and b (1/2) hold 6 GPUs; only one more unit fits under L.
    const build = () => new Moment(1).run(elasticJob('a', 0, 2, 1, 4), 2).run(elasticJob('b', 0, 4, 1, 7), 4);
    expect(summary(createEdl().schedule(build().context()))).toEqual(['resize a +1 -0']);
    // With L = 1 both grow in the same walk, least fulfilled first.
    expect(summary(createEdl({ maxLoad: 1 }).schedule(build().context()))).toEqual(['resize a +1 -0', 'resize b +1 -0']);
  });

  it('repeats the walk until nothing changes, one unit per job per walk, up to max', () => {
    // 16 GPUs (L x capacity = 15.52): a (max 4) and b (max 12) start at 1 worker each.
    const moment = new Moment(2).run(elasticJob('a', 0, 2, 1, 4), 1).run(elasticJob('b', 0, 2, 1, 12), 1);
    // a stops at its max (4); b takes the rest up to 15 GPUs in total.
    expect(summary(createEdl().schedule(moment.context()))).toEqual(['resize a +3 -0', 'resize b +10 -0']);
  });

  it('shrinks the most fulfilled job by one unit when the cluster is over L', () => {
    // 8 GPUs all allocated (> 7.76): a is fully fulfilled (1), b at 1/3.
    const build = () => new Moment(1).run(elasticJob('a', 0, 4, 1, 4), 4).run(elasticJob('b', 0, 4, 2, 8), 4);
    const moment = build();
    const actions = createEdl().schedule(moment.context());
    expect(summary(actions)).toEqual(['resize a +0 -1']);
    const removed = (actions[0] as Extract<SchedulingAction, { kind: 'resize' }>).remove[0]!;
    const held = moment.cluster.tasksOf('a')!;
    expect(removed).toBe(held[held.length - 1]);
    // With L = 0.5 (4 GPUs) the walk repeats: a and b each lose two trainers (b down to its min 2).
    expect(summary(createEdl({ maxLoad: 0.5 }).schedule(build().context()))).toEqual(['resize a +0 -2', 'resize b +0 -2']);
  });

  it('gives back a unit that trimming took needlessly instead of resizing it twice', () => {
    // 16 GPUs, L = 0.5 (8 GPUs), 10 allocated. Descending: x (1-GPU trainers, fulfillment 1) gives one
    // (9 left, still over), y (2-GPU trainers, 2/3) gives one (7 left). x's trainer fits again under L,
    // on the GPU it held: x ends unchanged and only y shrinks, so a second pass has nothing to do.
    const moment = new Moment(2).run(elasticJob('x', 0, 4, 1, 4), 4).run(elasticJob('y', 0, 3, 1, 4, 1000, 2), 3);
    const policy = createEdl({ maxLoad: 0.5 });
    const actions = policy.schedule(moment.context());
    expect(summary(actions)).toEqual(['resize y +0 -1']);
    moment.apply(actions);
    expect(policy.schedule(moment.context())).toEqual([]);
  });

  it('lets a job that cannot start take units from the most fulfilled jobs, down to their min', () => {
    // 16 GPUs, L = 1 to isolate the donor rule. a (min 6, 8 trainers: fulfillment 1) fills node 0;
    // b (min 2, 6 of max 8: 2/3) and 2 free GPUs on node 1. q needs 6 GPUs.
    const moment = new Moment(2)
      .run(elasticJob('a', 0, 8, 6, 8), 8)
      .run(elasticJob('b', 0, 6, 2, 8), 6)
      .queue(batchJob('q', 50, 1, 100, 6));
    const actions = createEdl({ maxLoad: 1 }).schedule(moment.context());
    // Order of donations: a (1 -> 1/2), b (2/3 -> 1/2), b (tie at 1/2, larger id first -> 1/3), a (1/2 -> 0 = its min).
    expect(summary(actions)).toEqual(['resize a +0 -2', 'resize b +0 -2', 'start q x6']);
    moment.apply(actions);
    expect(moment.running.map((j) => `${j.spec.id}:${j.workers}`)).toEqual(['a:6', 'b:4', 'q:6']);
  });

  it('keeps new jobs waiting (and jobs behind them) when donors cannot free enough', () => {
    // Free 2 + a can give 2 + b can give 4 = 8 GPUs < 9: nothing moves, and the 1-GPU job behind waits too.
    const moment = new Moment(2)
      .run(elasticJob('a', 0, 8, 6, 8), 8)
      .run(elasticJob('b', 0, 6, 2, 6), 6)
      .queue(batchJob('big', 50, 1, 100, 9))
      .queue(batchJob('small', 60, 1, 100));
    expect(createEdl({ maxLoad: 1 }).schedule(moment.context())).toEqual([]);
  });

  it('starts a queued elastic job at its min and lets it grow in the same pass', () => {
    const moment = new Moment(1).queue(elasticJob('e', 0, 4, 2, 6));
    expect(summary(createEdl().schedule(moment.context()))).toEqual(['start e x6']);
  });

  it('does nothing on a second pass over the state its first pass produced', () => {
    // 24 GPUs: three elastic jobs at different fulfillment, one rigid job, and a newcomer that must squeeze in.
    const moment = new Moment(3)
      .run(elasticJob('a', 0, 4, 2, 10), 9)
      .run(batchJob('r', 0, 4, 100), 1)
      .run(elasticJob('b', 0, 4, 1, 6), 5)
      .run(elasticJob('c', 0, 2, 2, 4), 2)
      .queue(elasticJob('n', 50, 4, 3, 8))
      .queue(batchJob('m', 60, 2, 100));
    const policy = createEdl();
    const first = policy.schedule(moment.context());
    expect(summary(first)).toEqual(['resize a +0 -1', 'resize b +0 -1', 'start n x3', 'start m x1']);
    moment.apply(first);
    expect(policy.schedule(moment.context())).toEqual([]);
    // And the result respects the bounds and the load target.
    for (const job of moment.running) {
      const bounds = trainerBounds(job.spec);
      expect(job.workers).toBeGreaterThanOrEqual(bounds.min);
      expect(job.workers).toBeLessThanOrEqual(bounds.max);
    }
  });
});

describe('edl in the simulation', () => {
  it('fills the cluster with one job, shrinks it for a newcomer, and never breaks an invariant', () => {
    // 16 GPUs. e1 (requests 4, min 2, max 16) arrives alone and grows to the load target (15 GPUs);
    // e2 (min 4) arrives at 600 s and starts at once, with units taken from e1.
    const e1 = elasticJob('e1', 0, 4, 2, 16, 20_000);
    const e2 = elasticJob('e2', 600, 8, 4, 8, 2_000);
    const result = new Simulation(scenarioOf(gpuCluster(2, 8), [e1, e2]), { schedulingPolicy: createEdl(), checkInvariants: true }).run();
    const [r1, r2] = result.jobs;
    expect(result.summary.jobs.completed).toBe(2);
    expect(r1!.firstStartS).toBe(0);
    expect(r2!.firstStartS).toBe(600);
    expect(Math.max(...r1!.speedSamples.map((s) => s.workers))).toBe(15);
    expect(r1!.resizes).toBeGreaterThanOrEqual(2);
    expect(result.summary.queueDelayS.mean).toBe(0);
  });
});
