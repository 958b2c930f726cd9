import { CapacityScratch } from '../model/capacity.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { JobRequest } from '../model/job-spec.js';
import { shapeSignature } from '../policies/scheduling/shape-queue.js';
import { placementRequestOf, type PlacementPolicy, type PlacementRequest } from '../policies/types.js';
import type { JobRuntime } from './job-runtime.js';

/**
 * CPU starvation of queued jobs (GoldMiner's "GPUs free, but not enough CPU").
 *
 * Definition: a queued job is CPU-starved while its whole gang, at its requested size, would fit
 * the cluster's free capacity if it asked for no CPU (GPUs, GPU shares and memory free on
 * schedulable nodes, the stack's placement policy deciding where), but does not fit as asked. A
 * job that asks for no GPU or no CPU is never CPU-starved: its waiting is ordinary queueing.
 *
 * A sampled measurement, like a monitoring system's: the cluster changes only at instants, and the
 * meter looks at it at the end of an instant at most once every `periodS` of simulated time (the
 * run's sample period); what it saw holds until its next look. A request class made since the last
 * look is first judged at the end of the instant it was made in, so a job's wait is attributed from
 * its first instant in the queue.
 *
 * Cost: queued jobs with the same placement request form a class, and a look judges each class once
 * (an O(1) check of the free whole GPUs first, then at most two placements), whatever the number of
 * jobs in it. Each class keeps a starvation clock, the seconds of starvation it accrued since it was
 * made, piecewise linear between looks: clockS(t) = clockAtS + (t - lookS) * (starved ? 1 : 0). A job
 * notes the clock when it joins its class and adds the clock's advance to its `cpuStarvedWaitS` when
 * it leaves, so joining and leaving cost O(1) whatever the queue holds. A job enters its class at the
 * first look after it joined the queue, as of when it joined (no class is judged in between, so its
 * clock then is known); a job that leaves before that look waited no judged starvation, and most
 * jobs, which start in the instant they arrive, never cost a class.
 */
export class CpuStarvationMeter {
  /** Classes with at least one member, by request signature. */
  private readonly classes = new Map<string, RequestClass>();
  /** The class of each queued job. */
  private readonly classOf = new Map<JobRuntime, RequestClass>();
  /** Jobs that joined the queue since the last look (their mark NaN until they enter their class; a job that left has another mark). */
  private readonly joining: JobRuntime[] = [];
  /** When each of `joining` joined. */
  private readonly joiningAtS: number[] = [];
  /** Jobs in `joining` still waiting to enter their class. */
  private joiningCount = 0;
  /** Classes made at this look, judged with it. */
  private readonly unjudged: RequestClass[] = [];
  /** When the next periodic look is due, in simulated seconds. */
  private nextLookS = -Infinity;
  private readonly periodS: number;
  /** Places the gangs being judged (the stack's placement policy); until set, looks judge nothing. */
  placement: PlacementPolicy | null = null;

  constructor(
    private readonly cluster: ClusterView,
    options: { readonly periodS: number },
  ) {
    this.periodS = options.periodS;
  }

  /** Request classes with queued members now. */
  get classCount(): number {
    return this.classes.size;
  }

  /** The job joined the queue at `nowS`: it enters its request class as of then at the next look (see `look`). */
  joined(job: JobRuntime, nowS: number): void {
    job.cpuStarvedMarkS = Number.NaN;
    this.joining.push(job);
    this.joiningAtS.push(nowS);
    this.joiningCount++;
  }

  /** The job left the queue at `nowS`: it takes the starvation its class accrued since it joined; an emptied class is dropped. */
  left(job: JobRuntime, nowS: number): void {
    if (Number.isNaN(job.cpuStarvedMarkS)) {
      // It leaves before the look after it joined: not starved (no class was judged since), and it never enters a class.
      job.cpuStarvedMarkS = 0;
      if (--this.joiningCount === 0) this.joining.length = this.joiningAtS.length = 0;
      return;
    }
    const requestClass = this.classOf.get(job);
    if (requestClass === undefined) return;
    this.classOf.delete(job);
    job.cpuStarvedWaitS += clockS(requestClass, nowS) - job.cpuStarvedMarkS;
    if (--requestClass.members === 0) this.classes.delete(requestClass.signature);
  }

  /**
   * Brings every queued job's `cpuStarvedWaitS` up to `nowS` (the run's end), the jobs staying
   * queued. Costs the queue's length: call it once.
   */
  settle(nowS: number): void {
    this.enterJoining();
    for (const [job, requestClass] of this.classOf) {
      const nowClockS = clockS(requestClass, nowS);
      job.cpuStarvedWaitS += nowClockS - job.cpuStarvedMarkS;
      job.cpuStarvedMarkS = nowClockS;
    }
  }

