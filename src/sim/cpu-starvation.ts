import { CapacityScratch } from '../model/capacity.js';
import { GPU_MILLI } from '../model/cluster-spec.js';
import type { ClusterView } from '../model/cluster-state.js';
import type { JobRequest, ReplicaDemand } from '../model/job-spec.js';
import { ShapeIds } from '../model/shape-ids.js';
import { nodeAllows } from '../policies/placement/node-filter.js';
import { minFreeGpuMilli, minGpuRoom } from '../policies/placement/pack.js';
import type { JobRuntime } from './job-runtime.js';

/**
 * Classes a periodic look judges at most (dlsim's choice: it bounds the meter's cost per simulated
 * second); with more waiting, a class's state is up to ceil(classes / this) periods old.
 */
export const CLASSES_JUDGED_PER_LOOK = 8;

/**
 * CPU starvation of queued jobs (GoldMiner's "GPUs free, but not enough CPU").
 *
 * Definition: a queued job is CPU-starved while its GPU replicas, at its requested size, would
 * fit the free capacity of schedulable nodes of its GPU models if they asked for no CPU (free GPUs,
 * GPU shares and memory), but do not fit as asked. Each GPU role is counted alone: the replicas the
 * nodes could take, node by node (exact for a job of one GPU role on nodes any placement may use;
 * placement preferences such as racks are not asked). Its replicas without GPUs (parameter servers)
 * are left out: their wait for CPU is a CPU job's. A job whose GPU replicas ask for no CPU, or that
 * has none, is never CPU-starved.
 *
 * A sampled measurement, like a monitoring system's: the cluster changes only at instants, and the
 * meter looks at it at the end of an instant at most once every `periodS` of simulated time (the
 * run's sample period); what it saw holds until its next look. A request class made since the last
 * look is first judged at the end of the instant it was made in, so a job's wait is attributed from
 * its first instant in the queue.
 *
 * Cost: queued jobs with the same placement request form a class. A look judges the classes made
 * since the last one and, once a period, up to CLASSES_JUDGED_PER_LOOK others, those judged longest
 * ago; a judgement is an O(1) check of the free whole GPUs, then a count over the nodes with room
 * for a replica's GPUs that stops once enough are found, whatever the number of jobs in the class.
 * Each class keeps a starvation clock, the seconds of starvation it accrued since it was
 * made, piecewise linear between looks: clockS(t) = clockAtS + (t - lookS) * (starved ? 1 : 0). A job
 * notes the clock when it joins its class and adds the clock's advance to its `cpuStarvedWaitS` when
 * it leaves, so joining and leaving cost O(1) whatever the queue holds. A job enters its class at the
 * first look after it joined the queue, as of when it joined (no class is judged in between, so its
 * clock then is known); a job that leaves before that look waited no judged starvation, and most
 * jobs, which start in the instant they arrive, never cost a class.
 */
