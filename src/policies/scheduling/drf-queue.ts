import type { TaskPlacement } from '../../model/allocation.js';
import { SortedMap } from '../../model/sorted-map.js';
import type { CapacityScratch } from '../../model/capacity.js';
import type { ClusterView } from '../../model/cluster-state.js';
import type { JobView, PlacementPolicy, PlacementRequest, QueueChanges, WaitExplainer } from '../types.js';
import { addTask, dominantShare, drfUser, minimumRequest, nextRequest, queuedCandidate, type DrfCandidate, type DrfGrant, type ResourceAmounts, type UserWeights } from './drf-fill.js';
import { identicalGangKey } from './gang-key.js';
import { fitsSomeGrown } from './grown-nodes.js';
import type { HeldByUser } from './held-by-user.js';
import { EMPTY_CLASSES_KEPT, EmptiedClasses } from './emptied-classes.js';
import { ByArrival } from './by-arrival.js';

/** A place in DRF's order: a share first, then the job's submission time, then its id. */
interface Rank {
  readonly share: number;
  readonly submitS: number;
  readonly id: string;
}

function compareRanks(a: Rank, b: Rank): number {
  if (a.share !== b.share) return a.share < b.share ? -1 : 1;
  if (a.submitS !== b.submitS) return a.submitS < b.submitS ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface ClassRank {
  readonly rank: Rank;
  readonly classId: number;
}

function compareClassRanks(a: ClassRank, b: ClassRank): number {
  return compareRanks(a.rank, b.rank) || a.classId - b.classId;
}

/** A class signature and what it was worked out from, besides the roles (see DrfQueue.namedByRoles). */
interface NamedGang {
  readonly kind: JobView['request']['kind'];
  readonly gpuTypes: JobView['request']['gpuTypes'];
  readonly elastic: JobView['request']['elastic'];
  readonly signature: string;
  readonly gangKey: string | null;
}

/** Where a queued job stands: its user, its class and its rank among its user's jobs there. */
interface QueuedEntry {
  readonly user: UserState;
  readonly shape: GangClass;
  readonly rank: Rank;
}

/** A DRF user the queue has seen (kept while it has no queued job: see DrfQueue.users). */
interface UserState {
  readonly name: string;
  readonly weight: number;
  /** What the user holds: what its running jobs hold, plus (in a pass) what the pass gave it. */
  held: ResourceAmounts;
  share: number;
  /** Its queued jobs by gang class, each in submission order (ranks with share 0). */
  readonly jobs: Map<GangClass, SortedMap<Rank, JobView>>;
  /** In a pass: its jobs already given a task that may take another one. */
  active: DrfCandidate[];
  /** In a pass: its place among users with such jobs (its share, its earliest such job), or null. */
  activeRank: Rank | null;
}

/**
 * Queued jobs whose first gang places alike: a gang of identical replicas under a placement
 * complete for them (one that fails means every other fails while the free capacity only shrinks),
 * or the very same mixed gang (one that fails on some free capacity means every other fails on it).
 */
interface GangClass {
  readonly id: number;
  readonly signature: string;
  /** The identical gang's key, or null for a class that only sleeps after a failure. */
  readonly gangKey: string | null;
  readonly example: PlacementRequest;
  /** Users with jobs in the class, by their share and their earliest job in it. */
  readonly users: SortedMap<Rank, UserState>;
  readonly rankOf: Map<UserState, Rank>;
  /** live: in the walk; dead: failed and nothing it could use grew since; asleep: failed in this pass since the last grant. */
  state: 'live' | 'dead' | 'asleep';
  /** Its place in the walk, or null when out of it. */
  walkKey: ClassRank | null;
}

/** What one pass of DrfQueue.fill needs. */
export interface DrfFillSetup {
  readonly cluster: ClusterView;
  readonly placement: PlacementPolicy;
  /** The free capacity to plan in; every grant is reserved in it. */
  readonly scratch: CapacityScratch;
  /** Running jobs that may take more tasks in the pass (their `held` counts toward their users). */
  readonly active?: readonly DrfCandidate[];
  /** What some users hold in this pass instead of what their running jobs hold. */
  readonly heldOverride?: ReadonlyMap<string, ResourceAmounts>;
  /** Nodes with more free capacity in the scratch than in the cluster (their failed classes are tried again). */
  readonly freedNodes?: readonly number[];
  /**
   * True when the scratch is the cluster's free capacity and every grant of the pass is started:
   * classes that fail stay dead after the pass (until a node they could use gains capacity), and
   * the jobs given tasks leave the queue at once. Otherwise both come back after the pass.
   */
  readonly allStart: boolean;
  /** Where a queued job that was tried and did not fit is said to wait for capacity (absent: nothing recorded). */
  readonly why?: WaitExplainer;
}

/**
 * The queue of a DRF scheduler (`drf`, `drf-dynamic`), kept from the queue's changes, and its
 * progressive filling (REFERENCE §6) as fillDrf does it over the whole queue: the same grants in
 * the same order. Queued jobs form classes by their first gang; each class keeps its users by
 * weighted dominant share, then by their earliest job in the class, and the classes stand in a walk
 * by their lowest user. A pass takes the lowest user (so the user DRF picks) from the walk and from
 * the running jobs it grows, and skips what cannot start:
 * - a gang of identical replicas that failed (under a placement complete for them) cannot fit while
 *   the free capacity only shrinks, so its class is dead: out of the walk in this pass and the next
 *   ones, until a node it could use gains capacity (the cluster logs every node whose free capacity
 *   grows);
 * - any gang that failed fails again on the same free capacity, so its class sleeps until the pass
 *   makes another grant.
 * A job that would fail is the earliest, share-0 job of its user when the whole-queue fill reaches
 * it, so leaving it out changes no grant. A pass costs its grants and the classes it tries.
 */
export class DrfQueue {
  /**
   * Users seen, idle ones too: most jobs start in the pass they arrive in, and making their user's
   * state again for each was much of what adding a job cost (a user's state is small, and there are
   * at most as many as the workload has users).
   */
  private readonly users = new Map<string, UserState>();
  /** Classes by signature: those with jobs, and some emptied (see `emptied`). */
  private readonly classes = new Map<string, GangClass>();
  /** Classes without jobs kept for their gang's next job (at most EMPTY_CLASSES_KEPT); an empty class is live and out of the walk. */
  private readonly emptied = new EmptiedClasses<GangClass>(EMPTY_CLASSES_KEPT, (shape) => {
    if (shape.users.size === 0 && this.classes.get(shape.signature) === shape) this.classes.delete(shape.signature);
  });
  /** Where each queued job stands. */
  private readonly entries = new ByArrival<QueuedEntry>();
  private readonly walk: SortedMap<ClassRank, GangClass> = new SortedMap<ClassRank, GangClass>(compareClassRanks);
  private readonly activeUsers: SortedMap<Rank, UserState> = new SortedMap<Rank, UserState>(compareRanks);
  private readonly deadClasses = new Set<GangClass>();
  private nextClassId = 0;
  private seeded = false;
  private growthMark = 0;
  private capacity: ResourceAmounts = { gpuMilli: 0, cpuMilli: 0, memMiB: 0 };
  private complete = false;
  /**
   * The class signature (and identical-gang key) last worked out for a list of roles, with the
   * kind, GPU models and elastic bounds it was worked out with: a generated trace's jobs of one
   * shape share one list, and writing the signature out for each job was much of what adding it
   * allocated. Another job with that list and the same three has the same first gang.
   */
  private readonly namedByRoles = new WeakMap<JobView['request']['roles'], NamedGang>();

  /**
   * @param weights the users' weights
   * @param held what users' running jobs hold, kept up to date by its owner before every sync
   */
  constructor(
    private readonly weights: UserWeights,
    private readonly held: HeldByUser,
  ) {}

  /** Jobs in the queue. */
  get size(): number {
    return this.entries.size;
  }

  /** Takes in what changed; the first call reads the whole queue (a policy made mid-run, or handed a queue directly). */
  sync(cluster: ClusterView, placement: PlacementPolicy, queued: () => readonly JobView[], changes: QueueChanges): void {
    if (!this.seeded) {
      this.capacity = { gpuMilli: cluster.totalGpus * 1000, cpuMilli: cluster.totalCpuMilli, memMiB: cluster.totalMemMiB };
      this.complete = placement.completeForIdentical === true;
      for (const job of queued()) this.add(job);
      this.seeded = true;
    }
    for (const list of [changes.queued, changes.started, changes.stopped, changes.resized]) {
      for (const job of list) {
        this.remove(job);
        if (job.phase === 'queued') this.add(job);
      }
    }
    for (const name of this.held.takeTouched()) {
      const user = this.users.get(name);
      if (user === undefined) continue;
      user.held = this.held.heldOf(name);
      this.rerank(user);
    }
  }

  /**
   * One progressive filling over the queued jobs and `setup.active`: repeatedly gives one more
   * task to the user with the lowest weighted dominant share among users with a job that can still
   * take one (ties: the user's earliest such job), within that user to its job with the lowest
   * dominant share (ties: earlier submission, then id); a job whose task does not fit is skipped for
   * the rest of the pass. Queued jobs given tasks come back as new candidates; active ones are
   * updated in place. Afterwards the queue holds what it held less the jobs started (see `allStart`).
   */
  fill(setup: DrfFillSetup): DrfGrant[] {
    const { scratch, placement } = setup;
    this.reviveGrown(setup.cluster, scratch, setup.freedNodes ?? []);
    // Nothing to fill (most passes of a queue that keeps up): nothing is made for the pass.
    if (this.walk.size === 0 && this.activeUsers.size === 0 && (setup.heldOverride?.size ?? 0) === 0 && (setup.active?.length ?? 0) === 0) return [];
    const touched = new Set<UserState>();
    for (const [name, held] of setup.heldOverride ?? []) {
      const user = this.userOf(name);
      user.held = { ...held };
      touched.add(user);
      this.rerank(user);
    }
    for (const c of setup.active ?? []) {
      if (nextRequest(c) === null) continue;
      const user = this.userOf(c.user);
      user.active.push(c);
      touched.add(user);
      this.placeActive(user);
    }
    const grants: DrfGrant[] = [];
    const sleeping: GangClass[] = [];
    const diedNow: GangClass[] = [];
    const taken: JobView[] = [];
    const failedKeys = new Set<string>();
    const kill = (shape: GangClass): void => {
      shape.state = 'dead';
      this.deadClasses.add(shape);
      diedNow.push(shape);
      this.reposition(shape);
    };
    const granted = (user: UserState, candidate: DrfCandidate, tasks: TaskPlacement[]): void => {
      for (const task of tasks) {
        candidate.planned.push(task);
        addTask(candidate.held, task);
        addTask(user.held, task);
        if (task.role === 'worker') candidate.workers++;
      }
      candidate.grants++;
      grants.push({ candidate, tasks });
      touched.add(user);
      // The free capacity changed: sleeping classes may fit again.
      for (const shape of sleeping.splice(0)) {
        shape.state = 'live';
        this.reposition(shape);
      }
    };
    for (;;) {
      const fromWalk = this.walk.nextHigherPair(undefined);
      const fromActive = this.activeUsers.nextHigherPair(undefined);
      if (fromWalk === undefined && fromActive === undefined) break;
      let user: UserState;
      let queued: { readonly shape: GangClass; readonly job: JobView } | null = null;
      let candidate: DrfCandidate | null = null;
      if (fromActive === undefined || (fromWalk !== undefined && compareRanks(fromWalk[0].rank, fromActive[0]) < 0)) {
        // The user's earliest job is a queued one, which holds nothing: it is the user's lowest job.
        const shape = fromWalk![1];
        user = shape.users.get(fromWalk![0].rank)!;
        queued = { shape, job: user.jobs.get(shape)!.get(user.jobs.get(shape)!.minKey()!)! };
      } else {
        user = fromActive[1];
        candidate = this.lowestActive(user);
        const first = this.earliestLiveQueued(user);
        if (first !== null && compareRanks(first.rank, { share: dominantShare(candidate.held, this.capacity, 1), submitS: candidate.request.submitS, id: candidate.request.id }) < 0) {
          queued = first;
          candidate = null;
        }
      }
      if (queued !== null) {
        const { shape, job } = queued;
        const request = minimumRequest(job.request);
        const tasks = placement.place(scratch, request);
        if (tasks === null) {
          setup.why?.unplaced(job, scratch, request);
          if (shape.gangKey !== null) {
            failedKeys.add(shape.gangKey);
            kill(shape);
          } else {
            shape.state = 'asleep';
            sleeping.push(shape);
            this.reposition(shape);
          }
          continue;
        }
        this.remove(job);
        taken.push(job);
        const fresh = queuedCandidate(job.request, job);
        granted(user, fresh, tasks);
        if (nextRequest(fresh) !== null) user.active.push(fresh);
        this.rerank(user);
        this.placeActive(user);
        continue;
      }
      const c = candidate!;
      const request = nextRequest(c)!;
      const key = this.complete ? identicalGangKey(request) : null;
      const dead = key !== null && (failedKeys.has(key) || this.classes.get(`I|${key}`)?.state === 'dead');
      const tasks = dead ? null : placement.place(scratch, request);
      if (tasks === null) {
        user.active.splice(user.active.indexOf(c), 1);
        if (key !== null) {
          failedKeys.add(key);
          const shape = this.classes.get(`I|${key}`);
          if (shape !== undefined && shape.state === 'live' && shape.users.size > 0) kill(shape);
        }
      } else {
        granted(user, c, tasks);
        if (nextRequest(c) === null) user.active.splice(user.active.indexOf(c), 1);
        this.rerank(user);
      }
      this.placeActive(user);
    }
    // Back to the queue as it stands outside a pass.
    for (const shape of sleeping) {
      shape.state = 'live';
      this.reposition(shape);
    }
    if (!setup.allStart) {
      for (const shape of diedNow) {
        if (shape.state !== 'dead') continue;
        shape.state = 'live';
        this.deadClasses.delete(shape);
        this.reposition(shape);
      }
    }
    for (const user of touched) {
      user.active = [];
      this.placeActive(user);
      user.held = this.held.heldOf(user.name);
      this.rerank(user);
    }
    if (!setup.allStart) for (const job of taken) this.add(job);
    return grants;
  }

  /** The user's active job with the lowest dominant share (ties: earlier submission, then id). */
  private lowestActive(user: UserState): DrfCandidate {
    let best = user.active[0]!;
    let bestShare = dominantShare(best.held, this.capacity, 1);
    for (const c of user.active) {
      const share = dominantShare(c.held, this.capacity, 1);
      if (share < bestShare || (share === bestShare && before(c, best))) {
        best = c;
        bestShare = share;
      }
    }
    return best;
  }

  /** The user's earliest queued job in a class in the walk, with its rank (share 0), or null. */
  private earliestLiveQueued(user: UserState): { readonly shape: GangClass; readonly job: JobView; readonly rank: Rank } | null {
    let best: { shape: GangClass; job: JobView; rank: Rank } | null = null;
    for (const [shape, jobs] of user.jobs) {
      if (shape.state !== 'live') continue;
      const rank = jobs.minKey()!;
      if (best === null || compareRanks(rank, best.rank) < 0) best = { shape, job: jobs.get(rank)!, rank };
    }
    return best;
  }

  /** Puts the user among users with active jobs at its share and earliest active job, or takes it out. */
  private placeActive(user: UserState): void {
    if (user.activeRank !== null) this.activeUsers.delete(user.activeRank);
    user.activeRank = null;
    if (user.active.length === 0) return;
    let first = user.active[0]!;
    for (const c of user.active) if (before(c, first)) first = c;
    user.activeRank = { share: user.share, submitS: first.request.submitS, id: first.request.id };
    this.activeUsers.set(user.activeRank, user);
  }

  /** Re-reads the user's share and moves it in every class it has jobs in. */
  private rerank(user: UserState): void {
    const share = dominantShare(user.held, this.capacity, user.weight);
    if (share === user.share) return;
    user.share = share;
    for (const shape of user.jobs.keys()) this.placeUser(user, shape);
    if (user.activeRank !== null) this.placeActive(user);
  }

  /** Puts the user in the class's order at its share and earliest job there (or takes it out), and the class in the walk. */
  private placeUser(user: UserState, shape: GangClass): void {
    const old = shape.rankOf.get(user);
    const jobs = user.jobs.get(shape);
    const first = jobs !== undefined && jobs.size > 0 ? jobs.minKey()! : null;
    // Already at its place: the class's order, and so its place in the walk, stay as they are.
    if (old !== undefined && first !== null && old.share === user.share && old.submitS === first.submitS && old.id === first.id) {
      this.reposition(shape);
      return;
    }
    if (old !== undefined) shape.users.delete(old);
    if (first !== null) {
      const rank: Rank = { share: user.share, submitS: first.submitS, id: first.id };
      shape.users.set(rank, user);
      // Set over the old entry: one change of the map, not a deletion and an addition.
      shape.rankOf.set(user, rank);
    } else {
      shape.rankOf.delete(user);
      user.jobs.delete(shape);
    }
    this.reposition(shape);
  }

  /** Puts a live class in the walk at its lowest user, or takes it out. */
  private reposition(shape: GangClass): void {
    // Its lowest user unchanged: it stays where it is in the walk.
    if (shape.walkKey !== null && shape.state === 'live' && shape.users.size > 0 && shape.walkKey.rank === shape.users.minKey()) return;
    if (shape.walkKey !== null) this.walk.delete(shape.walkKey);
    shape.walkKey = null;
    if (shape.state !== 'live' || shape.users.size === 0) return;
    shape.walkKey = { rank: shape.users.minKey()!, classId: shape.id };
    this.walk.set(shape.walkKey, shape);
  }

  /** Dead classes come back when a node they could use gained capacity since they were last checked (or is freed in the scratch). */
  private reviveGrown(cluster: ClusterView, scratch: CapacityScratch, freed: readonly number[]): void {
    const mark = cluster.growthCount;
    const since = this.growthMark;
    this.growthMark = mark;
    if (this.deadClasses.size === 0) return;
    const grown = mark === since ? [] : cluster.grownNodesSince(since);
    const nodes = freed.length === 0 ? grown : [...grown, ...freed];
    if (nodes.length === 0) return;
    for (const shape of this.deadClasses) {
      if (!fitsSomeGrown(cluster, scratch, nodes, shape.example.gpuTypes, shape.example.replicas)) continue;
      shape.state = 'live';
      this.deadClasses.delete(shape);
      this.reposition(shape);
    }
  }

  private userOf(name: string): UserState {
    let user = this.users.get(name);
    if (user === undefined) {
      const held = this.held.heldOf(name);
      const weight = this.weights[name] ?? 1;
      user = { name, weight, held, share: dominantShare(held, this.capacity, weight), jobs: new Map(), active: [], activeRank: null };
      this.users.set(name, user);
    }
    return user;
  }

  private add(job: JobView): void {
    const { request } = job;
    const user = this.userOf(drfUser(request));
    const shape = this.classOf(request);
    let jobs = user.jobs.get(shape);
    if (jobs === undefined) {
      jobs = new SortedMap<Rank, JobView>(compareRanks);
      user.jobs.set(shape, jobs);
    }
    const rank: Rank = { share: 0, submitS: request.submitS, id: request.id };
    jobs.set(rank, job);
    this.entries.set(job, { user, shape, rank });
    if (jobs.size === 1 || compareRanks(rank, jobs.minKey()!) === 0) this.placeUser(user, shape);
  }

  private remove(job: JobView): void {
    const entry = this.entries.take(job);
    if (entry === undefined) return;
    const { user, shape, rank } = entry;
    const jobs = user.jobs.get(shape)!;
    const wasFirst = compareRanks(jobs.minKey()!, rank) === 0;
    jobs.delete(rank);
    if (wasFirst) this.placeUser(user, shape);
    if (shape.users.size === 0) {
      this.deadClasses.delete(shape);
      if (shape.walkKey !== null) this.walk.delete(shape.walkKey);
      shape.walkKey = null;
      shape.state = 'live';
      this.emptied.emptied(shape);
    }
  }

  /** The class of a job's first gang: by its identical-gang key under a complete placement, else by the whole gang. */
  private classOf(job: JobView['request']): GangClass {
    let named = this.namedByRoles.get(job.roles);
    // The job's first gang, when worked out here (a new class keeps it as its example).
    let request: PlacementRequest | null = null;
    if (named === undefined || named.kind !== job.kind || named.gpuTypes !== job.gpuTypes || named.elastic !== job.elastic) {
      request = minimumRequest(job);
      const gangKey = this.complete ? identicalGangKey(request) : null;
      named = { kind: job.kind, gpuTypes: job.gpuTypes, elastic: job.elastic, signature: gangKey !== null ? `I|${gangKey}` : mixedSignature(request), gangKey };
      this.namedByRoles.set(job.roles, named);
    }
    const { signature, gangKey } = named;
    let shape = this.classes.get(signature);
    if (shape === undefined) {
      shape = {
        id: this.nextClassId++,
        signature,
        gangKey,
        example: request ?? minimumRequest(job),
        users: new SortedMap<Rank, UserState>(compareRanks),
        rankOf: new Map(),
        state: 'live',
        walkKey: null,
      };
      this.classes.set(signature, shape);
    }
    return shape;
  }
}

function before(a: DrfCandidate, b: DrfCandidate): boolean {
  return a.request.submitS < b.request.submitS || (a.request.submitS === b.request.submitS && a.request.id < b.request.id);
}

/** A gang as a string: kind, allowed GPU models and its replicas in order (runs of equal ones counted). */
function mixedSignature(request: PlacementRequest): string {
  let signature = `M|${request.jobKind ?? ''}|${request.gpuTypes.join(',')}`;
  let run = 0;
  request.replicas.forEach((replica, k) => {
    run++;
    const next = request.replicas[k + 1];
    if (next !== undefined && next.role === replica.role && next.demand === replica.demand) return;
    const d = replica.demand;
    signature += `|${run}x${replica.role}:${d.gpus}/${d.gpuMilli}/${d.cpuMilli}/${d.memMiB}`;
    run = 0;
  });
  return signature;
}