  /**
   * Looks at the cluster at the end of the instant `nowS`: the jobs that joined since the last look
   * enter their classes, then every class is judged when a period passed since the last periodic
   * look, otherwise only the classes made now.
   */
  look(nowS: number): void {
    this.enterJoining();
    const placement = this.placement;
    if (placement === null) {
      this.unjudged.length = 0;
      return;
    }
    if (nowS >= this.nextLookS) {
      this.nextLookS = nowS + this.periodS;
      for (const requestClass of this.classes.values()) this.judge(requestClass, placement, nowS);
    } else {
      for (const requestClass of this.unjudged) if (requestClass.members > 0) this.judge(requestClass, placement, nowS);
    }
    this.unjudged.length = 0;
  }

  /**
   * The jobs that joined since the last look and are still queued enter their classes (made when
   * absent) as of when they joined: no class was judged since, so its clock then is known.
   */
  private enterJoining(): void {
    if (this.joiningCount === 0) return;
    const { joining, joiningAtS } = this;
    // Latest first: a job that left and joined again is listed twice and enters once, as of its last joining.
    for (let k = joining.length - 1; k >= 0; k--) {
      const job = joining[k]!;
      // Left since (or entered already from a later listing).
      if (!Number.isNaN(job.cpuStarvedMarkS)) continue;
      const joinedS = joiningAtS[k]!;
      const request = job.request;
      const signature = shapeSignature(request);
      let requestClass = this.classes.get(signature);
      if (requestClass === undefined) {
        requestClass = { signature, example: request, gangs: null, members: 0, clockAtS: 0, lookS: joinedS, starved: false };
        this.classes.set(signature, requestClass);
        this.unjudged.push(requestClass);
      }
      requestClass.members++;
      this.classOf.set(job, requestClass);
      job.cpuStarvedMarkS = clockS(requestClass, joinedS);
    }
    joining.length = joiningAtS.length = 0;
    this.joiningCount = 0;
  }

  /** Brings the class's clock up to `nowS` and decides whether it is starved from now on. */
  private judge(requestClass: RequestClass, placement: PlacementPolicy, nowS: number): void {
    requestClass.clockAtS = clockS(requestClass, nowS);
    requestClass.lookS = nowS;
    requestClass.starved = this.starvedNow(requestClass, placement);
  }

  /** True when the class's gang fits the free capacity without its CPU but not with it. */
  private starvedNow(requestClass: RequestClass, placement: PlacementPolicy): boolean {
    // The gangs are made at the class's first look: most classes leave the queue in the instant they joined it.
    const { asked, withoutCpu, wholeGpus } = (requestClass.gangs ??= gangsOf(requestClass.example));
    if (withoutCpu === null) return false;
    // Not enough free whole GPUs anywhere: the GPUs are not free, whatever the CPU.
    if (this.cluster.schedulableFreeWholeGpus < wholeGpus) return false;
    // A fresh scratch per placement: nothing reserved by one placement is seen by the next.
    if (placement.place(new CapacityScratch(this.cluster), withoutCpu) === null) return false;
    return placement.place(new CapacityScratch(this.cluster), asked) === null;
  }
}

/** Queued jobs asking for one placement request, and its starvation clock. */
interface RequestClass {
  readonly signature: string;
  /** Its first member's request. */
  readonly example: JobRequest;
  /** The gangs it is judged by, made at its first look. */
  gangs: Gangs | null;
  /** Queued jobs in the class. */
  members: number;
  /** The clock at `lookS`, seconds. */
  clockAtS: number;
  /** When the class was last judged (or made). */
  lookS: number;
  /** Starved at the last look: the clock runs from `lookS` while true. */
  starved: boolean;
}

/** The gangs a class is judged by. */
interface Gangs {
  /** The gang as asked. */
  readonly asked: PlacementRequest;
  /** The same gang with no CPU asked by any replica; null when it asks for no GPU or no CPU (never starved). */
  readonly withoutCpu: PlacementRequest | null;
  /** Whole GPUs the gang asks for in all (replicas asking for GPU shares count none). */
  readonly wholeGpus: number;
}

/** The gangs of a request: as asked and without CPU. */
function gangsOf(request: JobRequest): Gangs {
  const asked = placementRequestOf(request);
  let wholeGpus = 0;
  let asksGpus = false;
  let asksCpu = false;
  for (const replica of asked.replicas) {
    const { demand } = replica;
    if (demand.gpus > 0) asksGpus = true;
    if (demand.gpus > 0 && demand.gpuMilli >= GPU_MILLI) wholeGpus += demand.gpus;
    if (demand.cpuMilli > 0) asksCpu = true;
  }
  // Replicas of a role share its demand, and its CPU-less copy: built field by field in the importers' order, so placements see one object shape.
  const withoutCpu =
    asksGpus && asksCpu
      ? placementRequestOf({ ...request, roles: request.roles.map((role) => ({ ...role, demand: { gpus: role.demand.gpus, gpuMilli: role.demand.gpuMilli, cpuMilli: 0, memMiB: role.demand.memMiB } })) })
      : null;
  return { asked, withoutCpu, wholeGpus };
}

/** The class's starvation clock at `nowS`, seconds. */
function clockS(requestClass: RequestClass, nowS: number): number {
  return requestClass.starved ? requestClass.clockAtS + (nowS - requestClass.lookS) : requestClass.clockAtS;
}