export class CpuStarvationMeter {
  /** The numbers of the gangs queued jobs ask for. */
  private readonly gangs = new ShapeIds();
  /** Classes with at least one member, by gang (each member keeps its class's gang: JobRuntime.cpuStarvedClass). */
  private readonly classes = new Map<number, RequestClass>();
  /** Jobs that joined the queue since the last look (their mark NaN until they enter their class; a job that left has another mark). */
  private readonly joining: JobRuntime[] = [];
  /** When each of `joining` joined. */
  private readonly joiningAtS: number[] = [];
  /**
   * Entries of `joining` and `joiningAtS` in use (the arrays keep their length: emptying an array
   * gives up its storage, and nearly every job would make it again).
   */
  private joiningListed = 0;
  /** Jobs in `joining` still waiting to enter their class. */
  private joiningCount = 0;
  /** Classes made at this look, judged with it. */
  private readonly unjudged: RequestClass[] = [];
  /** When the next periodic look is due, in simulated seconds. */
  private nextLookS = -Infinity;
  /** The scratch the current look judges on (the cluster does not change during a look); null outside one. */
  private lookScratch: CapacityScratch | null = null;
  private readonly periodS: number;

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
    this.joining[this.joiningListed] = job;
    this.joiningAtS[this.joiningListed] = nowS;
    this.joiningListed++;
    this.joiningCount++;
  }

  /** The job left the queue at `nowS`: it takes the starvation its class accrued since it joined; an emptied class is dropped. */
  left(job: JobRuntime, nowS: number): void {
    if (Number.isNaN(job.cpuStarvedMarkS)) {
      // It leaves before the look after it joined: not starved (no class was judged since), and it never enters a class.
      job.cpuStarvedMarkS = 0;
      if (--this.joiningCount === 0) this.joiningListed = 0;
      return;
    }
    const gang = job.cpuStarvedClass;
    if (gang < 0) return;
    job.cpuStarvedClass = -1;
    const requestClass = this.classes.get(gang)!;
    job.cpuStarvedWaitS += clockS(requestClass, nowS) - job.cpuStarvedMarkS;
    if (--requestClass.members === 0) this.classes.delete(requestClass.gang);
  }

  /**
   * Brings every queued job's `cpuStarvedWaitS` up to `nowS` (the run's end), the jobs staying
   * queued (`queued`: every job in the queue now). Costs the queue's length: call it once.
   */
  settle(nowS: number, queued: Iterable<JobRuntime>): void {
    this.enterJoining();
    for (const job of queued) {
      if (job.cpuStarvedClass < 0) continue;
      const requestClass = this.classes.get(job.cpuStarvedClass)!;
      const nowClockS = clockS(requestClass, nowS);
      job.cpuStarvedWaitS += nowClockS - job.cpuStarvedMarkS;
      job.cpuStarvedMarkS = nowClockS;
    }
  }

  /**
   * Looks at the cluster at the end of the instant `nowS`: the jobs that joined since the last look
   * enter their classes, the classes made now are judged, and when a period passed since the last
   * periodic look, up to CLASSES_JUDGED_PER_LOOK more, those judged longest ago.
   */
  look(nowS: number): void {
    this.lookScratch = null;
    this.enterJoining();
    for (const requestClass of this.unjudged) if (requestClass.members > 0) this.judge(requestClass, nowS);
    if (nowS >= this.nextLookS) {
      this.nextLookS = nowS + this.periodS;
      // The classes judged longest ago come first (a judged class moves to the map's end).
      let budget = CLASSES_JUDGED_PER_LOOK;
      for (const requestClass of this.classes.values()) {
        if (budget-- <= 0 || requestClass.lookS === nowS) break;
        this.judge(requestClass, nowS);
        this.classes.delete(requestClass.gang);
        this.classes.set(requestClass.gang, requestClass);
      }
    }
    this.unjudged.length = 0;
    this.lookScratch = null;
  }

  /**
   * The jobs that joined since the last look and are still queued enter their classes (made when
   * absent) as of when they joined: no class was judged since, so its clock then is known.
   */
  private enterJoining(): void {
    if (this.joiningCount === 0) return;
    const { joining, joiningAtS } = this;
    // Latest first: a job that left and joined again is listed twice and enters once, as of its last joining.
    for (let k = this.joiningListed - 1; k >= 0; k--) {
      const job = joining[k]!;
      // Left since (or entered already from a later listing).
      if (!Number.isNaN(job.cpuStarvedMarkS)) continue;
      const joinedS = joiningAtS[k]!;
      const request = job.request;
      const gang = this.gangs.idOf(request);
      let requestClass = this.classes.get(gang);
      if (requestClass === undefined) {
        requestClass = { gang, example: request, gangs: null, members: 0, clockAtS: 0, lookS: joinedS, starved: false };
        this.classes.set(gang, requestClass);
        this.unjudged.push(requestClass);
      }
      requestClass.members++;
      job.cpuStarvedClass = gang;
      job.cpuStarvedMarkS = clockS(requestClass, joinedS);
    }
    this.joiningListed = 0;
    this.joiningCount = 0;
  }

  /** Brings the class's clock up to `nowS` and decides whether it is starved from now on. */
  private judge(requestClass: RequestClass, nowS: number): void {
    requestClass.clockAtS = clockS(requestClass, nowS);
    requestClass.lookS = nowS;
    requestClass.starved = this.starvedNow(requestClass);
  }

  /** True when every GPU role of the class fits the free capacity without its CPU, and some role does not with it. */
  private starvedNow(requestClass: RequestClass): boolean {
    // The roles are read at the class's first look: most classes leave the queue in the instant they joined it.
    const gangs = (requestClass.gangs ??= gangsOf(requestClass.example));
    if (gangs === NEVER_STARVED) return false;
    // Not enough free whole GPUs anywhere: the GPUs are not free, whatever the CPU.
    if (this.cluster.schedulableFreeWholeGpus < gangs.wholeGpus) return false;
    const scratch = (this.lookScratch ??= new CapacityScratch(this.cluster));
    let short = false;
    for (const role of gangs.roles) {
      // A role that fits as asked fits without its CPU too (a node takes at least as many replicas
      // asking for less): counted once. Only a role short as asked is counted again without CPU.
      if (takes(scratch, role.asked, role.replicas, gangs.gpuTypes) >= role.replicas) continue;
      if (takes(scratch, role.withoutCpu, role.replicas, gangs.gpuTypes) < role.replicas) return false;
      short = true;
    }
    return short;
  }
}

/** How many replicas of `demand` the schedulable nodes with room for its GPUs take, each node counted alone; stops at `enough`. */
function takes(scratch: CapacityScratch, demand: ReplicaDemand, enough: number, gpuTypes: readonly string[]): number {
  let taken = 0;
  scratch.forEachWithFree(
    scratch.fitGroups(true, gpuTypes),
    minFreeGpuMilli(demand),
    demand.cpuMilli,
    (i) => {
      // Most nodes passed over take none: told apart without counting.
      if (nodeAllows(scratch.nodes[i]!, demand, gpuTypes) && scratch.fitsOne(i, demand)) taken += scratch.fitCount(i, demand);
      return taken >= enough;
    },
    minGpuRoom(demand),
  );
  return taken;
}

/** Queued jobs asking for one placement request, and its starvation clock. */
interface RequestClass {
  /** The gang's number (see ShapeIds). */
  readonly gang: number;
  /** Its first member's request. */
  readonly example: JobRequest;
  /** What it is judged by, read at its first look. */
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

/** One GPU role of a class: its replicas, their demand as asked and the same without CPU. */
interface GpuRole {
  readonly replicas: number;
  readonly asked: ReplicaDemand;
  readonly withoutCpu: ReplicaDemand;
}

/** What a class is judged by: its GPU roles, the GPU models it allows and the whole GPUs it asks for in all. */
interface Gangs {
  readonly roles: readonly GpuRole[];
  readonly gpuTypes: readonly string[];
  /** Whole GPUs its GPU replicas ask for (replicas asking for GPU shares count none). */
  readonly wholeGpus: number;
}

/** A class whose GPU replicas ask for no CPU, or that has none. */
const NEVER_STARVED: Gangs = { roles: [], gpuTypes: [], wholeGpus: 0 };

/** The GPU roles of a request; NEVER_STARVED when none asks for CPU. */
function gangsOf(request: JobRequest): Gangs {
  const roles: GpuRole[] = [];
  let wholeGpus = 0;
  let asksCpu = false;
  for (const role of request.roles) {
    const { demand } = role;
    if (demand.gpus === 0 || role.replicas === 0) continue;
    if (demand.cpuMilli > 0) asksCpu = true;
    if (demand.gpuMilli >= GPU_MILLI) wholeGpus += role.replicas * demand.gpus;
    roles.push({ replicas: role.replicas, asked: demand, withoutCpu: { ...demand, cpuMilli: 0 } });
  }
  return asksCpu ? { roles, gpuTypes: request.gpuTypes, wholeGpus } : NEVER_STARVED;
}

/** The class's starvation clock at `nowS`, seconds. */
function clockS(requestClass: RequestClass, nowS: number): number {
  return requestClass.starved ? requestClass.clockAtS + (nowS - requestClass.lookS) : requestClass.clockAtS;
}
